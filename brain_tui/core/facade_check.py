"""`Brain.check_scope` and `Brain.preview_open`: what an open would meet, asked without opening anything (SPEC 5.3).

Both judge as the open judges (`conflicts.as_judged`, the rule of its last door): in an agent's process at a clock
behind the machine's, a delegation through an ancestor stale by the machine's clock is no delegation for a claim
that would still be live then (its TTL: the one asked, else the brain's default, as `claim open` takes it).
"""

from __future__ import annotations

from brain_tui.core.clock import MAX_TTL
from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.core.rules import conflicts

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import timedelta

    from brain_tui.core.brain import Brain
    from brain_tui.core.paths.scope import ScopeEntry
    from brain_tui.core.paths.scope_index import ScopeIndex
    from brain_tui.core.records.model import BrainSnapshot
    from brain_tui.core.rules.claims import OpenRequest
    from brain_tui.core.rules.conflicts import Conflict


def check_scope(brain: Brain, entries: Sequence[ScopeEntry], parent: str | None, satellite_type: str | None,
                ttl: timedelta | None, *, memo: bool) -> list[Conflict]:
    """Conflicts a claim on `entries` (under `parent`, for `ttl`: None the brain's default) would meet.

    Reads only the claims that can block (closed history is skipped through the parse cache), from
    `brain.blocking` when `memo` (a long-lived process: `bsi mcp`), unless the parent's chain passes through
    a claim that cannot block: then the whole brain, so the delegation exemption is exact.

    Raises:
        TransitionRefused: the acting agent's session a human holds paused, where its open is refused (12,
            `held.require_none_held`): a free scope would be no answer.
        NotYours: the acting agent holds neither `parent` nor an ancestor of it, where its open is refused (77).
    """
    snapshot, index = brain.blocking.current() if memo else (brain.snapshot(only_statuses=BLOCKING_STATUSES), None)
    _require_open_allowed(brain, snapshot)
    if parent is not None and not conflicts.chain_complete(snapshot, parent):
        snapshot, index = brain.store.with_chains(snapshot, (parent,)) or brain.snapshot(), None
    if parent is not None or satellite_type is not None:  # the claim rules load only to check an option
        from brain_tui.core.rules.claims import validate_check
        validate_check(snapshot, parent, satellite_type)
    if parent is not None:
        _require_delegation_allowed(brain, snapshot, parent)
    return would_meet(snapshot, entries, parent, satellite_type, ttl or brain.config.ttl_default, index)


def _require_delegation_allowed(brain: Brain, snapshot: BrainSnapshot, parent: str) -> None:
    """Refuse as the open would an acting agent that holds neither `parent` nor an ancestor of it
    (`authority.require_delegation`, 77 naming the holder): a scope free under another's claim would be no answer."""
    from brain_tui.core.rules.own_writes import writer

    acting = writer(brain.root)
    claim = snapshot.claim(parent)
    if acting.is_agent and claim is not None:
        from brain_tui.core.rules.authority import require_delegation

        require_delegation(acting, claim, snapshot)


def _require_open_allowed(brain: Brain, snapshot: BrainSnapshot) -> None:
    """Refuse as the open would for the acting agent (the one the verb runs as: `own_writes.writer`) whose session
    a human holds (`held.require_none_held` over `snapshot`, the claims that can block, as an open decides on);
    a human, nothing."""
    from brain_tui.core.rules.own_writes import writer

    acting = writer(brain.root)
    if acting.is_agent:
        from brain_tui.core.rules import held

        held.require_none_held(snapshot, acting)


def preview_open(brain: Brain, req: OpenRequest, snapshot: BrainSnapshot | None) -> list[Conflict]:
    """Dry run of `Brain.open_claim`: the request's own checks, then the conflicts it would meet (`Brain.preview_open`).

    `snapshot` is the one already in memory (the cockpit's); None, or one missing part of the parent chain (a
    partial load), reads the brain now.
    """
    from brain_tui.core.rules import claims

    claims.validate_open(snapshot if snapshot is not None else brain.snapshot(), req)
    if snapshot is None or (req.parent is not None and not conflicts.chain_complete(snapshot, req.parent)):
        return check_scope(brain, req.scope, req.parent, req.satellite_type, req.ttl, memo=False)
    return would_meet(snapshot, req.scope, req.parent, req.satellite_type, req.ttl)


def would_meet(snapshot: BrainSnapshot, entries: Sequence[ScopeEntry], parent: str | None,
               satellite_type: str | None, ttl: timedelta, index: ScopeIndex | None = None) -> list[Conflict]:
    """The conflicts a claim opened now on `entries` under `parent` for `ttl` would meet, judged as its open is."""
    from brain_tui.core.rules.effective import live_until

    expires = snapshot.now + min(ttl, MAX_TTL)

    def met(on: BrainSnapshot) -> list[Conflict]:
        return conflicts.find_conflicts(on, entries, parent=parent, satellite_type=satellite_type, index=index)

    return conflicts.as_judged(snapshot, parent, met, lambda at: live_until(expires, at))
