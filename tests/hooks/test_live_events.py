"""session-start, user-prompt-submit, stop and session-end record the transcript too; a submitted prompt ends
a wait for input (issue 21). Events in the shape Claude Code 2.1.197 sends them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.sessions import agents
from tests.hooks.test_live_transcript import bound, notify  # noqa: F401 - the fixture
from tests.hooks.test_pre_tool_use import AGENT, hook


def base(brain: Path, transcript: Path, name: str, **extra: Any) -> dict[str, Any]:
    return {"session_id": AGENT, "transcript_path": str(transcript), "cwd": str(brain), "hook_event_name": name,
            **extra}


EVENTS = [("session-start", "SessionStart", {"source": "startup"}),
          ("user-prompt-submit", "UserPromptSubmit", {"prompt": "go on"}),
          ("stop", "Stop", {"stop_hook_active": False}),
          ("session-end", "SessionEnd", {"reason": "other"})]


@pytest.mark.parametrize(("name", "wire_name", "extra"), EVENTS, ids=[e[0] for e in EVENTS])
def test_each_event_records_the_transcript(bound: tuple[Path, str, Path], name: str,  # noqa: F811
                                           wire_name: str, extra: dict[str, Any]) -> None:
    brain, sess, transcript = bound
    assert agents.read_liveness(brain).get(sess) is None or agents.read_liveness(brain)[sess].transcript is None
    hook(brain, name, base(brain, transcript, wire_name, **extra))
    live = agents.read_liveness(brain)[sess]
    assert live.transcript == str(transcript) and live.agent == "claude"


def test_a_submitted_prompt_ends_a_wait_for_input(bound: tuple[Path, str, Path]) -> None:  # noqa: F811
    brain, sess, transcript = bound
    # a permission prompt on a tool whose PostToolUse the hooks do not match (Read)
    asked = notify(brain, transcript, "permission_prompt", "Claude needs your permission to use Read")
    hook(brain, "notification", asked)
    assert agents.read_liveness(brain)[sess].state == "needs_input"
    hook(brain, "user-prompt-submit", base(brain, transcript, "UserPromptSubmit", prompt="yes, read it"))
    live = agents.read_liveness(brain)[sess]
    assert live.state == "working" and live.input_kind is None and live.input_message is None
