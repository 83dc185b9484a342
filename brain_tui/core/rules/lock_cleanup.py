"""`bsi lock cleanup` (SPEC 9): delete the lock files that hold nothing any more, in one commit."""

from __future__ import annotations

from brain_tui.core.rules.locks import LockInfo, is_expired, lock_info

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from brain_tui.core.records.changes import ChangeSet


def stage_cleanup(cs: ChangeSet) -> list[LockInfo]:
    """Delete every expired lock file and return the removed locks (corrupt lock files are left alone)."""
    removed = [lock for lock in cs.snapshot.locks if is_expired(lock, cs.snapshot.now)]
    for lock in removed:
        cs.delete(lock.path)
    cs.message = "bsi: lock cleanup"
    return [lock_info(lock, cs.snapshot) for lock in removed]
