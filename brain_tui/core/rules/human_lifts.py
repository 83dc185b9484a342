"""The transitions only a human makes, read from what a write would leave on disk (SPEC 21.2, 6.3).

`Brain`'s verbs refuse a human's decision inside an agent's process before they stage
anything (`authority.require_human`). The library has lower doors too: the rule
functions (`gates.gate_approve` over a `ChangeSet`) and `write_path.apply`. This is the
last one every write passes: each claim the write changes is compared, status before
and after, and a change that only a human's verb makes (a gate lifted or decided, a
pause set or lifted, an abort, a stale mark released, a live claim deleted) refuses
in an agent's process, whatever built the write.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from brain_tui.core.records.statuses import Status

if TYPE_CHECKING:
    from datetime import datetime

    from brain_tui.core.records.model import BrainSnapshot, Claim

#: What a session (or the watchdog, in any process) may do to a claim's status: (before, after) pairs.
#: None before: a new claim. A pair not listed here is a human's verb.
_AGENT_MOVES: frozenset[tuple[str | None, str]] = frozenset({
    (None, Status.OPEN.value),
    (Status.OPEN.value, Status.CLOSED.value),  # close
    (Status.OPEN.value, Status.WAITING_HUMAN.value),  # gate request, a close trigger's gate
    (Status.OPEN.value, Status.STALE.value),  # the watchdog
    (Status.WAITING_HUMAN.value, Status.STALE.value),
    (Status.PAUSED.value, Status.STALE.value),
    (Status.STALE.value, Status.CLOSED.value),  # the owner's late close
})

_TERMINAL = frozenset({Status.CLOSED.value, Status.FAILED.value, Status.RELEASED.value})


def human_moves(snapshot: BrainSnapshot, rendered: Mapping[str, str | None],
                derived: Collection[str] = (), at: datetime | None = None) -> list[tuple[str, str]]:
    """The claims a write changes the way only a human's verb does: one ``(sess_id, verb)`` pair per claim.

    `rendered`: the files the write leaves (brain-relative path → text; None = deleted). Claims in `derived`
    (moved by a derived rule: a skewed stale mark revived by its owner, a claim lost at sync) are left out.
    The verb is the one that makes such a change (``approve``, ``reject``, ``pause``, ``resume``, ``abort``,
    ``release``); empty when the write is a session's to make. `at` (default the snapshot's time) is when staleness
    is judged: a claim stale then that the write makes live again is released, whatever its status line says.
    """
    from brain_tui.core.paths.layout import CLAIMS_DIR

    at = snapshot.now if at is None else at
    before = {claim.path: claim for claim in snapshot.claims}
    found: list[tuple[str, str]] = []
    for rel, text in rendered.items():
        claim = before.get(rel)
        if not rel.startswith(f"{CLAIMS_DIR}/") or (claim is None and text is None):
            continue
        old = str(claim.status) if claim is not None else None
        sess_id = claim.sess_id if claim is not None else rel
        if sess_id in derived and claim is not None and text is not None and \
                derived_move(snapshot, claim, status_of(text, rel), at):
            continue
        if text is None:  # a claim file deleted: only a live one matters (it stops holding its scope)
            if old not in _TERMINAL:
                found.append((sess_id, "release"))
            continue
        new = status_of(text, rel)
        if new is None:
            continue
        lifted = _hold_lifted(claim.data if claim is not None else None, old, text, new)
        if lifted:
            found.append((sess_id, lifted))
        elif new != old and (old, new) not in _AGENT_MOVES:
            found.append((sess_id, _verb(old, new)))
        elif claim is not None and _made_live(snapshot, claim, text, at):
            found.append((sess_id, "release"))
    return found


def _made_live(snapshot: BrainSnapshot, claim: Claim, text: str, at: datetime) -> bool:
    """True when `claim`, stale at `at` (marked, or expired), would be live at `at` as `text` writes it: a renew at a
    clock set behind lifts a stale claim as a release does."""
    from brain_tui.core.records.formats import claim_from_mapping
    from brain_tui.core.records.model import Claim as ClaimRecord
    from brain_tui.core.records.statuses import LIVE_STATUSES
    from brain_tui.core.records.yamlio import CorruptYaml, safe_load_text
    from brain_tui.core.rules.effective import effective_status

    if effective_status(claim, at) != Status.STALE:
        return False
    try:
        after = claim_from_mapping(safe_load_text(text), claim.path, snapshot.root, snapshot.tz,
                                   scope_parser=lambda _: ())
    except (CorruptYaml, ValueError):
        return False
    return isinstance(after, ClaimRecord) and effective_status(after, at) in LIVE_STATUSES


_HELD = frozenset({Status.PAUSED.value, Status.WAITING_HUMAN.value})


def derived_move(snapshot: BrainSnapshot, claim: Claim, new: str | None, at: datetime) -> bool:
    """True when the derived rule a write names (`ChangeSet.derived`, which any caller can set) makes this move:
    a suspect stale mark taken back to the hold it was marked over (`skew.revive`), or a claim lost at sync,
    which another blocking claim holds the scope of, marked failed (`reconcile.mark_lost`).

    A lost claim a human holds (paused, at a gate, stale from either) is marked failed too: it never held its scope
    in git (SPEC 11, 22: the remote's claim was there first), and failing it makes nothing live again, so no pause or
    gate is lifted. Its winner is never its own ancestor (as `reconcile.lost_claims` counts them): a paused, gated or
    stale ancestor meets it by the chain rule alone, which would let an agent end any held child as "lost"; nor is
    a claim whose chain does not read to its root lost: an ancestor past a link that does not read may meet it so,
    and past a parent no claim has (edited in by hand) the claim's real pilot meets it as "another" claim, which would
    let an agent end its own held claim as lost (the human's sync, `reconcile.lost_claims`, judges such a claim).
    An open claim of a session a human holds paused on another tree (`held.paused_elsewhere`) is lost too."""
    from brain_tui.core.rules.conflicts import CORRUPT, chain_complete, find_conflicts
    from brain_tui.core.rules.effective import stale_origin
    from brain_tui.core.rules.skew import revivable

    old = str(claim.status)
    if old == Status.STALE.value and revivable(claim, at) and new == str(stale_origin(claim, at)):
        return True
    if new != Status.FAILED.value or old in _TERMINAL or not chain_complete(snapshot, claim.sess_id):
        return False  # a chain that does not read hides ancestors: any winner may be one (SPEC 22, fails closed)
    tree = {a.sess_id for a in snapshot.ancestors(claim.sess_id)}
    winners = find_conflicts(snapshot, claim.scope, parent=claim.parent, satellite_type=claim.satellite_type,
                             exclude=claim.sess_id)
    if any(w.status != CORRUPT and w.sess_id not in tree for w in winners):
        return True
    from brain_tui.core.rules.held import paused_elsewhere

    return paused_elsewhere(snapshot, claim, ()) is not None  # opened after a human paused its session (`mark_lost`)


def _hold_lifted(data: Mapping[str, Any] | None, old: str | None, text: str, new: str) -> str:
    """The human's verb (``resume``, ``approve``) a stale mark stands for when it forgets the pause or the gate it
    was marked over (a mark written stale from ``open``, or its traces dropped), or the late close of a claim
    stale from one: the late close is the owner's only for a claim stale from ``open`` (SPEC 6.3). "" otherwise."""
    if data is None or old is None:
        return ""
    was = _hold(data, old)
    if was not in _HELD or (new != Status.STALE.value and not (old == Status.STALE.value and new in _TERMINAL)):
        return ""
    if new == Status.STALE.value:
        from brain_tui.core.records.yamlio import CorruptYaml, safe_load_text

        try:
            after = safe_load_text(text)
        except (CorruptYaml, ValueError):
            return ""
        if isinstance(after, Mapping) and _hold(after, new) == was:
            return ""
    elif new != Status.CLOSED.value:
        return ""  # rejected, aborted, released: `_verb` names them
    return "resume" if was == Status.PAUSED.value else "approve"


def _hold(data: Mapping[str, Any], status: str) -> str:
    """What a claim file's status holds it at: a stale claim at what it was stale from, read as the rules read it
    (`effective.stale_origin`: ``paused_by``, ``gate_origin`` or the history's hold win over ``stale_from``)."""
    if status != Status.STALE.value:
        return status
    from brain_tui.core.records.formats import held_status
    from brain_tui.core.rules.effective import remembered_status

    if str(data.get("paused_by") or "").strip():
        return Status.PAUSED.value
    if str(data.get("gate_origin") or "").strip():
        return Status.WAITING_HUMAN.value
    return str(held_status(data, remembered_status(data.get("stale_from")) or Status.OPEN))


def _verb(old: str | None, new: str) -> str:
    """The human's verb that moves a claim from `old` to `new` (for the refusal's words)."""
    if old == Status.STALE.value:
        return "release"
    if new == Status.PAUSED.value:
        return "pause"
    if old == Status.PAUSED.value:
        return "resume"
    if old == Status.WAITING_HUMAN.value:
        return "reject" if new == Status.FAILED.value else "approve"
    return "abort" if new == Status.FAILED.value else "approve"


def status_of(text: str, rel: str) -> str | None:
    """The status a claim text holds as every reader reads it (`formats.claim_identity`: a v1 claim without
    ``status:`` is closed by its ``closed:`` time, else open), or None when it is not a claim that reads."""
    from datetime import UTC

    from brain_tui.core.records.formats import claim_identity
    from brain_tui.core.records.yamlio import CorruptYaml, safe_load_text

    try:
        data = safe_load_text(text)
    except (CorruptYaml, ValueError):
        return None
    identity = claim_identity(data, rel, UTC)  # the zone only reads a naive closing time: set or not is the same
    return str(identity[1]) if isinstance(identity, tuple) else None
