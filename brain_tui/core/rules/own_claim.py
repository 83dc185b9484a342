"""Which claim an agent means when it names none (SPEC 20.1): the newest live claim it speaks for.

Every front-end of one agent answers alike: two `bsi mcp` servers of one agent process (a client may start two)
name the same claim, whichever of them opened it, so a `claim_close` without an ID closes the same claim through
either. Newest is by opening time, then by ID (opens in the same second), never by which server opened it.
"""

from __future__ import annotations

from collections.abc import Collection

from brain_tui.core.records.model import BrainSnapshot, Claim


def own_claim(snapshot: BrainSnapshot, candidates: Collection[str]) -> str | None:
    """The newest live claim of `candidates` in `snapshot`; else the newest of them it holds at all (a finished one:
    its refusal names it); else the greatest ID of `candidates`; None when there are none."""
    held = [claim for sess_id in candidates if (claim := snapshot.claim(sess_id)) is not None]
    live = [claim for claim in held if not claim.is_terminal]
    for pool in (live, held):
        if pool:
            return max(pool, key=_age).sess_id
    return max(candidates, default=None)


def _age(claim: Claim) -> tuple[float, str]:
    """The order of opening: a claim whose opening time does not read counts as the oldest."""
    return (claim.opened_at.timestamp() if claim.opened_at is not None else float("-inf"), claim.sess_id)
