"""Human gates, pause/resume and abort, with their cascades over the satellite tree (SPEC 6.3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brain_tui.core.changes import ChangeSet
from brain_tui.core.claims import refuse_transition, require_claim
from brain_tui.core.errors import InvalidData, TransitionRefused
from brain_tui.core.model import BrainSnapshot, Claim
from brain_tui.core.triggers import summary


@dataclass(frozen=True)
class GateOutcome:
    """What a gate request, approve or reject did.

    Attributes:
        sess_id: the claim.
        action: ``request``, ``approve`` or ``reject``.
        status: the claim's status after the action.
        signal_id: the HUMAN_GATE signal a request sent (None for a duplicate, and for other actions).
    """

    sess_id: str
    action: str
    status: str
    signal_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi gate ACTION`: ``{sess_id, action, status[, signal_id]}``."""
        out: dict[str, Any] = {"sess_id": self.sess_id, "action": self.action, "status": self.status}
        if self.signal_id:
            out["signal_id"] = self.signal_id
        return out

@dataclass(frozen=True)
class Cascade:
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

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi gate ACTION`: ``{sess_id, action, status, cascade: [ids]}``."""
        return {"sess_id": self.sess_id, "action": self.action, "status": self.status,
                "cascade": list(self.touched)}

def gate_request(cs: ChangeSet, sess_id: str, message: str) -> GateOutcome:
    """A session stops at a human gate: open → waiting_human, HUMAN_GATE to the pilot."""
    claim = require_claim(cs.snapshot, sess_id)
    if claim.status != "open":
        raise refuse_transition(claim, "request a gate on", ["open"])
    cs.update_claim(sess_id, {"status": "waiting_human", "gate_origin": "request", "gate_message": message})
    cs.add_history(sess_id, "HUMAN_GATE", sess_id, message)
    pilot = cs.snapshot.resolve_destination(claim, "pilote")
    cs.message = f"bsi: gate HUMAN_GATE {sess_id}"
    sig = cs.add_signal(sess_id, pilot, "HUMAN_GATE", message or f"gate requested by {sess_id}", claim.scope_text)
    return GateOutcome(sess_id, "request", "waiting_human", sig)

def gate_approve(cs: ChangeSet, sess_id: str, by: str, message: str = "") -> GateOutcome:
    """A human approves: waiting_human → open, or closed when the gate came from a close trigger.

    Returns:
        The outcome (status ``open`` or ``closed``).
    """
    claim = require_claim(cs.snapshot, sess_id)
    if claim.status != "waiting_human":
        raise refuse_transition(claim, "approve", ["waiting_human"])
    if claim.gate_origin == "close":
        cs.update_claim(sess_id, {"status": "closed", "closed_at": cs.ts()}, remove=("gate_origin",))
        new_status = "closed"
    else:
        cs.update_claim(sess_id, {"status": "open"}, remove=("gate_origin",))
        new_status = "open"
    cs.add_history(sess_id, "APPROVED", by, message)
    if claim.gate_origin == "close":
        result = claim.result.data if claim.result is not None else {}
        if claim.parent:
            cs.add_signal(sess_id, claim.parent, "CHECKPOINT", summary(claim, dict(result)), claim.scope_text)
    _deliver_gate_signals(cs, sess_id, by)
    cs.message = f"bsi: gate APPROVED {sess_id}"
    return GateOutcome(sess_id, "approve", new_status)

def _deliver_gate_signals(cs: ChangeSet, sess_id: str, by: str) -> None:
    """Mark the claim's pending HUMAN_GATE signals delivered once the gate is decided."""
    for sig in cs.snapshot.signals:
        if sig.state == "pending" and sig.type == "HUMAN_GATE" and sig.sender == sess_id:
            cs.update_signal(sig.path, {"state": "delivered", "delivered_at": cs.ts(), "delivered_by": by})

def gate_reject(cs: ChangeSet, sess_id: str, by: str, reason: str) -> GateOutcome:
    """A human rejects (reason required): waiting_human → failed, BLOCKED_ON to the parent."""
    claim = require_claim(cs.snapshot, sess_id)
    if not reason.strip():
        raise InvalidData("reject needs a reason")
    if claim.status != "waiting_human":
        raise refuse_transition(claim, "reject", ["waiting_human"])
    cs.update_claim(
        sess_id, {"status": "failed", "closed_at": cs.ts(), "reject_reason": reason}, remove=("gate_origin",)
    )
    cs.add_history(sess_id, "REJECTED", by, reason)
    dest = claim.parent or cs.snapshot.resolve_destination(claim, "pilote")
    cs.add_signal(f"human:{by}", dest, "BLOCKED_ON", f"gate rejected for {sess_id}: {reason}", claim.scope_text)
    _deliver_gate_signals(cs, sess_id, by)
    cs.message = f"bsi: gate REJECTED {sess_id}"
    return GateOutcome(sess_id, "reject", "failed")

def cascade_targets(snapshot: BrainSnapshot, sess_id: str, statuses: frozenset[str]) -> list[Claim]:
    """Descendants (exact parent links, recursive) whose status is in `statuses`."""
    return [c for c in snapshot.descendants(sess_id) if c.status in statuses]

PAUSABLE = frozenset({"open", "waiting_human"})

#: Abort takes every non-terminal status except `stale`: nothing leaves stale but a release or the owner's close.
ABORTABLE = frozenset({"open", "waiting_human", "paused"})

def gate_pause(cs: ChangeSet, sess_id: str, by: str, message: str = "") -> Cascade:
    """Pause a claim and, recursively, every open/waiting descendant (SPEC 6.3).

    Returns:
        The cascade (`touched`: the descendants it paused).
    """
    claim = require_claim(cs.snapshot, sess_id)
    if claim.status not in PAUSABLE:
        raise refuse_transition(claim, "pause", sorted(PAUSABLE))
    cs.update_claim(sess_id, {"status": "paused", "paused_by": sess_id, "paused_from": claim.status})
    cs.add_history(sess_id, "PAUSED", by, message)
    touched = []
    for child in cascade_targets(cs.snapshot, sess_id, PAUSABLE):
        cs.update_claim(child.sess_id, {"status": "paused", "paused_by": sess_id, "paused_from": child.status})
        cs.add_history(child.sess_id, "PAUSED_CASCADE", by, f"ancestor {sess_id} paused")
        touched.append(child.sess_id)
    cs.add_signal(f"human:{by}", sess_id, "PAUSED", message or f"{sess_id} paused", claim.scope_text)
    cs.message = f"bsi: gate PAUSED {sess_id}"
    return Cascade(sess_id, "pause", "paused", tuple(touched))

def _previous_status(claim: Claim) -> str:
    previous = claim.paused_from or "open"
    return previous if previous in PAUSABLE else "open"

def gate_resume(cs: ChangeSet, sess_id: str, by: str, message: str = "") -> Cascade:
    """Resume a paused claim to its previous status, and the descendants paused by it.

    Returns:
        The cascade (`touched`: the descendants it resumed).
    """
    claim = require_claim(cs.snapshot, sess_id)
    if claim.status != "paused":
        raise refuse_transition(claim, "resume", ["paused"])
    status = _previous_status(claim)
    cs.update_claim(sess_id, {"status": status}, remove=("paused_by", "paused_from"))
    cs.add_history(sess_id, "RESUMED", by, message)
    touched = []
    for child in cascade_targets(cs.snapshot, sess_id, frozenset({"paused"})):
        if (child.paused_by or "") != sess_id:
            continue
        cs.update_claim(child.sess_id, {"status": _previous_status(child)}, remove=("paused_by", "paused_from"))
        cs.add_history(child.sess_id, "RESUMED_CASCADE", by, f"ancestor {sess_id} resumed")
        touched.append(child.sess_id)
    cs.message = f"bsi: gate RESUMED {sess_id}"
    return Cascade(sess_id, "resume", status, tuple(touched))

def gate_abort(cs: ChangeSet, sess_id: str, by: str, reason: str) -> Cascade:
    """Abort an open, waiting or paused claim and every such descendant (reason required).

    Stale claims are left alone (refused when aimed at directly): they leave
    `stale` only by a human release or their owner's close.

    Returns:
        The cascade (`touched`: the descendants it aborted).
    """
    claim = require_claim(cs.snapshot, sess_id)
    if not reason.strip():
        raise InvalidData("abort needs a reason")
    if claim.status == "stale":
        raise TransitionRefused(
            f"cannot abort {sess_id}: it is stale, and a stale claim only leaves stale by a human release "
            f"(bsi claim release {sess_id} --reason TEXT) or its owner's close"
        )
    if claim.status not in ABORTABLE:
        raise refuse_transition(claim, "abort", sorted(ABORTABLE))
    now = cs.ts()
    cs.update_claim(sess_id, {"status": "failed", "closed_at": now, "abort_reason": reason})
    cs.add_history(sess_id, "ABORTED", by, reason)
    touched = []
    for child in cascade_targets(cs.snapshot, sess_id, ABORTABLE):
        cs.update_claim(child.sess_id, {"status": "failed", "closed_at": now, "abort_reason": reason})
        cs.add_history(child.sess_id, "ABORTED_CASCADE", by, f"ancestor {sess_id} aborted: {reason}")
        touched.append(child.sess_id)
    if claim.parent:
        cs.add_signal(f"human:{by}", claim.parent, "BLOCKED_ON", f"{sess_id} aborted: {reason}", claim.scope_text)
    cs.message = f"bsi: gate ABORTED {sess_id}"
    return Cascade(sess_id, "abort", "failed", tuple(touched))
