"""`bsi lock cleanup` removes the locks that hold nothing: expired ones, and those whose holder's claim has ended
(closed, failed, released) as git holds it (SPEC 9, 22); a holder that may still write, or that cannot be read,
keeps its unexpired lock (fail closed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import lock_brain
from tests.cli.lock_brain import FILE, A, B, assert_still_held, bsi, git

base_brain, brain = lock_brain.base_brain, lock_brain.brain  # the fixtures, by their names

LOCK = "locks/bravo%2Fx.md.yml"


def cleanup(brain: Path, now: str | None = None) -> list[dict]:
    """Run `bsi --json lock cleanup`; the lock objects it removed."""
    proc = bsi(brain, "--json", "lock", "cleanup", **({"now": now} if now else {}))
    assert proc.code == 0, proc.err
    return json.loads(proc.out)["removed"]


def rewrite_lock(brain: Path, key: str, value: str) -> None:
    """Set one field of alfa's lock file and commit it (a lock in force is a committed one)."""
    path = brain / LOCK
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(f"{key}: {value}" if line.startswith(f"{key}:") else line for line in lines) + "\n",
                    encoding="utf-8")
    git(brain, "commit", "-qam", f"lock {key} by hand")


@pytest.mark.parametrize("end", [
    ("claim", "close", A, "--status", "ok"),
    ("claim", "close", A, "--status", "failed"),
    ("gate", "abort", A, "stopped by hand"),
])
def test_cleanup_removes_the_unexpired_lock_of_an_ended_claim(brain: Path, end: tuple[str, ...]) -> None:
    assert bsi(brain, *end).code == 0
    removed = cleanup(brain)
    assert [(d["file"], d["holder"], d["expired"]) for d in removed] == [(FILE, A, False)]
    assert not (brain / LOCK).exists()
    assert git(brain, "log", "-1", "--format=%s").strip() == "bsi: lock cleanup"
    assert git(brain, "show", "--name-only", "--format=", "HEAD").split() == [LOCK]


def test_cleanup_removes_a_released_claims_lock(brain: Path) -> None:
    later = "2026-11-29T18:30:00Z"  # alfa past 8 h, stale; its lock made to reach past that, then a human releases
    rewrite_lock(brain, "expires_at", "'2026-11-29T20:00:00Z'")
    assert bsi(brain, "claim", "release", A, "--reason", "gone", now=later).code == 0
    assert [d["holder"] for d in cleanup(brain, later)] == [A]
    assert not (brain / LOCK).exists()


def test_expired_and_ended_locks_go_in_one_commit(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "bravo/y.md", B, "10").code == 0
    assert bsi(brain, "claim", "close", A, "--status", "ok").code == 0
    head = git(brain, "rev-parse", "HEAD").strip()
    proc = bsi(brain, "lock", "cleanup", now="2026-11-29T10:30:00Z")
    assert proc.code == 0, proc.err
    assert "2 locks removed" in proc.out and "1 expired" in proc.out and "1 of an ended claim" in proc.out, proc.out
    assert git(brain, "rev-parse", "HEAD~1").strip() == head
    assert sorted(p.name for p in (brain / "locks").iterdir()) == [".gitkeep"]


@pytest.mark.parametrize("hold", [
    (),  # open
    ("gate", "request", A, "deploy?"),  # waiting_human
    ("gate", "pause", A),  # paused
])
def test_cleanup_keeps_the_lock_of_a_holder_that_may_still_write(brain: Path, hold: tuple[str, ...]) -> None:
    if hold:
        assert bsi(brain, *hold).code == 0
    assert cleanup(brain) == []
    assert (brain / LOCK).exists()


def test_cleanup_keeps_the_lock_of_a_stale_holder(brain: Path) -> None:
    rewrite_lock(brain, "expires_at", "'2026-11-29T20:00:00Z'")
    assert cleanup(brain, "2026-11-29T18:30:00Z") == []  # alfa past its 8 h: stale, not ended
    assert (brain / LOCK).exists()


def test_cleanup_keeps_the_lock_of_an_unknown_holder(brain: Path) -> None:
    rewrite_lock(brain, "holder", "sess-20261129-1000-zulu")
    assert cleanup(brain) == []
    assert (brain / LOCK).exists()


def test_cleanup_keeps_the_lock_of_a_holder_that_does_not_read(brain: Path) -> None:
    (brain / "claims" / f"{A}.yml").write_text("status: closed\n: [unclosed\n", encoding="utf-8")
    git(brain, "commit", "-qam", "a broken claim")
    assert cleanup(brain) == []
    assert (brain / LOCK).exists()


def test_an_uncommitted_close_of_the_holder_keeps_its_lock(brain: Path) -> None:
    assert bsi(brain, "--no-commit", "claim", "close", A, "--status", "ok").code == 0
    assert cleanup(brain) == []
    assert_still_held(brain)
