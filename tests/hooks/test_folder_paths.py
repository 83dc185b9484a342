"""A path written with its trailing slash names a folder (another MCP server's `create_directory`, `bsi preflight
check ID eng/`): the one decision judges it as that folder written whole, as the shell's `rm -r` is: its holder's
own folder passes; a folder holding another claim's files, or a file another session locked, is refused."""

from __future__ import annotations

from pathlib import Path

from tests.hooks.test_client_tools import (  # noqa: F401 - `bound` and its template are fixtures
    OTHER,
    _client_bound_template,
    bound,
    pre_tool_use,
)
from tests.hooks.test_pre_tool_use import assert_allowed, assert_denied


def test_a_folder_named_with_its_slash_is_judged_written_whole(bound: tuple[Path, str, str]) -> None:  # noqa: F811
    brain, mine, theirs = bound
    (brain / "other" / "deep").mkdir(parents=True)
    for path in ("other/", str(brain / "other") + "/", "other/deep/"):
        assert_denied(pre_tool_use(brain, "mcp__fs__create_directory", {"path": path}, session=OTHER), theirs)
        assert_denied(pre_tool_use(brain, "mcp__fs__create_directory", {"path": path}), "scope violation", mine)
    assert_allowed(pre_tool_use(brain, "mcp__fs__create_directory", {"path": "src/"}))
    assert_allowed(pre_tool_use(brain, "mcp__fs__create_directory", {"path": "src/new/"}))


def test_a_folder_holding_a_file_another_session_locked_is_refused(bound: tuple[Path, str, str]) -> None:  # noqa: F811
    """A lock of a file below the folder, held by the holder's own child (SPEC 9): writing that file is refused (2),
    and so is writing the folder whole (`create_directory`, `rm -r`), which writes it too; a sibling folder passes."""
    from tests.bsi import ok, run_bsi

    brain, mine, _theirs = bound
    (brain / "src" / "sub").mkdir(parents=True, exist_ok=True)
    (brain / "src" / "sub" / "x.py").write_text("x\n", encoding="utf-8")
    child = ok(run_bsi("claim", "open", "--scope", "src/sub/x.py", "--parent", mine, "--story", "child", brain=brain))
    ok(run_bsi("lock", "acquire", "src/sub/x.py", child, brain=brain))
    for path in ("src/", "src/sub/"):
        assert_denied(pre_tool_use(brain, "mcp__fs__create_directory", {"path": path}), child, "locked")
    assert_denied(pre_tool_use(brain, "Bash", {"command": "rm -r src/sub"}), child, "locked")
    assert_denied(pre_tool_use(brain, "Write", {"file_path": "src/sub/x.py", "content": "y"}), child, "locked")
    assert_allowed(pre_tool_use(brain, "mcp__fs__create_directory", {"path": "src/other/"}))


def test_the_hook_index_leaves_a_folder_to_the_core(bound: tuple[Path, str, str]) -> None:  # noqa: F811
    """The shortcut keys locks by file: a folder named by a tool (its slash, `/.`, or an existing folder without
    either) would pass there on its own name while the core refuses it for the lock below (DESIGN 7: the index
    never says go where the core refuses)."""
    from brain_tui.hooks import fast
    from tests.bsi import NOW, ok, run_bsi
    from tests.hooks.test_hook_index import settle
    from tests.hooks.test_pre_tool_use import AGENT

    brain, mine, _theirs = bound
    (brain / "src" / "sub").mkdir(parents=True, exist_ok=True)
    (brain / "src" / "sub" / "x.py").write_text("x\n", encoding="utf-8")
    child = ok(run_bsi("claim", "open", "--scope", "src/sub/x.py", "--parent", mine, "--story", "child", brain=brain))
    ok(run_bsi("lock", "acquire", "src/sub/x.py", child, brain=brain))
    settle(brain)
    calls = [("mcp__fs__create_directory", {"path": "src/sub/"}), ("mcp__fs__create_directory", {"path": "src/sub/."}),
             ("mcp__fs__delete_file", {"path": "src/sub"}), ("Write", {"file_path": "src/sub", "content": "y"}),
             ("Write", {"file_path": str(brain / "src" / "sub") + "/", "content": "y"})]
    for tool, tool_input in calls:
        payload = {"session_id": AGENT, "cwd": str(brain), "hook_event_name": "PreToolUse", "tool_name": tool,
                   "tool_input": tool_input}
        assert fast.decide(payload, {"brain": str(brain), "now": NOW}, {}) is None, (tool, tool_input)
        assert_denied(pre_tool_use(brain, tool, tool_input), child, "locked")
    payload = {"session_id": AGENT, "cwd": str(brain), "hook_event_name": "PreToolUse", "tool_name": "Write",
               "tool_input": {"file_path": "src/sub/new.py", "content": "y"}}
    assert fast.decide(payload, {"brain": str(brain), "now": NOW}, {}) == (0, "", "")  # a file still goes fast
