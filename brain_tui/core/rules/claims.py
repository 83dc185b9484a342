"""Claims: open, renew, release and close (SPEC 6.3, 6.5).

Every function decides on the ChangeSet's snapshot and stages its writes;
none writes a file or reads the clock. The conflict check is in conflicts.py,
the tier requirements in tiers.py, the exit triggers in triggers.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta

from brain_tui.core.clock import MAX_TTL, claim_ttl, format_duration
from brain_tui.core.errors import BsiError, ConflictError, InvalidData, NotFound, TransitionRefused, UsageError
from brain_tui.core.ids import new_session_id, require_instance, valid_branch, valid_session_id
from brain_tui.core.paths.limits import MAX_NEW_CLAIM_BYTES, MAX_SCOPE_ENTRIES, add_history, check_text
from brain_tui.core.paths.scope import ScopeEntry, format_scope, normalize_path, parse_scope
from brain_tui.core.paths.text_safety import inert_line
from brain_tui.core.record import field, record, replace
from brain_tui.core.records.changes import ChangeSet, in_field_order, yaml_safe
from brain_tui.core.records.model import BrainSnapshot, Claim, tier_of
from brain_tui.core.records.statuses import RENEWABLE, GateOrigin, SignalState, Status
from brain_tui.core.records.statuses import RESULT_STATUSES as _RESULT_STATUSES
from brain_tui.core.records.unreadable import repair_command, shown_path
from brain_tui.core.records.yamlio import dump_round_trip
from brain_tui.core.rules import held, skew
from brain_tui.core.rules.authority import Actor, require_delegation
from brain_tui.core.rules.conflicts import Conflict, find_conflicts, format_scope_text
from brain_tui.core.rules.effective import (
    effective_status,
    paused_ancestor,
    stale_origin,
    unreadable_ancestor,
)
from brain_tui.core.rules.effective import require_claim as require_claim  # its home: the read rules
from brain_tui.core.rules.seen import check_seen
from brain_tui.core.rules.tiers import close_result
from brain_tui.core.rules.triggers import parse_trigger, run_trigger, trigger_for, trigger_problem
from brain_tui.core.sessions.agents import valid_agent_session

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")
#: The longest slug: the ID is a file name (`claims/<id>.yml`, and the atomic write's longer temporary name).
MAX_SLUG = 64

CLAIM_TYPES = ("pilote", "satellite", "solo")

SATELLITE_TYPES = ("code", "brain-write", "test", "deploy", "search", "domain")

#: The result statuses a close accepts, as the text the cockpit's close form offers.
RESULT_STATUSES: tuple[str, ...] = _RESULT_STATUSES


@record(frozen=False)
class OpenRequest:
    """What `bsi claim open` asks for."""

    scope: tuple[ScopeEntry, ...]
    ttl: timedelta
    instance: str
    type: str | None = None
    satellite_type: str | None = None
    level: str | None = None
    parent: str | None = None
    story: str = ""
    slug: str | None = None
    on_done: str | None = None
    on_partial: str | None = None
    on_fail: str | None = None
    theme_branch: str | None = None
    #: the agent session that opened it (SPEC 20.1), written as `agent_session:`.
    agent_session: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: On a refusal, send BLOCKED_ON to each holder in the same step (seed 002: wait for the active satellite).
    signal_holders: bool = False

def validate_open(snapshot: BrainSnapshot, req: OpenRequest) -> None:
    """Check the request's own fields (exit 65 on bad data, 64 on a solo claim given a parent, 66 on a missing
    parent)."""
    if req.slug is not None and not SLUG_RE.match(req.slug):
        raise InvalidData(f"invalid slug {req.slug[:80]!r}: use lowercase letters, digits and '-'")
    if req.slug is not None and len(req.slug) > MAX_SLUG:
        raise InvalidData(f"invalid slug: {len(req.slug)} characters, at most {MAX_SLUG}")
    require_instance(req.instance)
    if req.type is not None and req.type not in CLAIM_TYPES:
        raise InvalidData(f"invalid type {req.type!r}: one of {', '.join(CLAIM_TYPES)}")
    if req.type == "solo" and req.parent is not None:  # SPEC 6.5: a solo claim has no tree
        raise UsageError("--type solo takes no --parent: a solo claim has no tree (a claim under a parent is a "
                         "satellite: leave --type out, or give --type satellite)")
    if req.satellite_type is not None and req.satellite_type not in SATELLITE_TYPES:
        raise InvalidData(f"invalid satellite type {req.satellite_type!r}: one of {', '.join(SATELLITE_TYPES)}")
    if req.level is not None and req.level not in ("leaf", "domain"):
        raise InvalidData(f"invalid level {req.level!r}: leaf or domain")
    if req.parent is not None:
        if not valid_session_id(req.parent):
            raise InvalidData(f"invalid parent ID {req.parent!r}")
        parent = snapshot.claim(req.parent)
        if parent is None:
            raise missing_parent(snapshot, req.parent)
        if parent.is_terminal:
            raise TransitionRefused(f"parent claim {req.parent} is {parent.status}: open no satellite under it")
    check_text("story", req.story)
    for name in ("on_done", "on_partial", "on_fail", "theme_branch", "instance"):
        check_text(name, getattr(req, name))
    if req.theme_branch and not valid_branch(req.theme_branch):
        raise InvalidData(f"invalid theme branch {inert_line(req.theme_branch, 80)!r}: git names no branch so "
                          "(no spaces, '..', '~ ^ : ? * [ \\', nor a leading '-' or '.'; like theme/be6)")
    if len(req.scope) > MAX_SCOPE_ENTRIES:
        raise InvalidData(f"invalid scope: {len(req.scope)} entries, at most {MAX_SCOPE_ENTRIES} (claim a folder)")
    if req.agent_session is not None and not valid_agent_session(req.agent_session):
        raise InvalidData(f"invalid agent session {req.agent_session[:80]!r}: letters, digits, '.', '_', ':', '-'")
    for name in ("on_done", "on_partial", "on_fail"):
        value = getattr(req, name)
        trigger = parse_trigger(value) if value is not None else None
        if value is not None and trigger is None:
            raise InvalidData(
                f"invalid {name.replace('_', '-')} {value!r}: use 'signal → TYPE DEST', "
                "'notify → DEST', 'gate:human → \"message\"' or 'trigger → type:T scope:S'"
            )
        problem = trigger_problem(trigger, snapshot.root) if trigger is not None else None
        if problem:
            raise InvalidData(f"invalid {name.replace('_', '-')} {inert_line(value or '', 120)!r}: {problem}")

def _refusal(cs: ChangeSet, req: OpenRequest, conflicts: list[Conflict], actor: Actor | None) -> ConflictError:
    """The refusal of an open: the holders, the free scopes nearby, and (asked for) BLOCKED_ON to each holder.

    The BLOCKED_ON is signed as any signal of the actor's would be: a human's by the instance, an agent's
    only by a claim of its own (`signals.check_agent_send`); an agent with none sends nothing and is told so.
    """
    from brain_tui.core.errors import BsiError
    from brain_tui.core.rules.alternatives import nearby_free
    from brain_tui.core.rules.authority import sender_for
    from brain_tui.core.rules.signals import check_agent_send

    lines = "; ".join(c.describe() for c in conflicts)
    free = nearby_free(cs.snapshot, req.scope, parent=req.parent, satellite_type=req.satellite_type)
    text = f"claim refused: {format_scope_text(req.scope)} conflicts with {lines}"
    if free:
        text += f"; free nearby: {', '.join(free)}"
    payload: dict[str, Any] = {"conflicts": [c.as_dict() for c in conflicts], "alternatives": free}
    sender: str | None = req.instance
    if req.signal_holders and actor is not None and actor.is_agent:
        sender = sender_for(actor, req.instance, cs.snapshot)
        try:
            check_agent_send(cs.snapshot, actor, sender, "BLOCKED_ON")
        except BsiError as exc:
            text += f"; --blocked-on sent nothing: {exc.message}"
            sender = None
    if req.signal_holders and sender is not None:
        wanted = format_scope_text(req.scope)
        story = f": {req.story}" if req.story else ""
        sent = [cs.add_signal(sender, holder, "BLOCKED_ON",
                              f"waiting for {wanted} (claim refused, held by {holder}){story}", wanted)
                for holder in dict.fromkeys(c.sess_id for c in conflicts)]
        payload["signals"] = [sig for sig in sent if sig]
    error = ConflictError(text, payload)
    if cs.signals:
        error.commit_staged = True
        cs.message = f"bsi: signal {cs.signals[0]} pending"
    return error


def open_claim(cs: ChangeSet, req: OpenRequest, actor: Actor | None = None) -> str:
    """Open a claim: who may delegate, then the conflict check, then the new file; its ID (SPEC 6.3 row 1, 21.4).

    `actor` None is a human (the facade passes the effective actor); an agent opens a child only under a claim
    it (or an ancestor of it) holds.

    Raises:
        NotYours: an agent opening under a parent it does not hold (77), naming the parent's holder.
        ConflictError: the scope intersects blocking claims (payload: conflicts).
    """
    snapshot = cs.snapshot
    validate_open(snapshot, req)
    req = replace(req, scope=keyed_on(snapshot, req.scope))
    if actor is not None and actor.is_agent:
        _check_agent_triggers(req)
        held.require_none_held(snapshot, actor, req.agent_session)
    if actor is not None and req.parent is not None:
        parent = snapshot.claim(req.parent)
        if parent is not None:
            require_delegation(actor, parent, snapshot)
    conflicts = find_conflicts(snapshot, req.scope, parent=req.parent, satellite_type=req.satellite_type)
    if conflicts:
        raise _refusal(cs, req, conflicts, actor)
    sess_id = new_session_id(snapshot, req.slug)
    ctype = req.type or ("satellite" if req.parent else "solo")
    from ruamel.yaml.comments import CommentedMap  # the write path's only

    doc = CommentedMap()
    doc["sess_id"] = sess_id
    doc["type"] = ctype
    doc["instance"] = req.instance
    doc["scope"] = format_scope(req.scope)
    doc["story_angle"] = req.story
    doc["status"] = Status.OPEN.value
    doc["opened_at"] = cs.ts()
    doc["ttl"] = format_duration(req.ttl)
    doc["expires_at"] = cs.ts(snapshot.now + min(req.ttl, MAX_TTL))
    if req.satellite_type:
        doc["satellite_type"] = req.satellite_type
    if req.level or ctype == "satellite":
        doc["satellite_level"] = req.level or ("domain" if req.satellite_type == "domain" else "leaf")
    if req.parent:
        doc["parent_satellite"] = req.parent
    for key in ("on_done", "on_partial", "on_fail", "theme_branch", "agent_session"):
        value = getattr(req, key)
        if value:
            doc[key] = value
    for key, value in req.extra.items():
        doc[key] = value
    size = _written_size(doc)
    if size > MAX_NEW_CLAIM_BYTES:
        raise InvalidData(f"invalid claim: {size // 1024} KiB written, at most {MAX_NEW_CLAIM_BYTES // 1024} KiB "
                          "(shorten the scope list or the texts)")
    cs.new_claim(f"claims/{sess_id}.yml", doc)
    kind = "satellite" if ctype == "satellite" else "claim"
    cs.message = f"bsi: open {kind} {sess_id}"
    return sess_id

def _written_size(doc: Any) -> int:
    """The bytes a new claim file takes.

    Raises:
        InvalidData: it cannot even be written as a claim file (past 64 KiB the reader refuses it): 65, where
            the read-back check alone was an internal error (70).
    """
    from brain_tui.core.records.yamlio import CorruptYaml

    try:
        return len(dump_round_trip(yaml_safe(doc)).encode("utf-8"))
    except CorruptYaml as exc:
        raise InvalidData(f"invalid claim: it cannot be written as a claim file ({exc.reason}); "
                          "shorten the scope list or the texts") from None


def _check_agent_triggers(req: OpenRequest) -> None:
    """An agent's exit triggers send only what the agent itself may send (SPEC 21.2): the close writes the
    signal of a `signal → TYPE DEST` trigger, so a product-only TYPE would be the agent's send made later.

    Raises:
        ProductOnly: a trigger names HUMAN_GATE, PAUSED, CIRCUIT_BREAK or UNBLOCK (77).
    """
    from brain_tui.core.rules.signals import check_agent_type

    for name in ("on_done", "on_partial", "on_fail"):
        value = getattr(req, name)
        trigger = parse_trigger(value) if value else None
        if trigger is not None and trigger.kind == "signal":
            check_agent_type(trigger.sig_type, f"{name.replace('_', '-')} {inert_line(value, 120)!r}")


def keyed_on(snapshot: BrainSnapshot, scope: Sequence[ScopeEntry]) -> tuple[ScopeEntry, ...]:
    """The scope as the tree being decided on reads it: its folders and symlinks, not those of the tree it was typed on.

    A synced open parses `--scope` before the fetch brings the remote's tree; a link or a folder the remote
    added since would otherwise not count, and a second holder of one file could win through a link.
    """
    return parse_scope([str(entry) for entry in scope], snapshot.root, typed=False)


def missing_parent(snapshot: BrainSnapshot, parent: str) -> BsiError:
    """The refusal for a parent the snapshot has no claim for: its file does not read (65), or it is not there (66).

    A corrupt parent is named with its repair: no satellite opens under a tree nobody can read.
    """
    for bad in snapshot.corrupt:
        if bad.path in (f"claims/{parent}.yml", f"claims/{parent}.yaml"):
            line = f" line {bad.line}" if bad.line else ""
            return InvalidData(f"parent claim {parent} cannot be read ({shown_path(bad.path)}{line}: "
                               f"{inert_line(bad.reason, 200)}): no satellite opens under it until a human "
                               f"repairs it (`{repair_command(bad.path)}`)")
    return NotFound(f"parent claim {parent} not found")


def refuse_transition(
    claim: Claim, action: str, allowed: Sequence[str], status: str | None = None
) -> TransitionRefused:
    """The refusal (exit 12) of an action the claim's (effective) status does not allow."""
    shown = status or claim.status
    if shown != claim.status:
        shown = f"{shown} (expired while {claim.status})"
    return TransitionRefused(
        f"cannot {action} {claim.sess_id}: it is {shown} (allowed from {', '.join(allowed)})"
    )


