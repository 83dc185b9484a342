"""For the scope tests: short entry constructors (``D("agents")``, ``F("a.md")``, ``S("a.md", "Intro")``) and the
pairwise rule the ScopeIndex must agree with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from brain_tui.core.paths.scope import ScopeEntry, scopes_overlap


def D(path: str) -> ScopeEntry:  # noqa: N802 - reads like the kind it builds
    """A dir entry."""
    return ScopeEntry("dir", path)


def F(path: str) -> ScopeEntry:  # noqa: N802
    """A file entry."""
    return ScopeEntry("file", path)


def S(path: str, title: str) -> ScopeEntry:  # noqa: N802
    """A section entry."""
    return ScopeEntry("section", path, title)


def pairwise_conflicts(owners: Mapping[str, Sequence[ScopeEntry]],
                       query: Sequence[ScopeEntry]) -> list[tuple[str, str]]:
    """``(owner, overlap kind)`` of every owner whose entries meet `query`, by the pairwise rule, sorted."""
    found = []
    for owner, entries in owners.items():
        kind = scopes_overlap(query, entries)
        if kind is not None:
            found.append((owner, kind))
    return sorted(found)
