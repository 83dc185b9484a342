"""A shell command that changes what git holds for a protocol file is refused too (SPEC 21.3, 22).

`git add claims/x.yml`, `git rm --cached …`, `git commit -m m claims/…`, `git reset REV -- claims`,
`git stash push claims`, `git restore --staged …` and `git update-index … BRAIN-INDEX.md` write no
file, but what git holds for a protocol record (what is in force) changes; `find PATH -delete` and
`chmod MODE PATH` write below or on their paths. Each is refused as a protocol file through
`Brain.decide_write`, bound or not; the ordinary commands of one's work still go.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.write_request import ShellCommand, WriteSession
from brain_tui.core.sessions.shell_targets import read_command

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    for folder in ("claims", "signals", "locks", "breath", "src"):
        (tmp_path / folder).mkdir()
    return Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")


def sessions(brain: Brain) -> tuple[WriteSession, WriteSession]:
    mine = brain.open_claim(OpenRequest(scope=parse_scope("src/"), ttl=timedelta(hours=2), instance="t@test"))
    return WriteSession(claims=(mine,), cwd=str(brain.root)), WriteSession(cwd=str(brain.root))


REFUSED = ["git add claims/x.yml", "git add claims", "git add -- signals/", "git rm --cached claims/x.yml",
           "git commit -m done claims/x.yml", "git commit -am done -- locks/a.yml", "git reset HEAD~1 -- claims",
           "git stash push claims", "git restore --staged claims/x.yml", "cd claims && git add .",
           "git update-index --assume-unchanged BRAIN-INDEX.md", "git -C claims add x.yml",
           "find claims -delete", "find . -name '*.yml' -delete", "find signals -exec rm {} +", "chmod 000 claims",
           "chmod -R a-w signals", "chown nobody locks", "git rm -r --cached .", "git rm -rq --cached -- .",
           "find . -fprint claims/x.yml",
           "git update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,claims/x.yml",
           "git update-index --add --cacheinfo=100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,signals/s.yml"]
ALLOWED = ["git add .", "git add -A", "git add src/a.py", "git commit -am 'claims/x.yml fixed'", "git commit -m x",
           "git reset HEAD~1", "git stash", "git stash pop", "git log -- claims", "git diff claims/",
           "find claims -name '*.yml'", "chmod 644 src/a.py", "cat claims/x.yml", "git rm -r --cached src",
           "find src -fprint src/list.txt",
           "git update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,src/a.py"]


@pytest.mark.parametrize("command", REFUSED)
def test_a_command_changing_gits_record_of_a_protocol_file_is_refused(brain: Brain, command: str) -> None:
    for session in sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


@pytest.mark.parametrize("command", ALLOWED)
def test_ones_own_git_and_reads_still_go(brain: Brain, command: str) -> None:
    bound, _unbound = sessions(brain)
    assert brain.decide_write(ShellCommand(command), bound).allowed, command


def test_the_reader_names_without_writing() -> None:
    reading = read_command("git add a b; git rm --cached c; git commit -m m -- d", "/w")
    assert reading.targets == []
    assert [t.path for t in reading.named] == ["/w/a", "/w/b", "/w/c", "/w/d"]


def _repo_with_a_deleted_record(root: Path) -> None:
    """A work tree whose committed `claims/gone.yml` and `src/gone.py` were deleted (git still holds them)."""
    import subprocess

    for rel in ("claims/gone.yml", "src/gone.py"):
        (root / rel).write_text("x\n")
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit",
                                                                "-qm", "c"], ["branch", "feature"]):
        subprocess.run(["git", "-C", str(root), *argv], check=True, capture_output=True)
    for rel in ("claims/gone.yml", "src/gone.py"):
        (root / rel).unlink()


@pytest.mark.parametrize("command", ["git checkout claims/gone.yml", "git checkout HEAD claims/gone.yml",
                                     "git checkout main claims/gone.yml src/gone.py",
                                     "cd claims && git checkout gone.yml"])
def test_git_checkout_of_a_deleted_protocol_file_is_refused(brain: Brain, command: str) -> None:
    _repo_with_a_deleted_record(brain.root)
    assert str(brain.root / "claims" / "gone.yml") in {t.path for t in read_command(command, str(brain.root)).targets}
    for session in sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert not decision.allowed and "protocol" in decision.reason, (command, decision)


@pytest.mark.parametrize(("command", "expected"), [
    ("git checkout src/gone.py", {"src/gone.py"}), ("git checkout feature", set()), ("git checkout -", set()),
    ("git checkout -b topic main", set()), ("git checkout feature src/gone.py", {"src/gone.py"}),
])
def test_git_checkout_of_a_deleted_file_in_scope_goes(brain: Brain, command: str, expected: set[str]) -> None:
    _repo_with_a_deleted_record(brain.root)
    found = {os.path.relpath(t.path, brain.root) for t in read_command(command, str(brain.root)).targets}
    assert found == expected, command
    assert brain.decide_write(ShellCommand(command), sessions(brain)[0]).allowed, command


@pytest.mark.parametrize("command", ["git checkout --pathspec-from-file=list", "git restore --pathspec-from-file list",
                                     "git rm --pathspec-from-file=list", "git add --pathspec-from-file=-",
                                     "git commit -m m --pathspec-from-file list", "git -C src reset "
                                     "--pathspec-from-file=list", "git stash push --pathspec-from-file=list"])
def test_git_paths_read_from_a_file_cannot_be_read(brain: Brain, command: str) -> None:
    """The paths come from a file the line does not show (a protocol file among them would go unseen)."""
    assert "pathspec" in read_command(command, str(brain.root)).partial, command
    for session in sessions(brain):
        assert not brain.decide_write(ShellCommand(command), session).allowed, command