def validate_check(snapshot: BrainSnapshot, parent: str | None, satellite_type: str | None) -> None:
    """Check `check-scope`'s options as `claim open` checks them (65 bad data, 66 unknown parent)."""
    if satellite_type is not None and satellite_type not in SATELLITE_TYPES:
        raise InvalidData(f"invalid satellite type {satellite_type!r}: one of {', '.join(SATELLITE_TYPES)}")
    if parent is not None:
        if not valid_session_id(parent):
            raise InvalidData(f"invalid parent ID {parent!r}")
        if snapshot.claim(parent) is None:
            raise missing_parent(snapshot, parent)


def who_must_act(claim: Claim, origin: str | None) -> str:
    """The human action that takes a stale claim out of a gate or a pause."""
    sess_id = claim.sess_id
    if origin == Status.WAITING_HUMAN:
        return (f"its gate is still pending: a human approves or rejects it (`bsi gate approve {sess_id}` / "
                f"`bsi gate reject {sess_id} REASON`) or releases it")
    if origin == Status.PAUSED:
        by = str(claim.data.get("paused_by") or sess_id)
        return f"it is paused: a human resumes it (`bsi gate resume {by}`) or releases it"
    return f"a human releases it (`bsi claim release {sess_id} --reason TEXT`)"


def check_closable(snapshot: BrainSnapshot, sess_id: str) -> None:
    """Whether `sess_id` may be closed now, before its tier's requirements are asked (the close's own check).

    Raises:
        NotFound: no such claim (66). TransitionRefused: as `close_claim` (12).
    """
    _check_closable(snapshot, require_claim(snapshot, sess_id))


