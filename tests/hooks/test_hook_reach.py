"""Writes that go past the hook another way: text typed into a running program (Codex `write_stdin`), another MCP
server's command tool, tools whose names say no write word, and servers whose names start like bsi's
(SPEC 20.2, 21.3).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.agent_settings import claude, codex, gemini
from tests.bsi import ok, run_bsi
from tests.hooks.test_client_tools import (  # noqa: F401 - `bound` and its template are fixtures
    OTHER,
    _client_bound_template,
    bound,
    pre_tool_use,
)
from tests.hooks.test_mcp_write_tools import _denied
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied


@pytest.fixture
def claimed(bound: tuple[Path, str, str]) -> tuple[Path, str, str]:  # noqa: F811 - the fixture imported above
    """A claim on src/ bound to AGENT, and another session's claim on other/ (test_client_tools' `bound`)."""
    return bound


# -- 1. Codex `write_stdin` ----------------------------------------------------------------------------------------
def _typed(brain: Path, chars: Any, **kwargs: Any) -> Any:
    return pre_tool_use(brain, "write_stdin", {"session_id": 7, "chars": chars}, agent="codex", **kwargs)


def test_text_typed_into_a_running_shell_is_read_as_a_shell_line(claimed: tuple[Path, str, str]) -> None:
    brain, mine, theirs = claimed
    assert_denied(_typed(brain, "rm -rf claims\n"), "protocol file")
    assert_denied(_typed(brain, "echo x > other/a.md\n"), "scope violation", mine)
    assert_denied(_typed(brain, "echo x > other/a.md\n", session=OTHER), theirs)
    assert_allowed(_typed(brain, "echo x > src/a.py\n"))
    assert_allowed(_typed(brain, ""))  # a poll of the program's output types nothing
    assert_allowed(_typed(brain, "ls -la\n"))


@pytest.mark.parametrize("chars", [
    "rm -rf cla",  # an unfinished line: what the next text completes is unknown
    "rm -rf \\\n",  # a line continued on the next text
    "rm -rf cl\t\n",  # a tab completes a word in an interactive shell
    "\x1b:w claims/x.yml\r",  # keys for a full-screen program
    "\x03",
    "!!\n",  # history expansion runs an earlier line
    "^src^claims\n",
    "echo 'unclosed\n",
])
def test_typed_text_that_cannot_be_read_is_refused(claimed: tuple[Path, str, str], chars: str) -> None:
    brain, _mine, _theirs = claimed
    assert_denied(_typed(brain, chars), "typed")


def test_a_paused_session_types_nothing(claimed: tuple[Path, str, str]) -> None:
    brain, mine, _theirs = claimed
    ok(run_bsi("gate", "pause", mine, "hold on", brain=brain))
    assert_denied(_typed(brain, "ls\n"), "paused")
    assert_allowed(_typed(brain, ""))


def test_a_shell_started_to_be_typed_into_later_is_refused(claimed: tuple[Path, str, str]) -> None:
    """Codex runs no hook for `write_stdin` (its text continues a command already checked): a shell reading its
    commands from the terminal would then run lines no hook sees."""
    brain, _mine, _theirs = claimed
    for command in ("bash", "bash -i", "sh -s", "exec zsh", "env bash -l"):
        assert_denied(pre_tool_use(brain, "Bash", {"command": command}, agent="codex"), "terminal")
    for command in ("bash -c 'echo hi'", "bash <<< 'echo hi'", "echo ls | bash", "bash src/run.sh",
                    "bash < src/run.sh"):
        assert_allowed(pre_tool_use(brain, "Bash", {"command": command}, agent="codex"))


def test_codex_matcher_takes_its_shell_under_its_hook_name_and_write_stdin() -> None:
    for name in ("Bash", "exec_command", "write_stdin", "apply_patch"):
        assert re.fullmatch(codex.TOOL_MATCHER, name), name


# -- 2. another server's command tool -----------------------------------------------------------------------------
@pytest.mark.parametrize(("tool", "key"), [
    ("mcp__shellsrv__run_command", "command"), ("mcp__shellsrv__execute_command", "command"),
    ("mcp__shellsrv__shell_exec", "cmd"), ("mcp__shellsrv__bash", "command"), ("mcp__term__terminal", "command"),
    ("mcp_shellsrv_run_command", "command"),
])
def test_another_servers_command_tool_is_read_as_a_shell_line(claimed: tuple[Path, str, str], tool: str,
                                                             key: str) -> None:
    brain, mine, _theirs = claimed
    agent, event = ("gemini", "BeforeTool") if tool.startswith("mcp_s") else (None, "PreToolUse")

    def call(command: Any) -> Any:
        return pre_tool_use(brain, tool, {key: command}, agent=agent, event_name=event)

    _denied(call("rm -rf claims"), agent, "protocol file")
    _denied(call(f"touch {brain}/other/a.md"), agent, "scope violation", mine)
    _denied(call(["rm", "-rf", "claims"]), agent, "protocol file")
    assert_allowed(call(f"touch {brain}/src/a.py"))
    assert_allowed(call("ls -la"))


def test_a_command_tools_relative_path_is_read_from_every_folder_above_the_cwd(
        claimed: tuple[Path, str, str]) -> None:
    """The server runs the command in its own folder (unknown): from src/, `rm -rf claims` may be the brain's."""
    brain, _mine, _theirs = claimed
    (brain / "src").mkdir(exist_ok=True)
    payload = {"command": "rm -rf claims"}
    event = {"session_id": AGENT, "cwd": str(brain / "src"),
             "hook_event_name": "PreToolUse", "tool_name": "mcp__shellsrv__run_command", "tool_input": payload}
    run = run_bsi("hook", "pre-tool-use", brain=brain, input=json.dumps(event))
    assert_denied(subprocess.CompletedProcess(["bsi"], run.code, run.out, run.err), "protocol file")


