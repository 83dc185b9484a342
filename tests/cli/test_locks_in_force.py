"""A lock is in force as committed (SPEC 22): a work-tree edit of a lock file that git holds frees nothing.

Deleting `locks/<file>.yml` by hand, or rewriting its holder or expiry, without a commit leaves the lock
HEAD holds in force for `preflight check`, `lock check` and `lock acquire`; the holder's release still
removes it from git.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.cli import lock_brain
from tests.cli.lock_brain import FILE, A, B, assert_still_held, bsi, git

base_brain, brain = lock_brain.base_brain, lock_brain.brain  # the fixtures, by their names


def lock_path(brain: Path) -> Path:
    return brain / "locks" / (quote(FILE, safe="") + ".yml")


def test_a_lock_file_deleted_without_a_commit_still_holds(brain: Path) -> None:
    lock_path(brain).unlink()
    assert_still_held(brain)


@pytest.mark.parametrize("edit", [
    ("holder: " + A, "holder: " + B),
    ("expires_at: '2026-11-29T11:00:00+00:00'", "expires_at: '2026-11-29T09:00:00+00:00'"),
])
def test_a_lock_file_rewritten_without_a_commit_still_holds(brain: Path, edit: tuple[str, str]) -> None:
    path = lock_path(brain)
    text = path.read_text(encoding="utf-8")
    assert edit[0] in text, text
    path.write_text(text.replace(edit[0], edit[1]), encoding="utf-8")
    assert_still_held(brain)


def test_the_holder_releases_a_lock_deleted_by_hand_and_git_lets_it_go(brain: Path) -> None:
    lock_path(brain).unlink()
    proc = bsi(brain, "lock", "release", FILE, A)
    assert proc.code == 0, proc.err
    assert quote(FILE, safe="") not in git(brain, "ls-tree", "--name-only", "HEAD", "locks/")
    assert bsi(brain, "preflight", "check", B, FILE).code == 0
    proc = bsi(brain, "lock", "acquire", FILE, B)
    assert proc.code == 0, proc.err


def test_a_lock_released_without_a_commit_holds_until_committed(brain: Path) -> None:
    proc = bsi(brain, "--no-commit", "lock", "release", FILE, A)
    assert proc.code == 0, proc.err
    assert not lock_path(brain).exists()
    assert_still_held(brain)


def test_a_copy_git_cannot_give_back_still_holds_the_file(brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HEAD's copy that git fails to hand over (a broken pack, a killed git) is a corrupt row: it may hold the lock,
    so it holds the file until repaired, rather than vanish with the work tree's copy."""
    from brain_tui.core.records import locks_in_head
    from brain_tui.core.records.model import CorruptFile

    lock_path(brain).unlink()
    monkeypatch.setattr(locks_in_head, "read_blobs", lambda root, oids: None)
    held = locks_in_head.held_in_head(brain, UTC, persist=False)
    assert [type(row) for row in held] == [CorruptFile], held
    assert held[0].path == "locks/" + lock_path(brain).name
    from brain_tui.core.brain import Brain
    from brain_tui.core.errors import BsiError

    with pytest.raises(BsiError) as refused:
        Brain(brain, clock=lambda: datetime(2026, 11, 29, 10, tzinfo=UTC)).preflight(B, FILE)
    assert refused.value.exit_code == 2, refused.value
