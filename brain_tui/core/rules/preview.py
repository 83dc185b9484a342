"""Dry runs: what an action would do, decided by the very rule the action runs (nothing is written).

A front-end shows what a pause, resume, abort, approve, reject or release will
touch before a human confirms. Rather than re-implement the cascade rules, the
preview runs the protocol function on a throw-away ChangeSet over the snapshot
already in memory and discards what it staged. `Brain.preview` and
`Brain.preview_open` are the facade's doors to it.
"""

from __future__ import annotations

from collections.abc import Callable

from brain_tui.core.errors import BsiError
from brain_tui.core.record import field, record
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.rules import claims, gates

PREVIEW_ACTIONS = ("pause", "resume", "abort", "approve", "reject", "release", "close")

_ACTIONS: dict[str, Callable[[ChangeSet, str], gates.GateOutcome | gates.Cascade | None]] = {
    "pause": lambda cs, sid: gates.gate_pause(cs, sid, "preview", ""),
    "resume": lambda cs, sid: gates.gate_resume(cs, sid, "preview", ""),
    "abort": lambda cs, sid: gates.gate_abort(cs, sid, "preview", "preview"),
    "approve": lambda cs, sid: gates.gate_approve(cs, sid, "preview", ""),
    "reject": lambda cs, sid: gates.gate_reject(cs, sid, "preview", "preview"),
    "release": lambda cs, sid: claims.release_claim(cs, sid, "preview", "preview"),
    # a close's transition only: its tier's requirements (result, tests) are what the close form asks
    "close": lambda cs, sid: claims.check_closable(cs.snapshot, sid),
}


@record
class Preview:
    """What the core would do.

    Attributes:
        allowed: False when the core refuses (then `refusal` holds its message).
        status: the claim's status after the action ("" when refused, and for a close: its form decides).
        touched: IDs of the descendants a cascade would touch.
        signals: number of signals the action would send.
        refusal: the core's message when refused.
        expires_at: the new expiry an approval gives an expired gate ("" when it renews nothing).
    """

    allowed: bool
    status: str = ""
    touched: tuple[str, ...] = field(default_factory=tuple)
    signals: int = 0
    refusal: str = ""
    expires_at: str = ""


def preview(snapshot: BrainSnapshot, action: str, sess_id: str) -> Preview:
    """Run `action` (one of `PREVIEW_ACTIONS`) on `sess_id` against `snapshot` without writing anything.

    A refusal is a Preview carrying the core's message; an unknown action raises ValueError (a programming error).
    """
    if action not in _ACTIONS:
        raise ValueError(f"no preview for {action!r}: one of {', '.join(PREVIEW_ACTIONS)}")
    cs = ChangeSet(snapshot)
    try:
        outcome = _ACTIONS[action](cs, sess_id)
    except BsiError as exc:
        return Preview(False, refusal=exc.message)
    except OSError as exc:
        return Preview(False, refusal=f"{exc.__class__.__name__}: {exc}")
    if outcome is None:  # a release, or a close whose form is still to be filled (its status depends on it)
        return Preview(True, status="released" if action == "release" else "", signals=len(cs.signals))
    touched = outcome.touched if isinstance(outcome, gates.Cascade) else ()
    expires_at = outcome.expires_at or "" if isinstance(outcome, gates.GateOutcome) else ""
    return Preview(True, status=outcome.status, touched=touched, signals=len(cs.signals), expires_at=expires_at)
