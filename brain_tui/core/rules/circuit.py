"""The circuit breaker (SPEC 9): `circuit: {fails: N, last_fail_at: ts|null}` in the claim.

`stage_fail` adds one failure (plus `tripped: true` once tripped); reaching
`max_consecutive_fails` sends one CIRCUIT_BREAK signal to the parent (or the
tree's root). `stage_reset` clears it; a trip after a reset sends a signal of its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from brain_tui.core.config import DEFAULT_MAX_FAILS
from brain_tui.core.errors import TransitionRefused
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.record import record
from brain_tui.core.records.model import BrainSnapshot, Claim

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:  # reading a breaker's state (`bsi attention`) loads none of the write rules (start-up)
    from typing import Any, ClassVar

    from brain_tui.core.records.changes import ChangeSet


@record
class CircuitState(JsonShaped):
    """A claim's circuit breaker.

    Attributes:
        sess_id: the claim.
        fails: consecutive failures recorded.
        max_fails: `max_consecutive_fails` from brain-compose.yml (default 3).
        tripped: True once `fails` reached `max_fails` (until a reset).
        last_fail_at: the last failure's timestamp as written, or None.
        signal: the CIRCUIT_BREAK signal this call wrote, if any.
    """

    sess_id: str
    fails: int
    max_fails: int
    tripped: bool
    last_fail_at: str | None
    signal: str | None = None

    _json_names: ClassVar[Mapping[str, str]] = {"max_fails": "max"}

def circuit_state(claim: Claim, max_fails: int = DEFAULT_MAX_FAILS) -> CircuitState:
    """Read a claim's `circuit:` field leniently (absent or malformed = no failures)."""
    raw = claim.data.get("circuit")
    circuit: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    fails = circuit.get("fails")
    count = fails if isinstance(fails, int) and not isinstance(fails, bool) and fails > 0 else 0
    last = circuit.get("last_fail_at")
    tripped = circuit.get("tripped") is True or count >= max_fails
    return CircuitState(claim.sess_id, count, max_fails, tripped, str(last) if last else None)

def _breaker_destination(snapshot: BrainSnapshot, claim: Claim) -> str:
    """The parent, else the tree's root (for a root claim, the claim itself)."""
    return claim.parent or snapshot.resolve_destination(claim, "pilote")

def stage_fail(cs: ChangeSet, sess_id: str, max_fails: int = DEFAULT_MAX_FAILS) -> CircuitState:
    """Record one failure; at `max_fails` trip the breaker and send CIRCUIT_BREAK once (SPEC 9).

    Raises:
        InvalidData / NotFound: bad or unknown claim (65 / 66).
        TransitionRefused: the claim is terminal (12).
    """
    from brain_tui.core.records.changes import flow_map
    from brain_tui.core.rules.claims import require_claim

    claim = require_claim(cs.snapshot, sess_id)
    if claim.is_terminal:
        raise TransitionRefused(f"cannot record a failure on {sess_id}: it is {claim.status}")
    before = circuit_state(claim, max_fails)
    raw = claim.data.get("circuit")
    was_tripped = isinstance(raw, Mapping) and raw.get("tripped") is True
    fails = before.fails + 1
    now = cs.ts()
    fields: dict[str, Any] = {"fails": fails, "last_fail_at": now}
    signal = None
    tripped = fails >= max_fails or was_tripped
    if tripped:
        fields["tripped"] = True
    if tripped and not was_tripped:
        # each trip is its own event (a reset cleared the last one): its time in the payload keeps a trip after a
        # reset from being taken for the first trip's signal still pending (SPEC 7's duplicate rule)
        dest = _breaker_destination(cs.snapshot, claim)
        signal = cs.add_signal(
            sess_id, dest, "CIRCUIT_BREAK",
            f"circuit breaker tripped at {now}: {fails} consecutive failures (max {max_fails}) — "
            f"{sess_id} stopped; `bsi preflight reset {sess_id}` after fixing the cause",
            claim.scope_text,
        )
    cs.update_claim(sess_id, {"circuit": flow_map(fields)})
    cs.message = f"bsi: circuit fail {sess_id}"
    return CircuitState(sess_id, fails, max_fails, tripped, now, signal)

def stage_reset(cs: ChangeSet, sess_id: str, max_fails: int = DEFAULT_MAX_FAILS) -> CircuitState:
    """Clear a claim's breaker: `circuit: {fails: 0, last_fail_at: null}`.

    Raises:
        InvalidData / NotFound: bad or unknown claim (65 / 66).
        TransitionRefused: the claim is terminal (12): a finished record is not rewritten.
    """
    from brain_tui.core.records.changes import flow_map
    from brain_tui.core.rules.claims import require_claim

    claim = require_claim(cs.snapshot, sess_id)
    if claim.is_terminal:
        raise TransitionRefused(f"cannot reset the circuit breaker of {sess_id}: it is {claim.status}")
    cs.update_claim(sess_id, {"circuit": flow_map({"fails": 0, "last_fail_at": None})})
    cs.message = f"bsi: circuit reset {sess_id}"
    return CircuitState(sess_id, 0, max_fails, False, None)