def _check_closable(snapshot: BrainSnapshot, claim: Claim) -> None:
    """An owner's close: from ``open``, or late from a stale claim that was ``open`` (never past a gate or pause).

    Raises:
        TransitionRefused: any other status, a stale claim whose gate or pause is pending
            (the message says who must act), or an ancestor holding the tree paused (12).
    """
    now = snapshot.now
    current = effective_status(claim, now)
    if current == Status.STALE:
        origin = stale_origin(claim, now)
        if origin != Status.OPEN:
            raise TransitionRefused(
                f"cannot close {claim.sess_id}: it is stale from {origin}; {who_must_act(claim, origin)}"
            )
    elif current != Status.OPEN:
        raise refuse_transition(claim, "close", ["open", "stale (from open)"], current)
    held = paused_ancestor(snapshot, claim)
    if held is not None:
        raise TransitionRefused(
            f"cannot close {claim.sess_id}: its ancestor {held.sess_id} is paused; "
            f"a human resumes it first (`bsi gate resume {held.paused_by or held.sess_id}`)"
        )
    broken = unreadable_ancestor(snapshot, claim)
    if broken is not None:
        raise TransitionRefused(
            f"cannot close {claim.sess_id}: its ancestor {broken} cannot be read (its claim file is corrupt), so "
            f"whether a human paused this tree is unknown; a human repairs claims/{broken}.yml first"
        )


