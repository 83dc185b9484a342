"""The claims of a session a human holds (SPEC 6.3, 21.2, 21.3): paused, waiting at a gate, also stale while so,
or under a paused or failed ancestor. Such a claim stops its session's shell, and its session's writes into its
scope through any other claim the session holds (a domain above a paused leaf): the human stopped that session."""

from __future__ import annotations

from collections.abc import Sequence

from brain_tui.core.errors import BsiError
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.rules.conflicts import find_conflicts
from brain_tui.core.rules.effective import is_held

Refusal = tuple[str, BsiError]


def refusals(snapshot: BrainSnapshot, bound: Sequence[str]) -> tuple[list[Refusal], list[Refusal], bool]:
    """``(held, refused, acts)``: each of `bound` a human holds with the claim check's refusal of it (SPEC 10, code
    4), each of `bound` the check refuses, and whether one of `bound` may act now. A claim `snapshot` does not hold
    (finished) holds nothing back."""
    from brain_tui.core.rules import preflight

    held: list[Refusal] = []
    refused: list[Refusal] = []
    for sess_id in bound:
        try:
            preflight.check_claim(snapshot, sess_id)
        except BsiError as exc:
            refused.append((sess_id, exc))
            claim = snapshot.claim(sess_id)
            if claim is not None and (exc.payload.get("blocked_by") or is_held(claim, snapshot.now)):
                held.append((sess_id, exc))
    return held, refused, len(refused) < len(bound)


def holding(snapshot: BrainSnapshot, held: list[Refusal], file: str, root: str) -> Refusal | None:
    """The first of `held` whose scope holds `file` (brain-relative; a folder ends in ``/``), else None."""
    from brain_tui.core.errors import InvalidData
    from brain_tui.core.paths.scope import parse_scope

    if not held:
        return None
    try:
        entries = parse_scope([file], root, typed=False)  # a path written, not a scope typed
    except InvalidData:
        return None
    holders = {c.sess_id for c in find_conflicts(snapshot, entries)}
    return next((item for item in held if item[0] in holders), None)
