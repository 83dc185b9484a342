"""Previews of an action, decided by the core itself on a throw-away ChangeSet (nothing is written).

The cockpit shows what a pause, resume, abort or approve will touch before the
human confirms. Rather than re-implement the cascade rules, it runs the very
protocol function the action will run, on the current snapshot, and discards
the staged change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from brain_tui.core import protocol
from brain_tui.core.changes import ChangeSet
from brain_tui.core.errors import BsiError
from brain_tui.core.model import BrainSnapshot

_ACTIONS: dict[str, Callable[[ChangeSet, str], Any]] = {
    "pause": lambda cs, sid: protocol.gate_pause(cs, sid, "preview", ""),
    "resume": lambda cs, sid: protocol.gate_resume(cs, sid, "preview", ""),
    "abort": lambda cs, sid: protocol.gate_abort(cs, sid, "preview", "preview"),
    "approve": lambda cs, sid: protocol.gate_approve(cs, sid, "preview", ""),
    "reject": lambda cs, sid: protocol.gate_reject(cs, sid, "preview", "preview"),
    "release": lambda cs, sid: protocol.release_claim(cs, sid, "preview", "preview"),
}


@dataclass(frozen=True)
class Preview:
    """What the core would do.

    Attributes:
        allowed: False when the core refuses (then `refusal` holds its message).
        result: what the protocol function returned (touched IDs, new status…).
        touched: IDs of the descendants the cascade would touch (list results only).
        signals: number of signals the action would send.
        refusal: the core's message when refused.
    """

    allowed: bool
    result: Any = None
    touched: tuple[str, ...] = field(default_factory=tuple)
    signals: int = 0
    refusal: str = ""


def preview(snapshot: BrainSnapshot, action: str, sess_id: str) -> Preview:
    """Run `action` on `sess_id` against `snapshot` without writing anything.

    Args:
        snapshot: the brain as shown.
        action: pause, resume, abort, approve, reject or release.
        sess_id: the claim.

    Returns:
        A Preview (refusals carry the core's message).
    """
    cs = ChangeSet(snapshot)
    try:
        result = _ACTIONS[action](cs, sess_id)
    except BsiError as exc:
        return Preview(False, refusal=exc.message)
    except OSError as exc:
        return Preview(False, refusal=f"{exc.__class__.__name__}: {exc}")
    touched = tuple(result) if isinstance(result, list) else ()
    return Preview(True, result=result, touched=touched, signals=len(cs.signals))
