"""Conflicts: which blocking claims a new scope would meet (SPEC 5.3).

A claim blocks while open, waiting for a human, paused or stale (search
claims never block). The check runs through a `ScopeIndex` over the blocking
claims, built once per snapshot; the parent's whole chain is exempt
(delegation to a satellite is not a conflict).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brain_tui.core.effective import delegating_chain
from brain_tui.core.model import BrainSnapshot
from brain_tui.core.scope import ScopeEntry
from brain_tui.core.scope_index import ScopeIndex


@dataclass(frozen=True)
class Conflict:
    """One blocking claim a new scope would meet."""

    sess_id: str
    instance: str
    scope: str
    status: str
    overlap: str

    def as_dict(self) -> dict[str, str]:
        """JSON shape of SPEC 19."""
        return {
            "sess_id": self.sess_id,
            "instance": self.instance,
            "scope": self.scope,
            "status": self.status,
            "overlap": self.overlap,
        }

    def describe(self) -> str:
        """One line for stderr."""
        holder = self.instance or "unknown instance"
        return f"{self.sess_id} ({holder}) holds {self.scope} [{self.status}, {self.overlap}]"

def blocking_index(snapshot: BrainSnapshot) -> ScopeIndex:
    """A ScopeIndex over every blocking claim of the snapshot (search claims never block)."""
    index = ScopeIndex()
    for claim in snapshot.claims:
        if claim.is_blocking and claim.scope:
            index.add(claim.sess_id, claim.scope)
    return index

def find_conflicts(
    snapshot: BrainSnapshot,
    entries: Sequence[ScopeEntry],
    *,
    parent: str | None = None,
    satellite_type: str | None = None,
    exclude: str | None = None,
    index: ScopeIndex | None = None,
) -> list[Conflict]:
    """The blocking claims a claim on `entries` would conflict with (SPEC 5.3).

    Args:
        entries: the scope of the would-be claim.
        parent: its parent; its ancestor chain is exempt (delegation) up to the first
            ancestor that is not effectively open (`delegating_chain`).
        satellite_type: ``search`` never conflicts.
        exclude: a claim ID to ignore (the claim itself, when re-checking).
        index: a prebuilt `blocking_index`; by default the snapshot's own, built once per snapshot.
    """
    if satellite_type == "search":
        return []
    if index is None:  # not `or`: an empty index is falsy
        # Memoised on the (immutable) snapshot like a cached_property, so repeated checks never rebuild it.
        index = snapshot.__dict__.get("_blocking_index")
        if index is None:
            index = snapshot.__dict__["_blocking_index"] = blocking_index(snapshot)
    exempt: set[str] = set()
    if exclude:
        exempt.add(exclude)
        exempt.update(c.sess_id for c in snapshot.descendants(exclude))
    if parent:
        exempt.update(delegating_chain(snapshot, parent))
    conflicts = []
    for owner, overlap in index.conflicts_with(entries):
        if owner in exempt:
            continue
        claim = snapshot.claim(owner)
        if claim is None:
            continue
        conflicts.append(Conflict(owner, claim.instance, claim.scope_text or "—", claim.status, overlap))
    return conflicts

def format_scope_text(entries: Sequence[ScopeEntry]) -> str:
    """Scope entries as one display string."""
    return " ".join(str(e) for e in entries)


def chain_complete(snapshot: BrainSnapshot, sess_id: str) -> bool:
    """True when `sess_id` and every ancestor it names are in `snapshot` (a cycle ends the chain)."""
    current = snapshot.claim(sess_id)
    seen = {sess_id}
    while current is not None:
        if not current.parent or current.parent in seen:
            return True
        seen.add(current.parent)
        current = snapshot.claim(current.parent)
    return False
