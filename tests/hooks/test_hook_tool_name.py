"""A `pre-tool-use` event that names no tool is bad input: a bound session fails closed (SPEC 20.2).

Every client names the tool it is about to run (`tool_name`: Claude Code's `Write`, Gemini CLI's
`write_file`, Codex's `apply_patch`). An event without one, with an empty one or with one that is no
string cannot say whether the call writes: for a bound session the hook denies with one line saying
what failed and the command to check by hand; an unbound session goes on with a note. A tool the hook
does not check (`Read`, `Grep`) is no bad input: it passes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bsi import clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, hook


@pytest.fixture
def bound(brain: Path) -> tuple[Path, str]:
    """A brain with one claim on src/, bound to AGENT."""
    return brain, ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", AGENT, brain=brain))


def _event(brain: Path, **fields: Any) -> dict[str, Any]:
    return {"session_id": AGENT, "hook_event_name": "PreToolUse", "cwd": str(brain),
            "tool_input": {"file_path": str(brain / "claims" / "x.yml"), "content": "x"}, **fields}


@pytest.mark.parametrize("fields", [{}, {"tool_name": ""}, {"tool_name": "  "}, {"tool_name": None},
                                    {"tool_name": 7}, {"tool_name": ["Write"]}])
def test_a_bound_session_fails_closed_on_an_event_naming_no_tool(bound: tuple[Path, str],
                                                                 fields: dict[str, Any]) -> None:
    brain, sess = bound
    done = hook(brain, "pre-tool-use", _event(brain, **fields))
    reason = assert_denied(done, "could not decide", "tool_name", f"bsi preflight check {sess}")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done
    assert "internal error" not in reason


def test_the_fast_path_does_not_let_an_event_naming_no_tool_through(bound: tuple[Path, str]) -> None:
    brain, _sess = bound
    event = _event(brain)
    event["tool_input"] = {"file_path": str(brain / "src" / "app.py"), "content": "x"}
    assert_denied(hook(brain, "pre-tool-use", event), "could not decide", "tool_name")


def test_an_unbound_session_goes_on_with_a_note(bound: tuple[Path, str]) -> None:
    brain, _sess = bound
    done = hook(brain, "pre-tool-use", _event(brain, session_id="11111111-2222-3333-4444-555555555555"),
                env=clean_env())
    assert done.returncode == 0 and done.stdout == "", done
    assert "tool_name" in done.stderr, done


@pytest.mark.parametrize("tool", ["Read", "Grep", "Glob", "read_file"])
def test_a_tool_the_hook_does_not_check_still_passes(bound: tuple[Path, str], tool: str) -> None:
    brain, _sess = bound
    assert_allowed(hook(brain, "pre-tool-use", _event(brain, tool_name=tool)))