def renew_claim(cs: ChangeSet, sess_id: str, ttl: timedelta | None) -> str:
    """Extend a live claim's expiry, never past opened_at + 8 h (SPEC 6.3 last row); the new expiry, formatted.

    From ``open``, ``waiting_human`` and ``paused`` (a gate waiting for a human must not die unseen); never once stale:
    an agent's claim is judged at the machine's clock when the brain's runs behind it (`authority.judged`).
    """
    from brain_tui.core.rules.authority import judged

    claim = require_claim(cs.snapshot, sess_id)
    now = cs.snapshot.now
    revived = skew.revive(cs, claim, sess_id)  # a stale mark from a clock ahead
    current = revived or effective_status(claim, judged(cs.snapshot).now)
    if current not in RENEWABLE:
        raise refuse_transition(claim, "renew", RENEWABLE, current)
    duration = ttl if ttl is not None else claim_ttl(claim.data.get("ttl"), cs.snapshot.default_ttl)
    new_expiry = now + duration
    if claim.opened_at is not None:
        new_expiry = min(new_expiry, claim.opened_at + MAX_TTL)
    if claim.expires_at is not None and new_expiry < claim.expires_at:
        new_expiry = claim.expires_at
    formatted = cs.ts(new_expiry)
    cs.update_claim(sess_id, {"expires_at": formatted})
    cs.message = f"bsi: renew claim {sess_id}"
    return formatted

