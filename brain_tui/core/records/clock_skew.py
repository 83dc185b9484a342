"""The ``clock-skew`` flag a read puts on a claim written by a machine whose clock runs ahead (SPEC 3).

A claim opened, or marked stale, more than `SKEW_TOLERANCE` after the reading machine's "now" was written
by a clock ahead: the store, the finished claims it reads and a write's snapshot flag it alike. What a
machine ahead may not decide, and the owner's renew of a suspect mark, are rules (core/rules/skew.py).
"""

from __future__ import annotations

from datetime import UTC, datetime

from brain_tui.core.clock import SKEW_TOLERANCE, try_parse_timestamp
from brain_tui.core.record import replace
from brain_tui.core.records.model import Claim
from brain_tui.core.records.statuses import Status


def stale_mark_time(claim: Claim) -> datetime | None:
    """When the claim was marked stale (`stale_since`), or None."""
    if claim.status != Status.STALE:
        return None
    tz = claim.opened_at.tzinfo if claim.opened_at is not None and claim.opened_at.tzinfo else UTC
    return try_parse_timestamp(claim.data.get("stale_since"), tz)


def suspect_stale(claim: Claim, now: datetime) -> bool:
    """True when the claim's STALE mark is dated more than the skew limit after `now` (a clock ahead)."""
    marked = stale_mark_time(claim)
    return marked is not None and marked > now + SKEW_TOLERANCE


def skew_flagged(item: Claim, now: datetime) -> Claim:
    """The claim with the ``clock-skew`` flag when it opened, or was marked stale, beyond the skew limit after `now`."""
    if (item.opened_at is not None and item.opened_at > now + SKEW_TOLERANCE) or suspect_stale(item, now):
        return replace(item, flags=(*item.flags, "clock-skew"))
    return item
