"""A write that reaches a whole folder meets the locks of the files below it (SPEC 9, 10), asked of `Brain` in process:
however the folder is named (without its slash when it exists, `eng/sub/.`), and whatever command writes it whole
(`cp -rT`, a folder moved). tests/hooks/test_folder_paths.py keeps the hook's side."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.rules.write_request import ShellCommand, WriteSession
from tests.bsi import ok, run_bsi
from tests.rules.facade import at, open_in, refused


@pytest.fixture
def locked(tmp_path: Path) -> tuple[Path, str, str]:
    """A claim on `eng/`, and another session's lock on `eng/sub/x.md` and on `eng/new/a.md` (not made yet)."""
    root = tmp_path / "brain"
    ok(run_bsi("init", str(root), cwd=tmp_path))
    (root / "eng" / "sub").mkdir(parents=True)
    (root / "eng" / "sub" / "x.md").write_text("x\n", encoding="utf-8")
    mine = open_in(root, "eng/", slug="mine")
    theirs = open_in(root, "docs/", slug="theirs")
    at(root).locks.acquire("eng/sub/x.md", theirs)
    at(root).locks.acquire("eng/new/a.md", theirs)
    return root, mine, theirs


@pytest.mark.parametrize("path", ["eng/sub", "eng/sub/.", "./eng/sub", "eng", "eng/."])
def test_a_tool_path_naming_a_folder_meets_the_locks_below_it(locked: tuple[Path, str, str], path: str) -> None:
    """Another MCP server's `move_file`/`delete` of `eng/sub`, `bsi preflight check ID eng/sub`: the folder exists,
    so it is the folder (SPEC 5.1), written whole, as `eng/sub/` is; never a file `eng/sub` no lock names."""
    root, mine, theirs = locked
    error = refused(lambda: at(root).preflight(mine, path), 2)
    assert theirs in str(error) and "/ holds eng/" in str(error), str(error)


def test_the_holder_of_a_folder_may_name_it_without_its_slash(locked: tuple[Path, str, str]) -> None:
    """`bsi preflight check ID eng` for the claim on `eng/` is its own folder (it was read as a file named `eng`,
    outside `eng/`); a folder below it that holds no other session's lock passes too."""
    root, mine, theirs = locked
    at(root).locks.release("eng/sub/x.md", theirs)
    at(root).locks.release("eng/new/a.md", theirs)
    assert at(root).preflight(mine, "eng").file == "eng"
    assert at(root).preflight(mine, "eng/sub").file == "eng/sub"


@pytest.mark.parametrize("command", ["cp -rT /tmp eng/sub", "cp -a --no-target-directory /tmp eng/sub",
                                     "mv -T ../elsewhere eng/sub", "mv ../elsewhere eng/new"])
def test_a_command_writing_a_folder_whole_meets_the_locks_below_it(locked: tuple[Path, str, str],
                                                                   command: str) -> None:
    """`cp -rT SRC eng/sub` copies SRC's files into eng/sub (its x.md among them), and a folder moved to `eng/new`
    makes the files a lock there already holds."""
    root, mine, theirs = locked
    (root.parent / "elsewhere").mkdir()
    decision = at(root).decide_write(ShellCommand(command), WriteSession(claims=(mine,), cwd=str(root)))
    assert not decision.allowed and decision.code == 2 and theirs in decision.reason, decision
