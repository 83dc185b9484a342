"""A file-writing tool of another MCP server is checked like an edit tool (SPEC 20.2, 21).

Such a server (the well-known filesystem server, say) runs outside the client's sandbox, so its tool calls are
read as writes when the tool's name says it writes: its path-like arguments go through the one decision. A tool
whose name does not say it writes is left alone, and so are bsi's own tools (the server decides those itself).
"""

from __future__ import annotations

import json
import re
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
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied

#: One write tool of a server named `fs`, in each client's spelling: (tool name, --agent, hook_event_name).
SPELLINGS = [
    ("mcp__fs__write_file", None, "PreToolUse"),
    ("mcp__fs__write_file", "codex", "PreToolUse"),
    ("mcp_fs_write_file", "gemini", "BeforeTool"),
]


def _denied(done: Any, agent: str | None, *words: str) -> None:
    if agent == "gemini":
        assert done.returncode == 0 and json.loads(done.stdout)["decision"] == "deny", done
        assert all(word in done.stdout for word in words), done
    else:
        assert_denied(done, *words)


@pytest.mark.parametrize(("tool", "agent", "event_name"), SPELLINGS)
def test_an_mcp_write_tool_is_checked_in_every_clients_spelling(
        bound: tuple[Path, str, str], tool: str, agent: str | None, event_name: str) -> None:  # noqa: F811
    brain, mine, theirs = bound

    def call(path: str, session: str | None = None) -> Any:
        args = {"path": path, "content": "x\n"}
        return pre_tool_use(brain, tool, args, agent=agent, event_name=event_name,
                            **({"session": session} if session else {}))

    _denied(call(str(brain / "other" / "a.md")), agent, "scope violation", mine)
    _denied(call(str(brain / "claims" / "x.yml")), agent, "protocol file")
    _denied(call(str(brain / "BRAIN-INDEX.md")), agent, "protocol file")
    _denied(call("other/a.md", session=OTHER), agent, theirs)
    assert_allowed(call(str(brain / "src" / "a.py")))
    ok(run_bsi("gate", "pause", mine, "hold on", brain=brain))
    _denied(call(str(brain / "src" / "a.py")), agent, "paused")


@pytest.mark.parametrize(("tool", "tool_input"), [
    ("mcp__fs__edit_file", {"path": "other/a.md", "edits": [{"oldText": "a", "newText": "b"}]}),
    ("mcp__fs__create_directory", {"path": "other/new"}),
    ("mcp__fs__move_file", {"source": "src/a.py", "destination": "other/a.py"}),
    ("mcp__fs__move_file", {"source": "other/a.py", "destination": "src/a.py"}),
    ("mcp__files__writeFile", {"filePath": "other/a.md"}),
    ("mcp__files__rename", {"old_path": "src/a.py", "new_path": "other/a.py"}),
    ("mcp__files__delete_files", {"paths": ["src/a.py", "other/a.md"]}),
    ("mcp__files__save-note", {"file_path": "other/a.md"}),
    ("mcp__files__upload", {"files": [{"path": "src/a.py"}, {"path": "other/a.md"}]}),
    ("mcp__files__put_object", {"target": "file://{brain}/other/a.md"}),
])
def test_every_path_argument_of_a_write_named_tool_is_checked(
        bound: tuple[Path, str, str], tool: str, tool_input: dict[str, Any]) -> None:  # noqa: F811
    brain, mine, _theirs = bound
    text = json.dumps(tool_input).replace("{brain}", str(brain))
    assert_denied(pre_tool_use(brain, tool, json.loads(text)), "scope violation", mine)


def test_a_write_named_tool_that_names_no_file_is_refused_to_a_bound_session(
        bound: tuple[Path, str, str]) -> None:  # noqa: F811
    brain, mine, _theirs = bound
    assert_denied(pre_tool_use(brain, "mcp__fs__write_file", {"content": "x\n"}), "names no file")
    assert_denied(pre_tool_use(brain, "mcp__fs__write_file", "not an object"), "names no file")


@pytest.mark.parametrize(("tool", "tool_input"), [
    ("mcp__github__create_issue", {"title": "x", "body": "y"}), ("mcp__slack__set_status", {"status": "busy"}),
    ("mcp__deploy__update_service", {"target": "production"}), ("mcp__web__save_bookmark", {"url": "https://x"}),
])
def test_a_write_named_tool_that_is_not_about_files_and_names_none_is_left_alone(
        bound: tuple[Path, str, str], tool: str, tool_input: dict[str, Any]) -> None:  # noqa: F811
    """Creating an issue or setting a status writes no file the hook could check: refusing it would stop every
    MCP server that is not about files."""
    brain, _mine, _theirs = bound
    assert_allowed(pre_tool_use(brain, tool, tool_input))


@pytest.mark.parametrize("tool", [
    "mcp__fs__read_file", "mcp__fs__list_directory", "mcp__fs__search_files", "mcp__fs__get_file_info",
    "mcp_fs_read_text_file",
])
def test_a_tool_that_does_not_say_it_writes_is_left_alone(bound: tuple[Path, str, str],  # noqa: F811
                                                          tool: str) -> None:
    brain, mine, _theirs = bound
    ok(run_bsi("gate", "pause", mine, "hold on", brain=brain))
    assert_allowed(pre_tool_use(brain, tool, {"path": str(brain / "claims" / "x.yml")}))
    assert_allowed(pre_tool_use(brain, tool, {"path": "other/a.md"}))


