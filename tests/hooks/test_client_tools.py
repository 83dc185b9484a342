"""Every write tool of every client is checked, in every form its input can take (SPEC 20.2, 21.3, 21.4).

The hook's answer follows the wire it reads (`--agent`, else the event's own `hook_event_name`); which tools
are writes does not: a Gemini CLI `write_file` is a write whether or not the hook line names Gemini, and a
Codex patch is a patch whether it comes as the `apply_patch` tool or as the argv of its `shell` tool.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied

OTHER = "11111111-2222-4333-8444-555555555555"


def patch(*files: str) -> str:
    """A Codex patch updating `files` (paths as given: relative to the folder it is applied in)."""
    return "*** Begin Patch\n" + "".join(f"*** Update File: {f}\n@@\n-a\n+b\n" for f in files) + "*** End Patch\n"


def pre_tool_use(brain: Path, tool: str, tool_input: Any, *, agent: str | None = None,
                 event_name: str | None = "PreToolUse", session: str = AGENT) -> subprocess.CompletedProcess[str]:
    payload: dict[str, Any] = {"session_id": session, "cwd": str(brain), "tool_name": tool, "tool_input": tool_input}
    if event_name is not None:
        payload["hook_event_name"] = event_name
    args = ["hook", "pre-tool-use", *(["--agent", agent] if agent else [])]
    run = run_bsi(*args, brain=brain, input=json.dumps(payload))
    assert run.code in (0, 2) and "Traceback" not in run.err
    return subprocess.CompletedProcess(["bsi", *args], run.code, run.out, run.err)


@pytest.fixture
def bound(brain: Path) -> tuple[Path, str, str]:
    """A claim on src/ bound to AGENT, and another session's claim on other/."""
    mine = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "mine", "--agent-session", AGENT, brain=brain))
    theirs = ok(run_bsi("claim", "open", "--scope", "other/", "--story", "theirs", brain=brain))
    return brain, mine, theirs


@pytest.mark.parametrize(("tool", "agent", "event_name"), [
    ("write_file", None, "PreToolUse"), ("replace", None, "PreToolUse"), ("write_file", None, None),
    ("replace", "claude", "PreToolUse"), ("write_file", "codex", "PreToolUse"),
    ("MultiEdit", "gemini", "BeforeTool"), ("NotebookEdit", "gemini", "BeforeTool"),
])
def test_a_write_tool_of_any_client_is_checked_whichever_agent_the_hook_line_names(
        bound: tuple[Path, str, str], tool: str, agent: str | None, event_name: str | None) -> None:
    brain, mine, theirs = bound
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"

    def denied(done: subprocess.CompletedProcess[str], *words: str) -> None:
        if agent == "gemini":
            assert done.returncode == 0 and json.loads(done.stdout)["decision"] == "deny", done
            assert all(word in done.stdout for word in words), done
        else:
            assert_denied(done, *words)

    denied(pre_tool_use(brain, tool, {key: str(brain / "other" / "a.md")}, agent=agent, event_name=event_name),
           "scope violation", mine)
    denied(pre_tool_use(brain, tool, {key: "claims/x.yml"}, agent=agent, event_name=event_name), "protocol file")
    denied(pre_tool_use(brain, tool, {key: "other/a.md"}, agent=agent, event_name=event_name, session=OTHER), theirs)
    assert_allowed(pre_tool_use(brain, tool, {key: str(brain / "src" / "a.py")}, agent=agent, event_name=event_name))
    ok(run_bsi("gate", "pause", mine, "hold on", brain=brain))
    denied(pre_tool_use(brain, tool, {key: str(brain / "src" / "a.py")}, agent=agent, event_name=event_name),
           "paused")