def test_a_command_tool_with_its_arguments_apart_is_read_whole(claimed: tuple[Path, str, str]) -> None:
    brain, _mine, _theirs = claimed
    assert_denied(pre_tool_use(brain, "mcp__shellsrv__run_command", {"command": "rm", "args": ["-rf", "claims"]}),
                  "protocol file")


# -- 3. tools with no write word ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("tool", "tool_input"), [
    ("mcp__fmt__format_file", {"path": "claims/x.yml"}),
    ("mcp__ed__text_editor", {"command": "create", "path": "claims/x.yml", "file_text": "x"}),
    ("mcp__ed__text_editor", {"command": "str_replace", "path": "claims/x.yml", "old_str": "a", "new_str": "b"}),
    ("mcp__ed__str_replace_editor", {"command": "insert", "path": "claims/x.yml"}),
    ("mcp__git__git_commit", {"repo_path": ".", "files": ["claims/x.yml"]}),
    ("mcp__fs__apply_diff", {"path": "claims/x.yml", "diff": "..."}),
    ("mcp__fs__patch", {"file": "claims/x.yml"}),
    ("mcp__fs__rename", {"from_path": "src/a.py", "to_path": "claims/x.yml"}),
    ("mcp__fs__mkdir", {"path": "claims/new"}),
    ("mcp__fs__prepend_to_file", {"path": "claims/x.yml"}),
])
def test_a_tool_that_writes_without_a_write_word_is_checked(claimed: tuple[Path, str, str], tool: str,
                                                            tool_input: dict[str, Any]) -> None:
    brain, _mine, _theirs = claimed
    assert_denied(pre_tool_use(brain, tool, tool_input), "protocol file")


@pytest.mark.parametrize(("tool", "tool_input"), [
    ("mcp__fs__read_file", {"path": "claims/x.yml"}),
    ("mcp__fs__list_directory", {"path": "claims"}),
    ("mcp__fs__search_files", {"path": "claims", "pattern": "x"}),
    ("mcp__ed__text_editor", {"command": "view", "path": "claims/x.yml"}),
    ("mcp__git__git_status", {"repo_path": "."}),
    ("mcp__git__git_diff", {"repo_path": ".", "target": "main"}),
    ("mcp__git__git_commit", {"repo_path": str(Path("/")), "message": "work"}),
])
def test_read_only_tools_stay_allowed(claimed: tuple[Path, str, str], tool: str, tool_input: dict[str, Any]) -> None:
    brain, _mine, _theirs = claimed
    if tool_input.get("repo_path") == "/":
        tool_input = {**tool_input, "repo_path": str(brain)}
    assert_allowed(pre_tool_use(brain, tool, tool_input))


# -- 4. servers named like bsi's own ------------------------------------------------------------------------------
@pytest.mark.parametrize(("tool", "agent", "event_name"), [
    ("mcp__bsi__x__write_file", None, "PreToolUse"), ("mcp__bsi__x__write_file", "codex", "PreToolUse"),
    ("mcp_bsi_files_write_file", "gemini", "BeforeTool"),
])
def test_a_server_whose_name_starts_like_bsis_is_another_server(claimed: tuple[Path, str, str], tool: str,
                                                               agent: str | None, event_name: str) -> None:
    brain, _mine, _theirs = claimed
    _denied(pre_tool_use(brain, tool, {"path": "claims/x.yml"}, agent=agent, event_name=event_name), agent,
            "protocol file")


@pytest.mark.parametrize(("matcher", "matched", "left"), [
    (claude.TOOL_MATCHER, ["mcp__bsi__x__write_file", "mcp__bsi___write_file"],
     ["mcp__bsi__claim_open", "mcp__bsi__lock_release"]),
    (codex.TOOL_MATCHER, ["mcp__bsi__x__write_file", "mcp__bsi___write_file"],
     ["mcp__bsi__claim_open", "mcp__bsi__lock_release"]),
    (gemini.TOOL_MATCHER, ["mcp_bsi_files_write_file", "mcp_bsi_claim_open_x", "mcp_bsi_claim", "mcp_bsix_x",
                           "mcp_fs_write_file", "write_file", "replace", "run_shell_command"],
     ["mcp_bsi_claim_open", "mcp_bsi_signal_send", "mcp_bsi_preflight", "read_file"]),
])
def test_the_matchers_skip_only_bsis_own_tools(matcher: str, matched: list[str], left: list[str]) -> None:
    for name in matched:
        assert re.search(matcher, name), name
    for name in left:
        assert not re.search(matcher, name), name
