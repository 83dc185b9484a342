"""Clock skew between machines: what a machine whose clock runs ahead may not decide (SPEC 3).

Two rules, both checked against the reading machine's own clock only, so they
hold in a quiet brain whose newest commit may be hours old (where "ahead of the
newest commit" proves nothing):

- a claim is expired at its deadline (`past_deadline`: SPEC 6.3's "TTL expired"), by every clock alike;
- a STALE mark dated in the reader's future was written by a machine whose clock runs ahead: while the claim is
  within its deadline by the reader's clock, the owner's renew stands — the claim goes back to the status it was
  marked from (`revive`); the owner's close of a claim marked from `open` stands as it always did. A mark more
  than `SKEW_TOLERANCE` (5 minutes) ahead is also shown with the `clock-skew` flag (SPEC 3: `suspect_stale`,
  core/records/clock_skew.py).
"""

from __future__ import annotations

from datetime import datetime

from brain_tui.core.clock import MAX_TTL
from brain_tui.core.records.clock_skew import stale_mark_time
from brain_tui.core.records.model import Claim
from brain_tui.core.records.statuses import LIVE_STATUSES
from brain_tui.core.rules.effective import live_until, stale_origin

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from brain_tui.core.records.changes import ChangeSet



def deadline(claim: Claim) -> datetime | None:
    """When the claim stops being live: its expiry, never later than opened_at + 8 h (None: unknown)."""
    ends = [d for d in (claim.expires_at, claim.opened_at + MAX_TTL if claim.opened_at else None) if d]
    return min(ends) if ends else None


def past_deadline(claim: Claim, now: datetime) -> bool:
    """True when the claim is expired at `now` (its deadline reached, as `effective.live_until` rules): only then
    may a watchdog mark it."""
    end = deadline(claim)
    return end is not None and not live_until(end, now)


def revivable(claim: Claim, now: datetime) -> bool:
    """True when the claim's stale mark is dated after `now` (a clock ahead made it) and the claim is within its
    own deadline at `now`: a claim past it (or with no opening time) is stale by this clock too, whoever marked it,
    and only a human lifts it (SPEC 6.3)."""
    marked = stale_mark_time(claim)
    return marked is not None and marked > now and claim.opened_at is not None and not past_deadline(claim, now)


def revive(cs: ChangeSet, claim: Claim, by: str) -> str | None:
    """Stage: a suspect stale mark is taken back; the claim returns to the status it was marked from.

    That status is `effective.stale_origin`'s: a claim still carrying an undecided gate
    or a pause returns to ``waiting_human`` or ``paused``, whatever ``stale_from`` says.
    None (nothing staged) when the mark is not suspect, the claim is past its own deadline (`revivable`) or that
    status is one the product does not know (the mark stands: a human decides).
    """
    if not revivable(claim, cs.snapshot.now):
        return None
    status = stale_origin(claim, cs.snapshot.now)  # a pending gate or pause is never forgotten
    if status not in LIVE_STATUSES:
        return None  # a status the product does not know: the mark stands, a human decides
    marked = claim.data.get("stale_since")
    cs.derived.add(claim.sess_id)
    cs.update_claim(claim.sess_id, {"status": status, "skew_revived": marked},
                    remove=("stale_since", "stale_from", "stale_reason"))
    cs.add_history(claim.sess_id, "REVIVED", by,
                   f"stale mark dated {marked}, in this machine's future: the marking clock runs ahead")
    return status
