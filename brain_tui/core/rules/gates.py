"""Human gates, pause/resume and abort, with their cascades over the satellite tree (SPEC 6.3)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import ClassVar

from brain_tui.core.clock import MAX_TTL, claim_ttl
from brain_tui.core.errors import InvalidData, TransitionRefused
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.limits import GATE_ROOM_BYTES, add_history, check_text
from brain_tui.core.record import record, replace
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import ABORTABLE, PAUSABLE, GateOrigin, Status
from brain_tui.core.rules.claims import deliver_gate_signals, refuse_transition, require_claim, who_must_act
from brain_tui.core.rules.effective import (
    effective_status,
    is_held_pause,
    paused_ancestor,
    restored_status,
    stale_origin,
    time_left,
)
from brain_tui.core.rules.triggers import summary


@record
class GateOutcome(JsonShaped):
    """What a gate request, approve or reject did.

    Attributes:
        sess_id: the claim.
        action: ``request``, ``approve`` or ``reject``.
        status: the claim's status after the action.
        signal_id: the HUMAN_GATE signal a request sent (None for a duplicate, and for other actions).
        expires_at: the new expiry when approving an expired gate renewed the claim (None otherwise).
        tree: the ``approved_tree`` an approval recorded (None otherwise, or outside git).
    """

    sess_id: str
    action: str
    status: str
    signal_id: str | None = None
    expires_at: str | None = None
    tree: str | None = None

    _json_names: ClassVar[Mapping[str, str]] = {"tree": "approved_tree"}
    _json_if_set: ClassVar[frozenset[str]] = frozenset({"signal_id", "expires_at", "tree"})

@record
class Cascade(JsonShaped):
    """What a pause, resume or abort did to a claim and its subtree.

    Attributes:
        sess_id: the claim acted on.
        action: ``pause``, ``resume`` or ``abort``.
        status: the claim's status after the action.
        touched: the descendants the cascade changed, in tree order.
    """

    sess_id: str
    action: str
    status: str
    touched: tuple[str, ...] = ()

    _json_names: ClassVar[Mapping[str, str]] = {"touched": "cascade"}

def _pending_gate(cs: ChangeSet, claim: Claim, action: str) -> bool:
    """Whether `claim` has a gate a human may decide; True when it expired meanwhile (it is stale).

    Raises:
        TransitionRefused: no pending gate (12).
    """
    now = cs.snapshot.now
    current = effective_status(claim, now)
    if current == Status.WAITING_HUMAN:
        return False
    origin = stale_origin(claim, now) if current == Status.STALE else None
    if origin == Status.WAITING_HUMAN:
        return True
    if origin is not None:  # stale from open or paused: "it is stale (allowed from … stale …)" read as a riddle
        raise TransitionRefused(f"cannot {action} {claim.sess_id}: it is stale from {origin}, with no gate to "
                                f"decide; {who_must_act(claim, origin)}")
    raise refuse_transition(claim, action, [Status.WAITING_HUMAN, "stale (from waiting_human)"], current)


def _tell_parent(cs: ChangeSet, claim: Claim, by: str, text: str) -> None:
    """A human decided about `claim`: its parent session learns it as INFO (nothing blocks).

    Never BLOCKED_ON: that means "a human is needed", and the human is the one who acted
    (a human's own decision never notifies that human).
    """
    if claim.parent:
        cs.add_signal(f"human:{by}", claim.parent, "INFO", text, claim.scope_text)


def gate_request(cs: ChangeSet, sess_id: str, message: str) -> GateOutcome:
    """A session stops at a human gate: open → waiting_human, HUMAN_GATE to the pilot.

    In an agent's process the claim is judged at the machine's clock when the brain's runs behind it: a claim that
    ran out is stale, and the pilot is not asked to decide on it.
    """
    from brain_tui.core.rules.authority import judged

    claim = require_claim(cs.snapshot, sess_id)
    check_text("message", message)
    current = effective_status(claim, judged(cs.snapshot).now)
    if current != Status.OPEN:
        raise refuse_transition(claim, "request a gate on", [Status.OPEN], current)
    try:
        size = (cs.root / claim.path).stat().st_size
    except OSError:
        size = 0
    if size > GATE_ROOM_BYTES:
        raise InvalidData(f"cannot request a gate on {sess_id}: its file is {size // 1024} KiB; "
                          "close it and open a new claim")
    cs.update_claim(sess_id, {"status": Status.WAITING_HUMAN, "gate_origin": GateOrigin.REQUEST,
                              "gate_message": message})
    add_history(cs, sess_id, "HUMAN_GATE", sess_id, message)
    pilot = cs.snapshot.resolve_destination(claim, "pilote")
    cs.message = f"bsi: gate HUMAN_GATE {sess_id}"
    sig = cs.add_signal(sess_id, pilot, "HUMAN_GATE", message or f"gate requested by {sess_id}", claim.scope_text)
    return GateOutcome(sess_id, "request", Status.WAITING_HUMAN, sig)

def approval_expiry(snapshot: BrainSnapshot, claim: Claim) -> datetime | None:
    """The expiry an approval gives an expired requested gate: its TTL again from now, never past opening + 8 h.

    None when the 8 h limit leaves no time: the approval then leaves the claim stale (from ``open``).
    """
    expiry = snapshot.now + claim_ttl(claim.data.get("ttl"), snapshot.default_ttl)
    if claim.opened_at is not None:
        expiry = min(expiry, claim.opened_at + MAX_TTL)
    return expiry if expiry > snapshot.now else None


def gate_approve(cs: ChangeSet, sess_id: str, by: str, message: str = "", tree: str | None = None) -> GateOutcome:
    """A human approves: waiting_human → open, or closed when the gate came from a close trigger.

    An expired gate (past its expiry, or stale from waiting_human, marked or not) can still
    be approved by a human: a close gate closes; a requested gate is renewed with the approval (its TTL
    from now, `approval_expiry`) so the satellite gets a claim it can write with. Past
    opening + 8 h no renewal is possible: the claim stays stale from ``open`` (its owner
    may close it late, a human may release it).

    `tree` (the scope's git tree hash at decision time, `core.gate_review`) is recorded as ``approved_tree``.
    """
    claim = require_claim(cs.snapshot, sess_id)
    check_text("message", message)
    left = time_left(claim, cs.snapshot.now)
    # Expired: stale (marked or not), or past its expiry within the clock-skew tolerance (preflight refuses it).
    expired = _pending_gate(cs, claim, "approve") or (left is not None and left <= timedelta(0))
    renewed: str | None = None
    if claim.gate_origin == GateOrigin.CLOSE:
        cs.update_claim(sess_id, {"status": Status.CLOSED, "closed_at": cs.ts()}, remove=("gate_origin",))
        new_status = Status.CLOSED
    elif expired:
        expiry = approval_expiry(cs.snapshot, claim)
        if expiry is not None:
            renewed = cs.ts(expiry)
            cs.update_claim(sess_id, {"status": Status.OPEN, "expires_at": renewed},
                            remove=("gate_origin", "stale_since", "stale_from", "stale_reason"))
            new_status = Status.OPEN
        else:
            fields = {"stale_from": Status.OPEN} if claim.status == Status.STALE else {"status": Status.OPEN}
            cs.update_claim(sess_id, fields, remove=("gate_origin",))
            # At opening + 8 h or past it: stale for every decision whatever is written (SPEC 6.3, 6.4).
            written = claim if claim.status == Status.STALE else replace(claim, status=Status.OPEN)
            new_status = Status(effective_status(written, cs.snapshot.now))
    else:
        cs.update_claim(sess_id, {"status": Status.OPEN}, remove=("gate_origin",))
        new_status = Status.OPEN
    if tree:
        cs.update_claim(sess_id, {"approved_tree": tree})
    add_history(cs, sess_id, "APPROVED", by, message)
    if claim.gate_origin == GateOrigin.CLOSE:
        result = claim.result.data if claim.result is not None else {}
        if claim.parent:
            cs.add_signal(sess_id, claim.parent, "CHECKPOINT", summary(claim, dict(result)), claim.scope_text)
    deliver_gate_signals(cs, sess_id, by)
    cs.message = f"bsi: gate APPROVED {sess_id}"
    return GateOutcome(sess_id, "approve", new_status, expires_at=renewed, tree=tree)

def gate_reject(cs: ChangeSet, sess_id: str, by: str, reason: str) -> GateOutcome:
    """A human rejects (reason required): waiting_human (or an expired gate) → failed; BLOCKED_ON to the parent.

    SPEC 6.3: the parent session is blocked on its satellite's refused work. The signal comes from
    the human (``human:<name>``), so it never becomes an item of that human's attention queue.
    """
    claim = require_claim(cs.snapshot, sess_id)
    if not reason.strip():
        raise InvalidData("reject needs a reason")
    check_text("message", reason)
    _pending_gate(cs, claim, "reject")
    cs.update_claim(
        sess_id, {"status": Status.FAILED, "closed_at": cs.ts(), "reject_reason": reason}, remove=("gate_origin",)
    )
    add_history(cs, sess_id, "REJECTED", by, reason)
    if claim.parent:
        cs.add_signal(f"human:{by}", claim.parent, "BLOCKED_ON", f"gate rejected for {sess_id} by {by}: {reason}",
                      claim.scope_text)
    deliver_gate_signals(cs, sess_id, by)
    cs.message = f"bsi: gate REJECTED {sess_id}"
    return GateOutcome(sess_id, "reject", Status.FAILED)

def cascade_targets(snapshot: BrainSnapshot, sess_id: str, statuses: frozenset[str]) -> list[Claim]:
    """Descendants (exact parent links, recursive) whose effective status is in `statuses`."""
    return [c for c in snapshot.descendants(sess_id) if effective_status(c, snapshot.now) in statuses]


#: Abort takes every non-terminal status except `stale`: nothing leaves stale but a release or the owner's close.


def gate_pause(cs: ChangeSet, sess_id: str, by: str, message: str = "") -> Cascade:
    """Pause a claim and, recursively, every open/waiting descendant (SPEC 6.3); `touched`: those it paused."""
    claim = require_claim(cs.snapshot, sess_id)
    check_text("message", message)
    current = effective_status(claim, cs.snapshot.now)
    if current not in PAUSABLE:
        raise refuse_transition(claim, "pause", sorted(PAUSABLE), current)
    cs.update_claim(sess_id, {"status": Status.PAUSED, "paused_by": sess_id, "paused_from": claim.status})
    add_history(cs, sess_id, "PAUSED", by, message)
    touched = []
    for child in cascade_targets(cs.snapshot, sess_id, PAUSABLE):
        cs.update_claim(child.sess_id, {"status": Status.PAUSED, "paused_by": sess_id, "paused_from": child.status})
        add_history(cs, child.sess_id, "PAUSED_CASCADE", by, f"ancestor {sess_id} paused")
        touched.append(child.sess_id)
    cs.add_signal(f"human:{by}", sess_id, "PAUSED", message or f"{sess_id} paused", claim.scope_text)
    cs.message = f"bsi: gate PAUSED {sess_id}"
    return Cascade(sess_id, "pause", Status.PAUSED, tuple(touched))

def _lift_pause(cs: ChangeSet, claim: Claim) -> None:
    """Restore a paused claim's previous status; a stale one stays stale, now from that status."""
    previous = restored_status(claim)
    if claim.status == Status.STALE:
        cs.update_claim(claim.sess_id, {"stale_from": previous}, remove=("paused_by", "paused_from"))
    else:
        cs.update_claim(claim.sess_id, {"status": previous}, remove=("paused_by", "paused_from"))


def gate_resume(cs: ChangeSet, sess_id: str, by: str, message: str = "") -> Cascade:
    """Resume a paused claim to its previous status, and the descendants paused by it (`touched`).

    An expired pause (stale from paused) can still be lifted by a human: the claim stays stale, from its
    previous status. A claim paused by an ancestor that is still paused cannot be resumed on its own.
    """
    claim = require_claim(cs.snapshot, sess_id)
    check_text("message", message)
    now = cs.snapshot.now
    if not is_held_pause(claim, now):
        raise refuse_transition(claim, "resume", [Status.PAUSED, "stale (from paused)"], effective_status(claim, now))
    held = paused_ancestor(cs.snapshot, claim)
    # An ancestor held by this claim's own pause is its cascade come round a parent cycle (edited by hand):
    # not a hold above it, or no resume could ever lift that pause. Only a cycle makes it so: an ancestor that is
    # no descendant of this claim and names it in `paused_by` (edited by hand) still holds it from above.
    if held is not None and not (str(held.data.get("paused_by") or "") == sess_id and
                                 held.sess_id in {c.sess_id for c in cs.snapshot.descendants(sess_id)}):
        raise TransitionRefused(
            f"cannot resume {sess_id}: its ancestor {held.sess_id} is still paused; "
            f"resume it instead (`bsi gate resume {held.sess_id}`)"
        )
    _lift_pause(cs, claim)
    add_history(cs, sess_id, "RESUMED", by, message)
    touched = []
    for child in cs.snapshot.descendants(sess_id):
        if not is_held_pause(child, now) or str(child.data.get("paused_by") or "") != sess_id:
            continue
        _lift_pause(cs, child)
        add_history(cs, child.sess_id, "RESUMED_CASCADE", by, f"ancestor {sess_id} resumed")
        touched.append(child.sess_id)
    cs.message = f"bsi: gate RESUMED {sess_id}"
    after = Status.STALE if claim.status == Status.STALE else restored_status(claim)
    return Cascade(sess_id, "resume", after, tuple(touched))

def gate_abort(cs: ChangeSet, sess_id: str, by: str, reason: str) -> Cascade:
    """Abort a non-terminal claim, stale included (SPEC 6.3: any non-terminal), and every live descendant.

    A stale descendant is left stale: it waits for a human's decision aimed at it (a release, or an abort by
    name), as a stale claim stays blocking until a human looks at it (SPEC 1). A reason is required.
    The parent learns it as INFO (a human's own decision never rings that human as "needs you").
    """
    claim = require_claim(cs.snapshot, sess_id)
    if not reason.strip():
        raise InvalidData("abort needs a reason")
    check_text("message", reason)
    now_dt = cs.snapshot.now
    if claim.is_terminal:
        raise refuse_transition(claim, "abort", sorted(ABORTABLE), effective_status(claim, now_dt))
    now = cs.ts()
    cs.update_claim(sess_id, {"status": Status.FAILED, "closed_at": now, "abort_reason": reason})
    add_history(cs, sess_id, "ABORTED", by, reason)
    touched = []
    for child in cs.snapshot.descendants(sess_id):
        if child.is_terminal or effective_status(child, now_dt) == Status.STALE:
            continue  # a stale one waits for a human's own look at it (SPEC 1): release or abort it by name
        cs.update_claim(child.sess_id, {"status": Status.FAILED, "closed_at": now, "abort_reason": reason})
        add_history(cs, child.sess_id, "ABORTED_CASCADE", by, f"ancestor {sess_id} aborted: {reason}")
        touched.append(child.sess_id)
    for failed in (sess_id, *touched):  # an aborted gate is decided: its HUMAN_GATE no longer waits for anyone
        deliver_gate_signals(cs, failed, by)
    _tell_parent(cs, claim, by, f"{sess_id} aborted by {by}: {reason}")
    cs.message = f"bsi: gate ABORTED {sess_id}"
    return Cascade(sess_id, "abort", Status.FAILED, tuple(touched))