def release_claim(cs: ChangeSet, sess_id: str, reason: str, by: str, seen: str | None = None) -> None:
    """A human releases a stale claim (reason required; never automatic).

    `seen`: the claim's mark as the human saw it; a claim changed since is refused (`rules.seen`, 12).
    """
    if not reason.strip():  # before the lookup: a missing reason is bad input whatever the ID
        raise InvalidData("release needs a reason: --reason TEXT")
    check_text("message", reason)
    claim = require_claim(cs.snapshot, sess_id)
    check_seen(claim, seen)
    current = effective_status(claim, cs.snapshot.now)
    if current != Status.STALE:
        raise refuse_transition(claim, "release", ["stale"], current)
    cs.update_claim(sess_id, {"status": Status.RELEASED.value, "closed_at": cs.ts(), "release_reason": reason})
    add_history(cs, sess_id, "RELEASED", by, reason)
    deliver_gate_signals(cs, sess_id, by)  # a gate that went stale is decided by its release
    cs.message = f"bsi: release {sess_id}"


def deliver_gate_signals(cs: ChangeSet, sess_id: str, by: str) -> None:
    """Mark the claim's pending HUMAN_GATE signals delivered once the gate is decided (approve, reject, abort,
    release): no pending signal is left asking for a decision nobody can make any more."""
    for sig in cs.snapshot.signals:
        if sig.state == SignalState.PENDING and sig.type == "HUMAN_GATE" and sig.sender == sess_id:
            cs.update_signal(sig.path, {"state": SignalState.DELIVERED, "delivered_at": cs.ts(), "delivered_by": by})

