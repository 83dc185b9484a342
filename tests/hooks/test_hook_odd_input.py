"""Odd but well-formed events: every hook answers in its wire format with one clear line, never an internal error.

SPEC 13 and 20.2: bad input gets one line saying what, the hook exits 0 or 2, and no traceback (nor the
catch-all's "internal error", which is a bug by definition) ever reaches the agent. JSON may carry what no
file name or UTF-8 text can hold: a NUL (``"\\u0000"``) or a lone surrogate (``"\\ud800"``, valid JSON, not
valid Unicode). The agent's runtime writes U+FFFD in place of a lone surrogate; a path with a NUL names no file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain_tui.core.sessions import agents
from tests.bsi import clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, hook

EVENTS = ("pre-tool-use", "post-tool-use", "session-start", "session-end", "user-prompt-submit", "stop",
          "notification", "permission-request")


@pytest.fixture
def bound(brain: Path) -> tuple[Path, str]:
    """A brain with one claim on src/, bound to AGENT."""
    return brain, ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", AGENT, brain=brain))


def base(brain: Path, **extra: Any) -> dict[str, Any]:
    return {"session_id": AGENT, "transcript_path": f"/tmp/{AGENT}.jsonl", "cwd": str(brain), **extra}


def assert_clean(done: Any) -> None:
    assert done.returncode in (0, 2), done
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done
    assert len(done.stderr.splitlines()) <= 1, done
    if done.stdout.strip():
        json.loads(done.stdout)


def test_a_touched_path_with_a_nul_is_no_file_and_the_activity_is_still_recorded(bound: tuple[Path, str]) -> None:
    brain, sess = bound
    post = base(brain, hook_event_name="PostToolUse", tool_name="Write",
                tool_input={"file_path": str(brain / "src" / "a\x00b.py"), "content": "x"})
    done = hook(brain, "post-tool-use", post, env=clean_env(BSI_SESSION=sess))
    assert_clean(done)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", done
    live = agents.read_liveness(brain)[sess]
    assert live.state == "working" and live.last_tool == "Write" and live.touched == ()


@pytest.mark.parametrize(("name", "extra", "field", "wanted"), [
    ("post-tool-use", {"hook_event_name": "PostToolUse", "tool_name": "Edit\ud800"}, "last_tool", "Edit\ufffd"),
    ("notification", {"hook_event_name": "Notification", "message": "waits \ud800"}, "input_message",
     "waits \ufffd"),
    ("permission-request", {"hook_event_name": "PermissionRequest", "tool_name": "Bash\ud800",
                            "tool_input": {"command": "ls"}}, "input_message", "Bash\ufffd ls"),
])
def test_a_lone_surrogate_in_an_event_is_read_as_the_agent_writes_it(bound: tuple[Path, str], name: str,
                                                                     extra: dict[str, Any], field: str,
                                                                     wanted: str) -> None:
    brain, sess = bound
    done = hook(brain, name, base(brain, **extra), env=clean_env(BSI_SESSION=sess))
    assert_clean(done)
    assert done.returncode == 0 and done.stderr == "", done
    assert getattr(agents.read_liveness(brain)[sess], field) == wanted


_TEXT = st.sampled_from(["", " ", "a\x00b", "a\ud800b", "\udfff", "../..", "/", "src/a.py", "claims/x.yml",
                         "echo x > claims/y.yml", "\x1b[31m", "Write", "Bash", "apply_patch", "mcp__x__write_file"])
_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(allow_nan=True), _TEXT)
_VALUE = st.recursive(_SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
                      max_leaves=8)
_KEYS = st.sampled_from(["session_id", "transcript_path", "cwd", "hook_event_name", "tool_name", "tool_input",
                         "tool_response", "prompt", "message", "notification_type", "stop_hook_active", "source"])
_TOOL_INPUT = st.dictionaries(st.sampled_from(["file_path", "notebook_path", "path", "command", "input", "paths",
                                               "content"]), _VALUE, max_size=3)
_EVENT = st.fixed_dictionaries({"tool_name": _TEXT, "tool_input": _TOOL_INPUT}) | st.dictionaries(_KEYS, _VALUE)


@settings(max_examples=40, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(name=st.sampled_from(EVENTS), event=_EVENT, is_bound=st.booleans())
def test_no_event_of_any_shape_reaches_an_internal_error(bound: tuple[Path, str], name: str, event: dict[str, Any],
                                                         is_bound: bool) -> None:
    brain, sess = bound
    env = clean_env(BSI_SESSION=sess) if is_bound else clean_env()
    assert_clean(hook(brain, name, {"cwd": str(brain), **event}, env=env))


@pytest.mark.parametrize("command", ["$(" * 5000, "\"$(echo \"" * 5000, "echo \"${x:-\"" * 5000],
                         ids=["substitutions", "quoted", "defaults"])
def test_a_command_nested_thousands_deep_is_refused_as_not_read_whole(bound: tuple[Path, str], command: str) -> None:
    brain, sess = bound
    done = hook(brain, "pre-tool-use", base(brain, hook_event_name="PreToolUse", tool_name="Bash",
                                            tool_input={"command": command}), env=clean_env(BSI_SESSION=sess))
    assert_clean(done)
    assert done.returncode == 2 and "cannot be read whole" in done.stderr, done
