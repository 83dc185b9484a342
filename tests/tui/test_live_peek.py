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

from brain_tui.core.sessions import agents

from .conftest import DEPLOY, NOW, PILOT, SEARCH, screen_text, select, settle

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


async def test_the_agent_column_shows_the_runway_from_140_columns(make_app, demo_root: Path) -> None:  # noqa: ANN001
    bind_transcript(demo_root, window=25_000)
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        cell = app.screen.query_one("#active").get_cell(PILOT, "agent").plain
        assert cell.startswith("● working Bash 2m")
        assert cell.endswith("· ctx 92% · ~15 turns")
        assert "ctx 92% · ~15 turns" in screen_text(app)


def _runway_live() -> dict:
    """Fixed live sessions (a commit hash depends on the machine's git identity): the pilot at 71 %."""
    from brain_tui.core.sessions.agents import Liveness
    from brain_tui.core.sessions.live import LiveSession
    from brain_tui.core.sessions.transcript import Peek, Runway, ToolCall

    def session(sess_id: str, state: str, minutes: int, tool: str | None, peek: Peek | None) -> LiveSession:
        return LiveSession(sess_id, Liveness(sess_id, "agent", state, NOW - timedelta(minutes=minutes), tool, ()),
                           None, None, peek)

    pilot_peek = Peek(text=("Schema updated; running the API tests next.",), text_at=NOW - timedelta(minutes=2),
                      tool=ToolCall("Bash", "pytest brain-engine/api", NOW - timedelta(minutes=1), False),
                      model="claude-test", runway=Runway(142_000, 200_000, 9_500.0, 6),
                      at=NOW - timedelta(minutes=1))
    low_peek = Peek(runway=Runway(186_000, 200_000, 7_000.0, 2))
    return {PILOT: session(PILOT, "working", 2, "Bash", pilot_peek),
            SEARCH: session(SEARCH, "needs_input", 4, "Bash", low_peek)}


