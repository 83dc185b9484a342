"""What a human saw of a claim: a decision made on an older view of it is refused (SPEC 6.3, exit 12).

A front-end shows a claim, the human reads it, then confirms; meanwhile another terminal, another
pilot or the session itself may have changed the claim on disk (a gate approved and a new one
raised, a pause lifted and laid again by someone else, a gate raised on a claim being aborted). The
human's verb then names the claim by ID only, and the new state may allow the same verb — so a
human would approve a gate, or lift a pause, they never saw.

The front-end passes the claim's `claim_mark` as it showed it; the core compares it with the claim
it is about to change, under the write lock (`check_seen`). Every transition appends to
``gate_history`` (SPEC 6.3), so the status and the number of history events change with every
decision. What only writes down what the clock already said does not count: a renewal (``expires_at``
only), the watchdog's STALE mark and a skew REVIVED mark — so an agent renewing its claim, or a
watchdog run, never voids a human's review of it.
"""

from __future__ import annotations

from collections.abc import Iterable

from brain_tui.core.errors import TransitionRefused
from brain_tui.core.records.model import Claim
from brain_tui.core.records.statuses import Status

#: History events that write down what the clock already said, not a decision: they leave the mark as it was.
CLOCK_EVENTS = frozenset({"STALE", "REVIVED"})


class ChangedMeanwhile(TransitionRefused):
    """The claim changed between what the human was shown and the decision (exit 12): look again."""


def claim_mark(claim: Claim) -> str:
    """The mark of the claim as shown, ``status/events``: an opaque string a later `check_seen` compares.

    A written ``stale`` counts as the status it was marked from, and the clock's own events
    (`CLOCK_EVENTS`) are not counted, so the watchdog marking what was already expired changes nothing.
    """
    status = str(claim.status)
    if claim.status == Status.STALE:
        status = str(claim.data.get("stale_from") or status)
    events = sum(1 for event in claim.gate_history if event.event not in CLOCK_EVENTS)
    return f"{status}/{events}"


def check_seen(claim: Claim, seen: str | None) -> None:
    """Refuse a human's decision made on a view of `claim` other than the one about to change.

    `seen` is the `claim_mark` the human was shown (None: the caller showed nothing, the CLI); marks that
    differ raise ChangedMeanwhile, saying what the claim is now.
    """
    if seen is None or seen == claim_mark(claim):
        return
    history = claim.gate_history
    last = history[-1] if history else None
    what = ""
    if last is not None:
        what = f"; last: {last.event} by {last.by}" + (f" “{last.message}”" if last.message else "")
    raise ChangedMeanwhile(
        f"{claim.sess_id} changed since it was shown: it is now {claim.status}{what}; nothing was done, "
        "look at it again before deciding"
    )


def check_cascade(sess_id: str, touched: Iterable[str], shown: Iterable[str] | None) -> None:
    """Refuse a cascade that would take claims the human was not shown (a satellite opened under the tree since).

    `touched`: the descendants the cascade is about to change; `shown`: those the front-end listed (None: it listed
    none, the CLI). A listed claim that ended meanwhile is no reason to refuse: the cascade only does less.
    """
    if shown is None:
        return
    added = sorted(set(touched) - set(shown))
    if added:
        raise ChangedMeanwhile(
            f"{sess_id}'s tree changed since it was shown: it would now also take {', '.join(added)}; "
            "nothing was done, look at it again before deciding"
        )
