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
from tests.conftest import copy_brain, template_from
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


@pytest.fixture(scope="session")
def _client_bound_template(_brain_template: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = template_from(_brain_template, tmp_path_factory, "client-bound")
    mine = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "mine", "--agent-session", AGENT, brain=root))
    theirs = ok(run_bsi("claim", "open", "--scope", "other/", "--story", "theirs", brain=root))
    return root, mine, theirs


@pytest.fixture
def bound(brain: Path, _client_bound_template: tuple[Path, str, str]) -> tuple[Path, str, str]:
    """A claim on src/ bound to AGENT, and another session's claim on other/ (built once, copied per test)."""
    template, mine, theirs = _client_bound_template
    return copy_brain(template, brain), mine, theirs


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


@pytest.mark.parametrize("program", ["apply_patch", "applypatch", "/usr/local/bin/apply_patch"])
def test_a_patch_given_as_the_argv_of_codex_shell_is_read_as_the_patch(bound: tuple[Path, str, str],
                                                                        program: str) -> None:
    """Codex runs `shell` with ``["apply_patch", PATCH]`` (or ``applypatch``) as its own patch tool."""
    brain, mine, theirs = bound
    assert_denied(pre_tool_use(brain, "shell", {"command": [program, patch("other/a.md")]}, agent="codex"),
                  "scope violation", mine)
    assert_denied(pre_tool_use(brain, "shell", {"command": [program, patch("src/a.py", "claims/x.yml")]},
                               agent="codex"), "protocol file")
    assert_denied(pre_tool_use(brain, "shell", {"command": [program, patch("other/a.md")]}, agent="codex",
                               session=OTHER), theirs)
    assert_allowed(pre_tool_use(brain, "shell", {"command": [program, patch("src/a.py")]}, agent="codex"))


@pytest.mark.parametrize("script", [
    "cd src && apply_patch <<'EOF'\n{patch}EOF\n",
    "cd src && applypatch <<'EOF'\n{patch}EOF\n",
    "applypatch <<'EOF'\n{patch_other}EOF\n",
])
def test_a_patch_after_cd_is_read_from_the_folder_codex_applies_it_in(bound: tuple[Path, str, str],
                                                                       script: str) -> None:
    """``cd DIR && apply_patch <<'EOF'`` applies the patch's relative paths in DIR (Codex's own reading)."""
    brain, mine, _theirs = bound
    text = script.format(patch=patch("../other/a.md"), patch_other=patch("other/a.md"))
    for tool, tool_input in (("shell", {"command": ["bash", "-lc", text]}), ("exec_command", {"cmd": text})):
        assert_denied(pre_tool_use(brain, tool, tool_input, agent="codex"), "scope violation", mine)
    inside = script.format(patch=patch("a.py"), patch_other=patch("src/a.py"))
    assert_allowed(pre_tool_use(brain, "shell", {"command": ["bash", "-lc", inside]}, agent="codex"))


def test_codex_shell_command_tool_is_read_as_a_shell(bound: tuple[Path, str, str]) -> None:
    """Codex's string shell tool `shell_command` (matched by the installed `shell` pattern) is a shell."""
    brain, mine, _theirs = bound
    assert_denied(pre_tool_use(brain, "shell_command", {"command": "echo x > other/a.md"}, agent="codex"),
                  "scope violation", mine)
    assert_denied(pre_tool_use(brain, "shell_command", {"command": "touch claims/x.yml"}, agent="codex"),
                  "protocol file")
    assert_allowed(pre_tool_use(brain, "shell_command", {"command": "echo x > src/a.py"}, agent="codex"))
    ok(run_bsi("gate", "pause", mine, "hold on", brain=brain))
    assert_denied(pre_tool_use(brain, "shell_command", {"command": "ls"}, agent="codex"), "paused")
