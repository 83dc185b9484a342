"""The scope index: a path trie over blocking claims' scopes, answering conflicts without a scan (SPEC 5.2).

`ScopeIndex` gives, for a scope, every owner whose scope intersects it and how — the same answer as
`scope.scopes_overlap` against each owner. The trie is keyed by the components of :attr:`ScopeEntry.key` (NFC,
case-folded, never the spelling), so ``TODO.md`` and ``todo.md`` meet on one node, as the pairwise rule says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from brain_tui.core.paths.scope import (
    DIR,
    DIRECT,
    FILE,
    GLOBAL,
    PARENT_CHILD,
    SECTION_OVERLAP,
    ScopeEntry,
)
from brain_tui.core.record import field, record

__all__ = ["ScopeIndex"]


@record(frozen=False, eq=False)
class _Node:
    """One trie node: the entries whose path ends here, and the children.

    Each mapping goes from owner to the smallest index of that entry in the owner's scope (used to reproduce the
    "first overlapping pair" rule).
    """

    children: dict[str, _Node] = field(default_factory=dict)
    dirs: dict[str, int] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)
    sections: dict[str, dict[str, int]] = field(default_factory=dict)

    def is_empty(self) -> bool:
        """True when the node has no entry and no child (it can be pruned)."""
        return not (self.children or self.dirs or self.files or self.sections)

    def own_hits(self) -> Iterator[tuple[str, int]]:
        """Every ``(owner, index)`` of the entries whose path ends on this node: dirs, files and sections."""
        yield from self.dirs.items()
        yield from self.files.items()
        for owners in self.sections.values():
            yield from owners.items()

    def subtree_hits(self) -> Iterator[tuple[str, int]]:
        """Every ``(owner, index)`` held strictly below this node."""
        stack = list(self.children.values())
        while stack:
            node = stack.pop()
            yield from node.own_hits()
            stack.extend(node.children.values())


class ScopeIndex:
    """Path trie over blocking claims' scope entries; answers conflicts without scanning every claim.

    Owners (claim IDs) are added with their entries. Globals are kept apart; every other entry sits on the trie node
    of its path. A query walks the path components of each of its entries (ancestor nodes hold the entries that
    contain it — a file with something below it is a folder — the last node holds equal files, dirs and sections);
    every query also visits the subtree below it. The result equals :func:`scopes_overlap` against every owner,
    overlap kind included.
    """

    def __init__(self) -> None:
        """Create an empty index."""
        self._root = _Node()
        self._globals: dict[str, int] = {}
        self._owners: dict[str, tuple[ScopeEntry, ...]] = {}

    def __len__(self) -> int:
        """How many owners were added and not removed."""
        return len(self._owners)

    def __contains__(self, owner: object) -> bool:
        """True when the owner was added and not removed."""
        return owner in self._owners

    def add(self, owner: str, entries: Sequence[ScopeEntry]) -> None:
        """Add (or replace) an owner's (a claim ID, or any unique name) scope entries."""
        if owner in self._owners:
            self.remove(owner)
        stored = tuple(entries)
        self._owners[owner] = stored
        for index, entry in enumerate(stored):
            if entry.kind == GLOBAL:
                self._globals.setdefault(owner, index)
                continue
            node = self._root
            for part in entry.key.split("/"):
                node = node.children.setdefault(part, _Node())
            if entry.kind == DIR:
                node.dirs.setdefault(owner, index)
            elif entry.kind == FILE:
                node.files.setdefault(owner, index)
            else:
                node.sections.setdefault(entry.section_key, {}).setdefault(owner, index)

    def remove(self, owner: str) -> None:
        """Remove an owner given to :meth:`add` and all its entries; unknown owners are ignored."""
        stored = self._owners.pop(owner, None)
        if stored is None:
            return
        self._globals.pop(owner, None)
        for entry in stored:
            if entry.kind == GLOBAL:
                continue
            trail: list[tuple[_Node, str]] = []
            node = self._root
            for part in entry.key.split("/"):
                child = node.children.get(part)
                if child is None:
                    break
                trail.append((node, part))
                node = child
            else:
                self._discard(node, owner, entry)
                self._prune(trail)

    @staticmethod
    def _discard(node: _Node, owner: str, entry: ScopeEntry) -> None:
        """Drop one owner's dir, file or section entry from the node of its path."""
        if entry.kind == DIR:
            node.dirs.pop(owner, None)
        elif entry.kind == FILE:
            node.files.pop(owner, None)
        else:
            owners = node.sections.get(entry.section_key)
            if owners is not None:
                owners.pop(owner, None)
                if not owners:
                    del node.sections[entry.section_key]

    @staticmethod
    def _prune(trail: list[tuple[_Node, str]]) -> None:
        """Delete the now-empty nodes at the end of a walked path (``(parent, component)`` pairs from the root down),
        deepest first."""
        for parent, part in reversed(trail):
            if not parent.children[part].is_empty():
                break
            del parent.children[part]

    def _hits(self, query: ScopeEntry) -> dict[str, tuple[int, str]]:
        """The owners one query entry intersects: for each, ``(smallest entry index, overlap kind)``."""
        hits: dict[str, tuple[int, str]] = {}

        def hit(owner: str, index: int, kind: str) -> None:
            previous = hits.get(owner)
            if previous is None or index < previous[0]:
                hits[owner] = (index, kind)

        if query.kind == GLOBAL:
            for owner, stored in self._owners.items():
                if stored:
                    hits[owner] = (0, DIRECT if stored[0].kind == GLOBAL else PARENT_CHILD)
            return hits

        for owner, index in self._globals.items():
            hit(owner, index, PARENT_CHILD)

        parts = query.key.split("/")
        node = self._root
        last = len(parts) - 1
        for depth, part in enumerate(parts):
            found = node.children.get(part)
            if found is None:
                return hits
            node = found
            if depth < last:  # every entry on an ancestor holds the query (a file there is a folder)
                for owner, index in node.own_hits():
                    hit(owner, index, PARENT_CHILD)
                continue
            self._hits_at(node, query, hit)
        return hits

    @staticmethod
    def _hits_at(node: _Node, query: ScopeEntry, hit: Callable[[str, int, str], None]) -> None:
        """Record, through ``hit(owner, index, kind)``, the hits on the node whose path equals the path of the dir,
        file or section ``query``."""
        if query.kind in (DIR, FILE):
            for owner, index in (*node.dirs.items(), *node.files.items()):
                hit(owner, index, DIRECT)
            # a section of this file: the folder holds it (parent/child), the file meets it (section overlap)
            kind = PARENT_CHILD if query.kind == DIR else SECTION_OVERLAP
            for owners in node.sections.values():
                for owner, index in owners.items():
                    hit(owner, index, kind)
        else:
            for owner, index in node.dirs.items():
                hit(owner, index, PARENT_CHILD)
            for owner, index in (*node.files.items(), *node.sections.get(query.section_key, {}).items()):
                hit(owner, index, SECTION_OVERLAP)
        # Everything below: a dir holds it, and a file or section with entries below its path is a folder.
        for owner, index in node.subtree_hits():
            hit(owner, index, PARENT_CHILD)

    def conflicts_with(self, entries: Sequence[ScopeEntry]) -> list[tuple[str, str]]:
        """The owners whose entries intersect the given scope (a new claim's, say): ``[(owner, overlap_kind)]``, one per
        owner, sorted by owner; the kind is the one :func:`scopes_overlap` (entries, owner's entries) gives."""
        result: dict[str, str] = {}
        for query in entries:
            for owner, (_index, kind) in self._hits(query).items():
                result.setdefault(owner, kind)
        return sorted(result.items())
