"""`bsi lock cleanup` (SPEC 9): delete the lock files that hold nothing any more, in one commit.

A lock holds nothing once it has expired, or once its holder's claim has ended (closed, failed, released: a
terminal claim never writes again, SPEC 6.3), as git holds that claim (SPEC 22, `locks.holder_ended`). A holder that
may still write (open, waiting_human, paused, stale) keeps its unexpired lock, and so does one whose claim does not
read or is unknown: what cannot be read fails closed. Corrupt lock files are left alone.
"""

from __future__ import annotations

from brain_tui.core.rules.locks import LockInfo, holds, lock_info

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from brain_tui.core.records.changes import ChangeSet


def stage_cleanup(cs: ChangeSet) -> list[LockInfo]:
    """Delete every lock file that holds nothing (`locks.holds`: expired, or its holder's claim ended); the removed
    locks (`expired` tells the two apart)."""
    snapshot = cs.snapshot
    removed = [lock for lock in snapshot.locks if not holds(snapshot, lock)]
    for lock in removed:
        cs.delete(lock.path)
    cs.message = "bsi: lock cleanup"
    return [lock_info(lock, snapshot) for lock in removed]
