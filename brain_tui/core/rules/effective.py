"""The effective status of a claim: what every decision uses (SPEC 6.4).

A live claim past its expiry, past 8 h since opening, or with no readable opening
time is stale for every rule, even before the watchdog writes it down. A stale
claim remembers what it was stale from, and a pending gate or pause is never
forgotten. Delegation (SPEC 5.3) goes only through ancestors that are
effectively open.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from brain_tui.core.clock import MAX_TTL, try_parse_timestamp
from brain_tui.core.errors import InvalidData, NotFound
from brain_tui.core.ids import valid_session_id
from brain_tui.core.records.formats import held_status, normalize_status
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import KNOWN_STATUSES, LIVE_STATUSES, Status

STALE_REASON = "TTL expired without close"
MAX_AGE_REASON = "8 h since opening without close"
NO_OPENING_REASON = "no readable opening time"


def expiry_reason(claim: Claim, now: datetime) -> str | None:
    """Why a non-terminal, non-stale claim is expired at `now` (TTL, 8 h, or no opening time), or None."""
    if claim.is_terminal or claim.status == Status.STALE:
        return None
    if claim.opened_at is None:
        return NO_OPENING_REASON
    if claim.expires_at is not None and not live_until(claim.expires_at, now):
        # SPEC 6.3 names one reason for an expired TTL, however long ago it ran out; the 8 h cap is the
        # reason only for a claim whose written expiry lies past it (written by another tool or by hand).
        cap = claim.opened_at + MAX_TTL
        return MAX_AGE_REASON if claim.expires_at >= cap and _written_past_cap(claim, cap) else STALE_REASON
    if not live_until(claim.opened_at + MAX_TTL, now):
        return MAX_AGE_REASON
    return None


def live_until(deadline: datetime, now: datetime) -> bool:
    """Whether a claim whose deadline (its expiry, or 8 h after its opening) is `deadline` is still live at `now`:
    expired at its deadline (SPEC 6.3: "TTL expired" → stale; what the watchdog marks is what is expired). A clock
    ahead marks early; the owner's renew takes such a mark back (`rules.skew`)."""
    return now < deadline


def _written_past_cap(claim: Claim, cap: datetime) -> bool:
    """True when the claim file's own `expires_at` is later than opening + 8 h (the model keeps the capped one)."""
    written = try_parse_timestamp(claim.data.get("expires_at"), cap.tzinfo or UTC)
    return written is not None and written > cap


def renew_can_extend(claim: Claim, now: datetime) -> bool:
    """True when `bsi claim renew` would push the claim's deadline later (SPEC 6.3).

    Not once it is effectively stale (renew is refused), nor when its deadline
    already is opening + 8 h, the cap no renewal passes.
    """
    if effective_status(claim, now) not in LIVE_STATUSES:
        return False
    return claim.opened_at is None or claim.expires_at is None or claim.expires_at < claim.opened_at + MAX_TTL


def past_age_cap(claim: Claim, now: datetime) -> bool:
    """True when the claim's 8 h since opening are over (or its deadline is that cap): no renewal helps it."""
    if claim.opened_at is None:
        return False
    cap = claim.opened_at + MAX_TTL
    return now >= cap or (claim.expires_at is not None and claim.expires_at >= cap)


def effective_status(claim: Claim, now: datetime) -> Status | str:
    """The status every decision uses: a live claim past its expiry (or 8 h, or with no opening time) is stale.

    The watchdog only writes down what this already says.
    """
    if expiry_reason(claim, now) is not None:
        return Status.STALE
    return claim.status


def stale_origin(claim: Claim, now: datetime) -> Status | str | None:
    """For a claim that is (effectively) stale, what it was stale from: ``open``, ``waiting_human``, ``paused``.

    A pending gate or pause is never forgotten: a claim still carrying ``gate_origin``
    (a gate not yet decided) or ``paused_by``, or whose history still holds one (`held_status`), counts as
    stale from that, whatever ``stale_from`` says; an unknown status counts as itself. None when not stale.
    """
    if effective_status(claim, now) != Status.STALE:
        return None
    data = claim.data
    if claim.status != Status.STALE:
        return claim.status
    if data.get("paused_by"):
        return Status.PAUSED
    if data.get("gate_origin"):
        return Status.WAITING_HUMAN
    # `stale_from` is read as `status:` is (`held_status`): a hold no human lifted is still written in the file
    return held_status(data, remembered_status(data.get("stale_from")) or Status.OPEN)


def remembered_status(raw: object) -> Status | str | None:
    """A status a claim remembers (``stale_from``, ``paused_from``) as the rules read it, or None when absent.

    Read like ``status:`` itself, and more leniently: case, surrounding spaces, and
    ``-`` or a space for ``_`` do not matter (``WAITING_HUMAN``, ``waiting-human`` and
    ``Waiting Human`` are all ``waiting_human``), so no spelling of a pending gate
    reads as something else. An unknown value is kept as written.
    """
    text = "" if raw is None else str(raw).strip()
    if not text:
        return None
    folded = normalize_status("_".join(text.replace("-", " ").split()))
    return folded if folded in KNOWN_STATUSES else text


def restored_status(claim: Claim) -> Status | str:
    """What lifting a pause gives back (SPEC 6.3: a pending gate is never lost).

    ``waiting_human`` while a gate is still undecided (``gate_origin`` set), whatever
    ``paused_from`` says; else ``paused_from`` read by `remembered_status`; ``open``
    when the claim remembers nothing; and ``waiting_human`` for a previous status the
    product does not know (a human then decides, rather than the claim going open).
    """
    if claim.gate_origin:
        return Status.WAITING_HUMAN
    previous = remembered_status(claim.data.get("paused_from"))
    return Status.OPEN if previous in (None, Status.OPEN) else Status.WAITING_HUMAN


