"""The cockpit half of issue 21: context runways in the attention queue, the header and the Agent column, the
detail's Peek block, and the claims grouped by their agent's state.

The live sessions are real hook records (`core.agents`) naming a copy of the recorded Claude Code transcript
(`tests/fixtures/transcripts/claude-2.1.197.jsonl`: 23 238 tokens of context in its last turn).
"""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core import agents

from .conftest import NOW, PILOT, SEARCH, screen_text, settle

pytestmark = pytest.mark.anyio

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-2.1.197.jsonl"


def bind_transcript(root: Path, window: int | None = None) -> Path:
    """The pilot's agent works with the recorded transcript; `window` sets `agents.context_window`."""
    copy = root.parent / "transcript.jsonl"
    shutil.copyfile(FIXTURE, copy)
    transcript = agents.Transcript(str(copy), "claude")
    agents.record_binding(root, PILOT, "agent-pilot", NOW - timedelta(minutes=30))
    agents.record_activity(root, PILOT, "agent-pilot", NOW - timedelta(minutes=2), tool="Bash",
                           transcript=transcript)
    if window is not None:
        compose = root / "brain-compose.yml"
        compose.write_text(compose.read_text() + f"agents:\n  context_window: {window}\n")
    return copy


async def test_a_nearly_full_context_reaches_the_queue_and_the_header(make_app, demo_root: Path) -> None:  # noqa: ANN001
    bind_transcript(demo_root, window=25_000)  # 23 238 of 25 000: 7 % left
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        kinds = {item.key: item.kind for item in app.queue}
        assert kinds.get(f"context:{PILOT}") == "context"
        assert "ctx 92%" in next(i.summary for i in app.queue if i.kind == "context")
        header = str(app.screen.query_one("BrainHeader").render())
        assert f"⚑ {len(app.queue)}" in header
        await pilot.press("g")
        await settle(pilot)
        assert "context" in screen_text(app) and "context nearly full" in screen_text(app)


async def test_a_roomy_context_is_no_attention_item(make_app, demo_root: Path) -> None:  # noqa: ANN001
    bind_transcript(demo_root)  # the model's own 200 000-token window: 11 % used
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not [i for i in app.queue if i.kind == "context"]
        assert app.live_sessions[PILOT].runway is not None  # read, and not low


async def test_a_session_waiting_on_a_prompt_counts_as_needs_input(make_app, demo_root: Path) -> None:  # noqa: ANN001
    agents.record_state(demo_root, SEARCH, "agent-search", "needs_input", NOW - timedelta(minutes=4),
                        kind="permission", message="Allow Bash: rm -rf build?")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert any(i.kind == "needs_input" and i.sess_id == SEARCH for i in app.queue)
        header = str(app.screen.query_one("BrainHeader").render())
        assert f"⚑ {len(app.queue)}" in header
