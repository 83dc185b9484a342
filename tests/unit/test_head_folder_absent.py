"""A folder HEAD does not hold is learnt once per commit: a long-lived reader's snapshots start no git process.

A hand-made brain (or one whose ``locks/``, ``signals/`` or ``claims/`` was never committed) used to ask git on
every snapshot: ``git ls-tree`` of HEAD's ``locks/`` (`locks_in_head`) and ``git rev-parse`` of HEAD's folder
(`closed_set._folder_tree`), both failing again each time. The answer "HEAD's commit holds no such folder" is now
kept for that commit, like every other answer about HEAD: a commit that adds the folder is seen by the next read
(the lock, or the claim, HEAD holds stays in force when the work tree deletes it: SPEC 22).

Processes are counted (``subprocess.Popen``), never timed.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.model import BLOCKING_STATUSES
from brain_tui.core.rules.claims import OpenRequest
from tests.bsi import clean_env

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
HAND = ("sess_id: sess-hand\ntype: satellite\ninstance: t@test\nscope: hand/\nstory_angle: s\nstatus: open\n"
        "opened_at: '2026-11-29T08:00:00+00:00'\nttl: \"4h\"\nexpires_at: '2026-11-29T12:00:00+00:00'\n")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, env=clean_env(identity="Test"), capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def _hand_made(root: Path) -> Path:
    """A brain made by hand in a new repository, its first commit holding `.gitignore` alone."""
    for folder in ("claims", "signals", "locks", "breath"):
        (root / folder).mkdir(parents=True)
    (root / ".gitignore").write_text(".brain/\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".gitignore")
    git(root, "commit", "-q", "-m", "hand-made brain")
    return root


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The git commands this process starts from now on (``git`` dropped: the arguments)."""
    found: list[list[str]] = []
    real_init = subprocess.Popen.__init__

    def counting(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        argv = list(args) if isinstance(args, (list, tuple)) else [str(args)]
        if argv and Path(str(argv[0])).name == "git":
            found.append([str(a) for a in argv[1:]])
        real_init(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", counting)
    return found


def _reader(root: Path) -> Brain:
    return Brain(root, clock=lambda: NOW, commit=False, instance="t@test")


def test_snapshots_of_a_brain_without_locks_or_signals_in_head_start_no_git(
        tmp_path: Path, asked: list[list[str]]) -> None:
    """HEAD holds ``claims/`` (a claim opened and committed) but neither ``locks/`` nor ``signals/``: after the
    first read of the commit, full and live-only snapshots start no git process (it was one ``ls-tree`` per full
    snapshot, and a ``rev-parse`` more per live one)."""
    root = _hand_made(tmp_path / "brain")
    writer = Brain(root, clock=lambda: NOW, instance="t@test")
    writer.open_claim(OpenRequest(scope=parse_scope("a/", root), ttl=parse_duration("2h"), instance="t@test",
                                  story="s", slug="a"))
    assert git(root, "ls-tree", "--name-only", "HEAD").split() == [".gitignore", "BRAIN-INDEX.md", "claims"]
    reader = _reader(root)
    reader.snapshot()
    reader.snapshot(only_statuses=BLOCKING_STATUSES)
    asked.clear()
    for _ in range(3):
        assert len(reader.snapshot().claims) == 1
        assert len(reader.snapshot(only_statuses=BLOCKING_STATUSES).claims) == 1
    assert asked == []
    _reader(root).snapshot(only_statuses=BLOCKING_STATUSES)  # a new process's reader: kept in `.brain/` too
    assert asked == []


def test_a_lock_committed_after_the_folder_was_learnt_absent_still_holds(
        tmp_path: Path, asked: list[list[str]]) -> None:
    """The reader learnt that HEAD holds no ``locks/``; a lock is then taken and committed (HEAD moves) and its
    file deleted without a commit: the next snapshot holds HEAD's copy (it would lose the lock were the answer
    kept past its commit)."""
    root = _hand_made(tmp_path / "brain")
    writer = Brain(root, clock=lambda: NOW, instance="t@test")
    sess = writer.open_claim(OpenRequest(scope=parse_scope("a/", root), ttl=parse_duration("2h"),
                                         instance="t@test", story="s", slug="a"))
    reader = _reader(root)
    assert reader.snapshot().locks == ()
    asked.clear()
    assert reader.snapshot().locks == ()
    assert asked == []  # learnt: no git while HEAD stays
    writer.locks.acquire("a/x.md", sess, 60)
    assert git(root, "ls-tree", "--name-only", "HEAD", "locks/")
    (lock_file,) = (root / "locks").iterdir()
    lock_file.unlink()
    assert [lock.file for lock in reader.snapshot().locks] == ["a/x.md"]
    assert [lock.file for lock in _reader(root).snapshot().locks] == ["a/x.md"]


def test_a_claim_committed_after_claims_was_learnt_absent_still_holds(
        tmp_path: Path, asked: list[list[str]]) -> None:
    """The reader learnt that HEAD holds no ``claims/``; a live claim is then committed by hand (HEAD moves) and
    its file deleted without a commit: the next snapshot holds HEAD's copy (the closed set of the new commit is
    built; it would be skipped were the absence kept past its commit)."""
    root = _hand_made(tmp_path / "brain")
    reader = _reader(root)
    assert reader.snapshot().claims == ()
    assert reader.snapshot(only_statuses=BLOCKING_STATUSES).claims == ()
    asked.clear()
    assert reader.snapshot().claims == ()
    assert reader.snapshot(only_statuses=BLOCKING_STATUSES).claims == ()
    assert asked == []  # learnt: no git while HEAD stays
    (root / "claims" / "sess-hand.yml").write_text(HAND, encoding="utf-8")
    git(root, "add", "claims")
    git(root, "commit", "-q", "-m", "a claim made by hand")
    (root / "claims" / "sess-hand.yml").unlink()
    for fresh in (reader, _reader(root)):
        assert [c.sess_id for c in fresh.snapshot().claims] == ["sess-hand"]
        assert [c.sess_id for c in fresh.snapshot(only_statuses=BLOCKING_STATUSES).claims] == ["sess-hand"]