@record(frozen=False)
class CloseRequest:
    """What `bsi claim close` gives."""

    status: str | None = None
    files: list[str] = field(default_factory=list)
    commit: str | None = None
    tests_total: int | None = None
    tests_passed: int | None = None
    tests_failed: int | None = None
    notes: str | None = None
    #: A refused Tier 2 close sends BLOCKED_ON to the parent (SPEC 6.5); False when a human asked for the
    #: close in the cockpit (the refusal is shown there: a human's own action never notifies that human).
    notify_parent: bool = True

@record(frozen=False)
class CloseOutcome:
    """What a close did: closed, or turned into a gate by a `gate:human` trigger."""

    sess_id: str
    status: Status
    tier: int
    result: dict[str, Any]
    signals: list[str]


def close_claim(cs: ChangeSet, sess_id: str, req: CloseRequest) -> CloseOutcome:
    """Close a claim under its tier's rules, then run its exit trigger.

    Raises:
        TransitionRefused: not open or stale (12).
        TierRefused: the tier requirement is not met (11); a red Tier 2 close
            still stages the BLOCKED_ON signal to the parent.
    """
    snapshot = cs.snapshot
    claim = require_claim(snapshot, sess_id)
    _check_closable(snapshot, claim)
    check_text("notes", req.notes)
    if req.status is not None and req.status not in RESULT_STATUSES:
        raise InvalidData(f"invalid status {req.status!r}: ok, partial or failed")
    # The files a close records are brain paths like any other (SPEC 5.1): normalised, and a bad one is bad data
    # (65) before anything is staged.
    req = replace(req, files=[normalize_path(f) for f in req.files])
    tier = tier_of(claim)
    result = in_field_order(close_result(cs, claim, req))
    # exit trigger
    trigger = trigger_for(claim, result["status"])
    signals_before = len(cs.signals)
    to_gate = trigger is not None and trigger.kind == "gate"
    if to_gate:
        assert trigger is not None
        pilot = snapshot.resolve_destination(claim, "pilote")
        cs.update_claim(
            sess_id,
            {"status": Status.WAITING_HUMAN.value, "result": result, "gate_origin": GateOrigin.CLOSE.value,
             "gate_message": trigger.message},
        )
        add_history(cs, sess_id, "HUMAN_GATE", sess_id, trigger.message)
        sig = cs.add_signal(
            sess_id, pilot, "HUMAN_GATE", trigger.message or f"gate on close of {sess_id}", claim.scope_text
        )
        if sig:
            cs.update_claim(sess_id, {"result": in_field_order({**result, "signal_id": sig})})
        final_status = Status.WAITING_HUMAN
    else:
        fields: dict[str, Any] = {"status": Status.CLOSED.value, "closed_at": cs.ts(), "result": result}
        cs.update_claim(sess_id, fields)
        run_trigger(cs, claim, trigger, result)
        new = cs.signals[signals_before:]
        if new:
            cs.update_claim(sess_id, {"result": in_field_order({**result, "signal_id": new[0]})})
        final_status = Status.CLOSED
    if tier == 3:
        cs.message = f"bsi: close {claim.type} {sess_id} [orchestrated]"
    elif tier == 2:
        cs.message = f"bsi: close satellite {sess_id} [validated]"
    elif claim.type == "satellite":  # Tier 1: the seed's `bsi: close satellite <sess-id>`, no tier suffix
        cs.message = f"bsi: close satellite {sess_id}"
    else:
        cs.message = f"bsi: close claim {sess_id}"
    return CloseOutcome(sess_id, final_status, tier, result, list(cs.signals[signals_before:]))
