"""The shell reader's git option tables agree with the git installed here (`git SUB -h`).

An option the reader takes as taking the next word where git takes none (`revert -s`, git's `--signoff`;
`update-index --index-info`) hides the word after it: a revision taken back, a path written. One whose value git
takes only attached (`-S[<keyid>]`) must be marked optional (`?`). Read from git's own help, so that a table
written by hand cannot drift from the program it describes.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from brain_tui.core.sessions import shell_git
from brain_tui.core.sessions.shell_git_moves import MOVERS, PUSH_VALUES
from brain_tui.core.sessions.shell_options import OPTIONAL

#: `    -m, --message <message>    text`: the option column of a `git SUB -h` line.
_LINE = re.compile(r"^ {2,}(-\S.*?)(?: {2,}|$)")
#: Options git spells by more than one word, or whose help the parser misreads (none taken as a flag wrongly).
_SPLIT = re.compile(r",\s+(?=-)")


def _help(sub: str) -> dict[str, str]:
    """Each option of `git SUB -h`: "flag", "required" (a value, attached or the next word) or "optional" (a value
    only attached)."""
    # filter-branch waits 10 s after its warning unless told it was read
    done = subprocess.run(["git", sub, "-h"], capture_output=True, text=True, check=False,
                          env={**os.environ, "FILTER_BRANCH_SQUELCH_WARNING": "1"})
    kinds: dict[str, str] = {}
    for line in (done.stdout + done.stderr).splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        names = _SPLIT.split(match.group(1))
        value = names[-1].split(maxsplit=1)[1] if " " in names[-1] else ""
        last = names[-1].split()[0]
        if "[=" in last or "[<" in last:
            kind = "optional"
        elif value or "=<" in last:
            kind = "required"
        else:
            kind = "flag"
        for name in names:
            word = re.sub(r"[\[=<].*$", "", name.split()[0]) if name.split() else ""
            if word.startswith("--[no-]"):
                kinds["--" + word[7:]] = kinds["--no-" + word[7:]] = kind
            elif word.startswith("-") and word not in ("-", "--"):
                kinds[word] = kind
    return kinds


def _tables() -> list[tuple[str, frozenset[str]]]:
    tables: dict[str, set[str]] = {}
    for source in (MOVERS, shell_git._INDEX_WRITERS, shell_git._PATH_WRITERS, shell_git.VALUED, {"push": PUSH_VALUES}):
        for sub, options in source.items():
            tables.setdefault(sub, set()).update(options)
    tables.setdefault("clone", set()).update(shell_git._FOLDER_VALUES)
    return sorted((sub, frozenset(options)) for sub, options in tables.items())


@pytest.mark.parametrize(("sub", "table"), _tables(), ids=lambda value: value if isinstance(value, str) else "")
def test_no_option_the_reader_gives_a_value_is_a_flag_to_git(sub: str, table: frozenset[str]) -> None:
    kinds = _help(sub)
    if not kinds:
        pytest.skip(f"`git {sub} -h` lists no options here")
    wrong = []
    for option in sorted(table):
        name = option.removesuffix(OPTIONAL)
        kind = kinds.get(name)
        if kind == "flag":
            wrong.append(f"{name}: a flag to git, read as taking a value")
        elif kind == "optional" and not option.endswith(OPTIONAL):
            wrong.append(f"{name}: git takes its value only attached, read as taking the next word")
        elif kind == "required" and option.endswith(OPTIONAL):
            wrong.append(f"{name}: git takes the next word, read as taking it only attached")
    assert not wrong, (sub, wrong)
