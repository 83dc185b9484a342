"""The watchdog: expired claims become stale, never released (SPEC 7); old delivered signals are archived."""

from __future__ import annotations

from typing import ClassVar

from brain_tui.core.errors import InvalidData
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.limits import add_history
from brain_tui.core.record import record
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import Status
from brain_tui.core.rules import skew
from brain_tui.core.rules.effective import MAX_AGE_REASON, NO_OPENING_REASON, STALE_REASON, expiry_reason
from brain_tui.core.rules.signals import archive_signals

__all__ = ["MAX_AGE_REASON", "STALE_REASON", "WatchdogReport", "expired", "marks", "watchdog"]

def expired(claim: Claim, snapshot: BrainSnapshot) -> str | None:
    """Why a non-terminal claim is now stale, or None (see `expiry_reason`)."""
    return expiry_reason(claim, snapshot.now)

def marks(claim: Claim, snapshot: BrainSnapshot) -> str | None:
    """Why the watchdog marks `claim` stale at `snapshot`'s time, or None: expired (`expired`), at its deadline or
    past it (`skew.past_deadline`; a clock ahead marks early, and the owner's renew takes that mark back)."""
    reason = expired(claim, snapshot)
    if reason is None or (reason != NO_OPENING_REASON and not skew.past_deadline(claim, snapshot.now)):
        return None
    return reason

@record
class WatchdogReport(JsonShaped):
    """What one watchdog run found and did.

    Attributes:
        active: claims still open, waiting or paused after the run.
        stale: claims stale after the run.
        marked: claims this run marked stale.
        archived: signals this run archived.
        unwritable: expired claims whose file could not take the change (left as they are;
            stale for every decision all the same).
    """

    active: int
    stale: int
    marked: tuple[str, ...]
    archived: tuple[str, ...]
    unwritable: tuple[str, ...] = ()

    #: SPEC 19 gives `{"active", "stale", "marked"}`: the others only when they hold something
    _json_if_set: ClassVar[frozenset[str]] = frozenset({"archived", "unwritable"})

    def summary(self) -> str:
        """The one-line report of `bsi watchdog`, in SPEC 19's words."""
        return f"{self.active} claims actifs, {self.stale} stale détectés"

def watchdog(cs: ChangeSet) -> WatchdogReport:
    """Mark every expired claim stale (never releases anything); archive signals delivered 24 h ago (SPEC 7).

    A claim whose file cannot take the change (it would pass 64 KiB, or does not
    parse for editing) is left as it is and reported (`unwritable`): it is stale for every
    decision anyway (`effective_status`), and it never stops the others.
    """
    marked: list[str] = []
    unwritable: list[str] = []
    for claim in cs.snapshot.claims:
        reason = marks(claim, cs.snapshot)
        if reason is None:
            continue
        fields = {"status": Status.STALE, "stale_since": cs.ts(), "stale_from": claim.status, "stale_reason": reason}
        trial = ChangeSet(cs.snapshot)
        try:
            trial.update_claim(claim.sess_id, fields)
            trial.add_history(claim.sess_id, "STALE", "watchdog", reason)
            trial.render()
        except InvalidData:
            unwritable.append(claim.sess_id)
            continue
        cs.update_claim(claim.sess_id, fields)
        add_history(cs, claim.sess_id, "STALE", "watchdog", reason)
        marked.append(claim.sess_id)
    active = sum(1 for c in cs.snapshot.claims if not c.is_terminal and c.status != Status.STALE) - len(marked)
    stale = sum(1 for c in cs.snapshot.claims if c.status == Status.STALE) + len(marked)
    archived = archive_signals(cs)
    if marked:
        cs.message = f"bsi: mark stale {' '.join(marked)}"
    elif not archived:
        cs.message = "bsi: watchdog"
    return WatchdogReport(active, stale, tuple(marked), tuple(archived), tuple(unwritable))