def test_snapshot_runway_160x45(snap_compare, make_app) -> None:  # noqa: ANN001
    """The Agent column with two runways: 71 % used, and 93 % (under 10 % left, in the warning colour)."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        pilot.app.live_sessions = _runway_live()
        pilot.app.show_snapshot()
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(160, 45), run_before=run_before)


async def _open_detail(pilot, sess_id: str):  # noqa: ANN001, ANN202
    from brain_tui.tui.screens.detail import DetailScreen

    await select(pilot, "#active", sess_id)
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(pilot.app.screen, DetailScreen)
    return pilot.app.screen


async def test_the_detail_peeks_at_the_agent_transcript(make_app, demo_root: Path) -> None:  # noqa: ANN001
    bind_transcript(demo_root, window=25_000)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _open_detail(pilot, PILOT)
        peek = screen.query_one("#peek")
        assert peek.display and screen.query_one("#peek-heading").display
        text = str(peek.render())
        assert "Done." in text  # the last assistant message
        assert "last tool Bash ls brain-engine/api" in text  # the last tool call and its command
        assert "claude-opus-4-8 · ctx 92% · ~15 turns — context nearly full" in text
        assert "Peek" in screen_text(app) and "Done." in screen_text(app)  # on screen at 80x24, under the summary


async def test_a_claim_without_an_agent_has_no_peek_block(make_app, demo_root: Path) -> None:  # noqa: ANN001
    bind_transcript(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _open_detail(pilot, DEPLOY)
        assert not screen.query_one("#peek").display
        assert "Peek" not in screen_text(app)


async def test_hostile_transcript_text_is_inert_in_the_peek(make_app, demo_root: Path) -> None:  # noqa: ANN001
    import json

    copy = bind_transcript(demo_root)
    line = {"type": "assistant", "timestamp": "2026-11-29T09:58:00Z",
            "message": {"role": "assistant", "model": "m[bold]x",
                        "content": [{"type": "text", "text": "\x1b[2J\x1b]0;owned\x07[red]boom[/red] \u202eevil"}]}}
    with copy.open("a") as handle:
        handle.write(json.dumps(line) + "\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _open_detail(pilot, PILOT)
        text = str(screen.query_one("#peek").render())
        assert "[red]boom[/red]" in text  # markup shown as text, never parsed
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert "m[bold]x" in text


def test_snapshot_peek_detail_80x24(snap_compare, make_app) -> None:  # noqa: ANN001
    """The detail of the pilot at 80x24: the Peek block under the summary (a fixed peek: the transcript's own
    clock is not the test's)."""
    app = make_app()
    peek = _runway_live()[PILOT].peek
    app.brain.peek = lambda _sess_id: peek  # type: ignore[method-assign]

    async def run_before(pilot) -> None:  # noqa: ANN001
        await _open_detail(pilot, PILOT)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_group_by_state_toggles_and_is_kept_across_restarts(make_app, demo_root: Path) -> None:  # noqa: ANN001
    bind_transcript(demo_root)
    agents.record_state(demo_root, SEARCH, "agent-search", "needs_input", NOW - timedelta(minutes=4))
    app = make_app(remember_theme=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#active")
        opening = table.row_keys
        assert not any(key.startswith("group:") for key in opening)
        table.focus()
        await pilot.press("G")
        await settle(pilot)
        keys = table.row_keys
        assert keys[:4] == ["group:needs-you", SEARCH, "group:working", PILOT]
        assert keys[4] == "group:no-agent" and set(keys[5:]) == set(opening) - {SEARCH, PILOT}
        text = screen_text(app)
        assert "needs you · 1" in text and "working · 1" in text and "no agent · 4" in text
        assert "Active claims · 6" in text  # the headings are not counted as claims
    again = make_app(remember_theme=True)  # a later cockpit starts grouped
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert again.screen.query_one("#active").row_keys == keys
        again.screen.query_one("#active").focus()
        await pilot.press("G")
        await settle(pilot)
        assert again.screen.query_one("#active").row_keys == opening
    last = make_app(remember_theme=True)
    async with last.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert last.screen.query_one("#active").row_keys == opening


async def test_a_group_heading_is_no_claim(make_app, demo_root: Path) -> None:  # noqa: ANN001
    bind_transcript(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.query_one("#active").focus()
        await pilot.press("G")
        await settle(pilot)
        await select(pilot, "#active", "group:working")
        assert app.screen.selected_claim_id() is None
        await pilot.press("enter")
        await settle(pilot)
        from brain_tui.tui.screens.cockpit import CockpitScreen

        assert isinstance(app.screen, CockpitScreen)  # nothing to detail, no traceback
        await pilot.press("greater_than_sign")  # a sort keeps each heading at its group's head
        await settle(pilot)
        keys = app.screen.query_one("#active").row_keys
        assert keys.index("group:working") < keys.index(PILOT) < keys.index("group:no-agent")


def test_snapshot_grouped_claims_80x24(snap_compare, make_app) -> None:  # noqa: ANN001
    """The claims grouped by agent state at 80x24."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        pilot.app.live_sessions = _runway_live()
        pilot.app.settings["group_claims"] = True
        pilot.app.show_snapshot()
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=run_before)


async def test_live_sessions_read_in_the_worker_update_the_queue(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """The live cockpit's path: the worker's `LiveSessionsRead` brings a low runway, the queue gets its item."""
    from brain_tui.tui.messages import LiveSessionsRead

    agents.record_state(demo_root, SEARCH, "agent-search", "working", NOW - timedelta(minutes=4))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not [i for i in app.queue if i.kind == "context"]
        app.post_message(LiveSessionsRead(_runway_live()))  # SEARCH at 93 %
        await settle(pilot)
        assert [i.sess_id for i in app.queue if i.kind == "context"] == [SEARCH]
        header = str(app.screen.query_one("BrainHeader").render())
        assert f"⚑ {len(app.queue)}" in header


async def test_a_session_that_starts_waiting_reaches_the_queue_without_a_protocol_write(  # noqa: ANN001
        make_app, demo_root: Path) -> None:
    """A hook records needs input in `.brain/agents/` only: no claim or signal file changes, so no new snapshot.
    The 5-second live read showed `?` in the claims row while the queue, the header count and the bell kept the
    liveness read with the last snapshot — `bsi attention` listed the item, the cockpit did not."""
    agents.record_state(demo_root, SEARCH, "agent-search", "working", NOW - timedelta(minutes=4))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not [i for i in app.queue if i.kind == "needs_input"]
        agents.record_state(demo_root, SEARCH, "agent-search", "needs_input", NOW - timedelta(minutes=1),
                            kind="permission_prompt", message="Claude needs your permission to use Bash")
        app.live = True  # the live cockpit's 5-second read of the agents, driven once by hand
        app.readings.load_live_sessions()
        await settle(pilot)
        app.live = False
        assert [i.sess_id for i in app.queue if i.kind == "needs_input"] == [SEARCH]
        assert [i.sess_id for i in fresh_attention(demo_root) if i.kind == "needs_input"] == [SEARCH]
        header = str(app.screen.query_one("BrainHeader").render())
        assert f"⚑ {len(app.queue)}" in header


def fresh_attention(root: Path) -> list[object]:
    """What `bsi attention` lists now."""
    from .conftest import fresh

    return fresh(root).attention()  # type: ignore[return-value]


def test_a_message_without_a_time_reads_said_not_said_dash() -> None:
    """A transcript line without a timestamp (`bsi agent peek` prints ``said:``) showed ``said —:`` in the Peek
    block; the tool line's unknown time showed as a dangling `` · —``."""
    from brain_tui.core.sessions.transcript import Peek, ToolCall
    from brain_tui.tui.live import peek_text

    shown = peek_text(Peek(text=("Done.",), tool=ToolCall(name="Bash", target="ls", at=None, done=True)), NOW).plain
    assert "said:" in shown and "said —" not in shown
    assert "last tool Bash ls" in shown and "· —" not in shown