@pytest.mark.parametrize(("tool", "agent", "event_name"), [
    ("mcp__bsi__claim_close", None, "PreToolUse"), ("mcp__bsi__lock_acquire", "codex", "PreToolUse"),
    ("mcp_bsi_claim_close", "gemini", "BeforeTool"), ("mcp__bsi__signal_send", None, "PreToolUse"),
])
def test_bsis_own_tools_are_left_to_the_server(bound: tuple[Path, str, str], tool: str,  # noqa: F811
                                              agent: str | None, event_name: str) -> None:
    brain, mine, _theirs = bound
    ok(run_bsi("gate", "pause", mine, "hold on", brain=brain))
    done = pre_tool_use(brain, tool, {"file": "claims/x.yml", "path": "other/a.md"}, agent=agent,
                        event_name=event_name)
    assert done.returncode == 0 and done.stdout == "", done


@pytest.mark.parametrize(("matcher", "matched", "left"), [
    (claude.TOOL_MATCHER, ["Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "mcp__fs__write_file",
                           "mcp__fs__read_file", "mcp__b__x", "mcp__bs__x", "mcp__bsix__x", "mcp__bsi_x__x"],
     ["mcp__bsi__claim_open", "mcp__bsi__signal_send", "Read", "WriteX", "XEdit", "Grep"]),
    (codex.TOOL_MATCHER, ["apply_patch", "exec_command", "shell", "mcp__fs__write_file", "mcp__b__x",
                          "mcp__bs__x", "mcp__bsix__x", "mcp__bsi_x__x"],
     ["mcp__bsi__claim_open", "mcp__bsi__lock_acquire"]),
    (gemini.TOOL_MATCHER, ["write_file", "replace", "run_shell_command", "mcp_fs_write_file", "mcp_b_x",
                           "mcp_bsix_x"],
     ["mcp_bsi_claim_open", "mcp_bsi_signal_send"]),
])
def test_the_installed_matchers_take_other_servers_tools_and_never_bsis_own(
        matcher: str, matched: list[str], left: list[str]) -> None:
    """Read as the clients read them: a regular expression searched anywhere in the name (Claude Code's own rule;
    the anchored reading gives the same answers)."""
    for name in matched:
        assert re.search(matcher, name) and re.fullmatch(matcher, name), name
    for name in left:
        assert not re.fullmatch(matcher, name), name
        if matcher == claude.TOOL_MATCHER:
            assert not re.search(matcher, name), name
    for name in left:
        if name.startswith("mcp"):
            assert not re.search(matcher, name), name


def test_an_install_from_before_mcp_tools_were_matched_reads_as_outdated(brain: Path) -> None:
    ok(run_bsi("hooks", "install", brain=brain))
    target = brain / ".claude" / "settings.json"
    data = json.loads(target.read_text())
    for group in data["hooks"]["PreToolUse"]:
        group["matcher"] = "Write|Edit|MultiEdit|NotebookEdit|Bash"
    target.write_text(json.dumps(data))
    status = json.loads(ok(run_bsi("hooks", "status", "--json", brain=brain)))
    assert "PreToolUse: pre-tool-use" in status["outdated"], status
    ok(run_bsi("hooks", "install", brain=brain))
    status = json.loads(ok(run_bsi("hooks", "status", "--json", brain=brain)))
    assert status["outdated"] == [] and status["missing"] == [], status


def _from_folder(brain: Path, folder: str, tool_input: dict[str, Any]) -> Any:
    """The hook's answer to `mcp__fs__write_file` sent while the agent's cwd is `folder` of the brain."""
    payload = {"session_id": AGENT, "cwd": str(brain / folder), "hook_event_name": "PreToolUse",
               "tool_name": "mcp__fs__write_file", "tool_input": tool_input}
    return run_bsi("hook", "pre-tool-use", brain=brain, input=json.dumps(payload))


def test_a_relative_path_is_read_from_the_folders_above_the_cwd_too(bound: tuple[Path, str, str]) -> None:  # noqa: F811
    """The server resolves a relative path from its own folder (the project's root), not the agent's cwd: sent from
    inside the claim's folder, `claims/ID.yml` and `other/a.md` are still the brain's protocol file and another
    session's file."""
    brain, mine, theirs = bound
    (brain / "src").mkdir(exist_ok=True)
    protocol = _from_folder(brain, "src", {"path": f"claims/{mine}.yml", "content": "status: open\n"})
    assert protocol.code == 2 and "protocol file" in protocol.err, protocol
    other = _from_folder(brain, "src", {"path": "other/a.md", "content": "x\n"})
    assert other.code == 2 and theirs in other.err, other
    assert _from_folder(brain, ".", {"path": "src/a.py", "content": "x\n"}).code == 0


@pytest.mark.parametrize("tool", ["mcp__fs__writefile", "mcp__fs__WRITEFILE", "mcp__fs__new_file", "mcp__fs__makeFile",
                                  "mcp__fs__add_file", "mcp__fs__download_file", "mcp__zip__extract",
                                  "mcp__fs__clear_file", "mcp__fs__erase", "mcp__fs__filewrite", "mcp__fs__FILEDELETE",
                                  "mcp_fs_dirmake"])
def test_other_spellings_of_a_write_are_checked(bound: tuple[Path, str, str], tool: str) -> None:  # noqa: F811
    """A verb run into its noun either way round (`writefile`, `filewrite`), and verbs that make or fill a file (new,
    make, add, download, extract, clear, erase), are writes too."""
    brain, _mine, theirs = bound
    assert_denied(pre_tool_use(brain, tool, {"path": str(brain / "other" / "a.md")}), theirs)
