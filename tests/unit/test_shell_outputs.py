"""Programs whose command line names the file they write (SPEC 21.3): `sort -o`, `curl -o`, `wget -O|-P`, `gzip`,
`uniq IN OUT`, `split`, `mkfifo`, `fallocate`, `mktemp`, `sponge`, the line editors, `cc -o`, git's own
(`--output`, `archive -o`, `format-patch -o`, `bundle create`, `clone`, `init`, `worktree|submodule add`), and the
wrappers' (`env -C DIR`, `sudo -D DIR`: the folder the command runs in; `time -o`, `strace -o`, `flock FILE`). Each is
read as the write it is, so a bound session's shell cannot write another claim's file by a spelling the reader did
not know."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand, WriteSession
from brain_tui.core.sessions.shell_targets import read_command
from tests.bsi import NOW, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, hook
from tests.hooks.test_shell_hook import bash


def targets(command: str) -> list[tuple[str, bool]]:
    return [(t.path, t.tree) for t in read_command(command, "/w", home="/home/u").targets]


@pytest.mark.parametrize(("command", "expected"), [
    ("sort -o out.txt in.txt", [("/w/out.txt", False)]),
    ("sort -uo out.txt in.txt", [("/w/out.txt", False)]),
    ("sort -k 2 --output=out.txt in.txt", [("/w/out.txt", False)]),
    ("sort -k 2 in.txt", []),
    ("curl -fsSL https://x/y -o out.bin", [("/w/out.bin", False)]),
    ("curl -fsSL https://x/y", []),
    ("wget -O page.html https://x", [("/w/page.html", False)]),
    ("wget -qP downloads https://x", [("/w/downloads", True)]),
    ("iconv -f latin1 -t utf8 -o out.txt in.txt", [("/w/out.txt", False)]),
    ("gzip data.csv", [("/w/data.csv", False), ("/w/data.csv.gz", False)]),
    ("gunzip data.csv.gz", [("/w/data.csv.gz", False)]),
    ("gzip -c data.csv", []),
    ("uniq in.txt out.txt", [("/w/out.txt", False)]),
    ("uniq in.txt", []),
    ("split -b 1k big.bin part-", [("/w/part-", False)]),
    ("mkfifo pipe; mknod n p; fallocate -l 1M blob", [("/w/pipe", False), ("/w/n", False), ("/w/blob", False)]),
    ("mktemp dir/x.XXXX; mktemp -p dir; mktemp", [("/w/dir/x.XXXX", False), ("/w/dir/tmp.XXXXXXXXXX", False)]),
    ("cat a | sponge a", [("/w/a", False)]),
    ("vim -es -c '%s/a/b/' -c wq f.txt", [("/w/f.txt", False)]),
    ("vim -R f.txt", []),
    ("gcc -Wno-unused -o prog main.c", [("/w/prog", False)]),
    ("gcc -Wno-unused -O2 main.c", []),
    ("git diff --output=d.patch; git archive -o a.tar HEAD", [("/w/d.patch", False), ("/w/a.tar", False)]),
    ("git format-patch -o patches HEAD~1", [("/w/patches", True)]),
    ("git bundle create all.bundle HEAD", [("/w/all.bundle", False)]),
    ("git clone https://x/repo.git; git clone . copy", [("/w/repo", True), ("/w/copy", True)]),
    ("git worktree add -b b ../wt; git submodule add https://x/m.git lib/m",
     [("/wt", True), ("/wt/.git", False), ("/w/lib/m", True)]),
    ("git init sub", [("/w/sub", True)]),
    ("git diff --stat; git log -5", []),
    # wrappers: the folder the command runs in, and the files the wrapper itself writes
    ("env -C sub touch ../x", [("/w/x", False)]),
    ("env --chdir=sub touch a; touch b", [("/w/sub/a", False), ("/w/b", False)]),
    ("sudo -D /t touch a", [("/t/a", False)]),
    ("time -o t.log make; /usr/bin/time --output=u.log true", [("/w/t.log", False), ("/w/u.log", False)]),
    ("strace -f -o trace.txt ls", [("/w/trace.txt", False)]),
    ("flock -x .lock -c 'touch a'; flock 9", [("/w/.lock", False), ("/w/a", False)]),
])
def test_the_output_a_command_line_names_is_a_target(command: str, expected: list[tuple[str, bool]]) -> None:
    assert targets(command) == expected


def test_they_cannot_write_another_claims_file(brain: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "src/", "--story", "mine", "--agent-session", AGENT, brain=brain))
    theirs = ok(run_bsi("claim", "open", "--scope", "other/", "--story", "theirs", "--agent-session", "someone-else",
                        brain=brain))
    b = Brain(brain, now=NOW, commit=False)
    session = WriteSession(agent_session=AGENT, cwd=str(brain))
    for command in ("sort -o other/a src/a", "curl -sS https://x -o other/a", "gzip other/a",
                    "git worktree add other/wt", "cd src && uniq a ../other/a", "env -C src touch ../other/a",
                    "sudo -D src rm ../other/a", "time -o other/a true", "flock other/lock true"):
        decision = b.decide_write(ShellCommand(command), session)
        assert not decision.allowed and "other/" in decision.reason, (command, decision)
        assert_denied(hook(brain, "pre-tool-use", bash(brain, command)), "other/")
    assert theirs
    assert_allowed(hook(brain, "pre-tool-use", bash(brain, "sort -o src/b src/a")))