def time_left(claim: Claim, now: datetime) -> timedelta | None:
    """How long a live claim has before it goes stale (negative once past); None when terminal or unknown.

    The cockpit shows it on every gate and paused row (issue 13): a gate waits
    inside its claim's TTL, within opened_at + 8 h.
    """
    if claim.is_terminal or claim.expires_at is None:
        return None
    deadline = claim.expires_at
    if claim.opened_at is not None:
        deadline = min(deadline, claim.opened_at + MAX_TTL)
    return deadline - now


def delegating_chain(snapshot: BrainSnapshot, parent: str | None) -> list[str]:
    """`parent` and its ancestors, nearest first, as long as each is effectively ``open`` (SPEC 5.3).

    Delegation goes only through an open ancestor: the chain stops at the first one
    that is stale (or expired), waiting, paused, terminal or unknown.
    """
    chain: list[str] = []
    current = snapshot.claim(parent) if parent else None
    seen: set[str] = set()
    while current is not None and current.sess_id not in seen:
        if effective_status(current, snapshot.now) != Status.OPEN:
            break
        seen.add(current.sess_id)
        chain.append(current.sess_id)
        current = snapshot.claim(current.parent) if current.parent else None
    return chain


def paused_ancestor(snapshot: BrainSnapshot, claim: Claim) -> Claim | None:
    """The nearest ancestor that is paused (or stale from paused), or None: its tree is on hold."""
    for ancestor in snapshot.ancestors(claim.sess_id):
        if Status.PAUSED in (effective_status(ancestor, snapshot.now), stale_origin(ancestor, snapshot.now)):
            return ancestor
    return None


def unreadable_ancestor(snapshot: BrainSnapshot, claim: Claim) -> str | None:
    """The ancestor ID where `claim`'s parent chain meets a claim file that does not read (corrupt), or None.

    Above a corrupt link nothing is known: that claim, or one of its ancestors, may be
    paused or failed. A hold that cannot be read is still a hold, so every rule that lets
    a tree work only when no ancestor holds it treats such a chain as held.
    """
    chain = snapshot.ancestors(claim.sess_id)
    parent = (chain[-1] if chain else claim).parent
    if not parent or snapshot.claim(parent) is not None:
        return None
    unreadable = {f"claims/{parent}.yml", f"claims/{parent}.yaml"}
    return parent if any(bad.path in unreadable for bad in snapshot.corrupt) else None


def require_may_work(snapshot: BrainSnapshot, claim: Claim, verb: str) -> None:
    """Raise TransitionRefused (exit 12, "cannot `verb` ID: …") unless `claim` may work now: effectively ``open`` at
    the later of the brain's and the machine's clock (`authority.judged`: an agent's clock behind keeps no expired
    claim open), under no paused or failed ancestor and no ancestor that does not read (SPEC 10, code 4). The one
    rule of a lock taken and a launch: what preflight would refuse, neither gets."""
    from brain_tui.core.errors import TransitionRefused
    from brain_tui.core.rules.authority import judged

    snapshot = judged(snapshot)
    current = effective_status(claim, snapshot.now)
    if current != Status.OPEN:
        from brain_tui.core.rules.claims import refuse_transition  # the claim rules load only to refuse

        raise refuse_transition(claim, verb, ["open"], current)
    held = paused_ancestor(snapshot, claim)
    if held is not None:
        raise TransitionRefused(f"cannot {verb} {claim.sess_id}: its ancestor {held.sess_id} is paused; a human "
                                f"resumes it first (`bsi gate resume {held.paused_by or held.sess_id}`)")
    failed = next((a for a in snapshot.ancestors(claim.sess_id) if a.status == Status.FAILED), None)
    if failed is not None:
        raise TransitionRefused(f"cannot {verb} {claim.sess_id}: its ancestor {failed.sess_id} failed; its work "
                                "stops (signal BLOCKED_ON the pilot)")
    broken = unreadable_ancestor(snapshot, claim)
    if broken is not None:
        raise TransitionRefused(f"cannot {verb} {claim.sess_id}: its ancestor {broken} cannot be read "
                                f"(claims/{broken}.yml is corrupt), so whether its tree is held is unknown")


def is_held_pause(claim: Claim, now: datetime) -> bool:
    """Paused, or stale while paused (an expired pause a human may still lift)."""
    current = effective_status(claim, now)
    return current == Status.PAUSED or (current == Status.STALE and stale_origin(claim, now) == Status.PAUSED)


def is_held(claim: Claim, now: datetime) -> bool:
    """Paused or waiting at a gate, also stale while so: a hold only a human lifts (SPEC 6.3, 21.2)."""
    held = (Status.PAUSED, Status.WAITING_HUMAN)
    current = effective_status(claim, now)
    return current in held or (current == Status.STALE and stale_origin(claim, now) in held)


def require_claim(snapshot: BrainSnapshot, sess_id: str) -> Claim:
    """The claim with this ID.

    Raises:
        InvalidData: the ID is not a session ID (65).
        NotFound: no such claim (66); or the file is corrupt (65).
    """
    if not valid_session_id(sess_id):
        raise InvalidData(f"invalid session ID {sess_id!r}: expected sess-…")
    claim = snapshot.claim(sess_id)
    if claim is None:
        for bad in snapshot.corrupt:
            if bad.path in (f"claims/{sess_id}.yml", f"claims/{sess_id}.yaml"):
                raise InvalidData(f"claim {sess_id} is corrupt: {bad.path} line {bad.line}: {bad.reason}")
        raise NotFound(f"claim {sess_id} not found")
    return claim
