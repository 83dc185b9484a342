"""Scopes: parsing, normalisation, intersection and a path index (SPEC 5).

A scope is a tuple of :class:`ScopeEntry` values. Each entry is one of four levels:

* ``global`` -- the whole brain (written ``*``; also read ``/``, ``global`` and,
  when the brain has no top-level ``brain/`` folder, ``brain/``);
* ``dir`` -- a folder and everything below it (``agents/``);
* ``file`` -- one file (``todo/brain.md``);
* ``section`` -- one ``##`` section of a markdown file (``todo/brain.md#Sprint 3``).

Paths are POSIX and relative to the brain root. Conflict checks between many
claims go through :class:`ScopeIndex`, a trie keyed by path components.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from brain_tui.core.errors import InvalidData

__all__ = [
    "GLOBAL",
    "DIR",
    "FILE",
    "SECTION",
    "KINDS",
    "ScopeEntry",
    "normalize_path",
    "parse_entry",
    "parse_scope",
    "parse_scope_args",
    "nfc",
    "format_scope",
    "overlap",
    "scopes_overlap",
    "covers_file",
    "ScopeIndex",
]

GLOBAL = "global"
DIR = "dir"
FILE = "file"
SECTION = "section"
KINDS = frozenset({GLOBAL, DIR, FILE, SECTION})

DIRECT = "direct"
PARENT_CHILD = "parent/child"
SECTION_OVERLAP = "section"

# Spellings read as the whole brain (``brain/`` is handled apart: it depends on the root).
_GLOBAL_SPELLINGS = frozenset({"*", "/", "global"})
_LEGACY_BRAIN = "brain/"
# C0 controls (NUL included), DEL and C1 controls.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f]")
_SPLIT_RE = re.compile(r"[\s,]+")
_TITLE_LEAD_RE = re.compile(r"^[#\s]+")
#: An ATX closing sequence (``## Sprint 3 ##``): spaces then ``#`` marks at the end of the title.
_TITLE_CLOSING_RE = re.compile(r"\s+#+\s*$")
_SPACES_RE = re.compile(r"\s+")
#: Glob characters: a scope names folders, files and sections, never patterns.
_GLOB_CHARS = ("*", "?")
#: ``agents/*`` and ``agents/**``: what a user means is the folder.
_FOLDER_GLOB_RE = re.compile(r"/\*{1,2}$")
_SECTION_MARKERS = ("#", "\u00a7")  # '#' (also '##') and '§'
_MAX_QUOTED = 80


@dataclass(frozen=True, order=True)
class ScopeEntry:
    """One entry of a scope.

    Attributes:
        kind: ``"global"``, ``"dir"``, ``"file"`` or ``"section"``.
        path: ``""`` for global; the folder without trailing slash for dir
            (``"agents"``); the file for file and section (``"todo/brain.md"``).
        section: the section title as written, trimmed, with leading ``#`` and
            spaces stripped (``"Sprint 3"``); ``""`` unless kind is section.
    """

    kind: str
    path: str
    section: str = ""

    def __post_init__(self) -> None:
        """Check the kind.

        Raises:
            ValueError: if ``kind`` is not one of the four levels.
        """
        if self.kind not in KINDS:
            raise ValueError(f"unknown scope kind {self.kind!r}")

    @property
    def section_key(self) -> str:
        """The section title as compared: trimmed, leading ``#`` removed, casefolded.

        Returns:
            The comparison key ("" for entries that are not sections).
        """
        return _section_title(self.section).casefold()

    def __str__(self) -> str:
        """Canonical text of the entry.

        ``*`` for global, ``agents/`` for a dir, ``todo/brain.md`` for a file and
        ``todo/brain.md#Sprint 3`` for a section. A dir named ``brain`` is written
        ``./brain/`` so that it is never read back as the legacy global ``brain/``.

        Returns:
            The text that :func:`parse_entry` reads back as this entry.
        """
        if self.kind == GLOBAL:
            return "*"
        if self.kind == DIR:
            text = f"{self.path}/"
            return f"./{text}" if text == _LEGACY_BRAIN else text
        if self.kind == SECTION:
            return f"{self.path}#{self.section}"
        return self.path


class _BadPath(ValueError):
    """Internal: why a path was refused (the reason only, without the path)."""


def _quote(text: str) -> str:
    """Quote user text for a one-line error message (escaped, shortened).

    Args:
        text: the text as given.

    Returns:
        A ``repr`` of the text, cut to a reasonable length.
    """
    if len(text) > _MAX_QUOTED:
        text = text[: _MAX_QUOTED - 1] + "\u2026"
    return repr(text)


def nfc(text: str) -> str:
    """The NFC form of a text: one spelling for paths and titles written on macOS (NFD) and Linux (NFC).

    Args:
        text: any text.

    Returns:
        The text in Unicode normalisation form C.
    """
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _section_title(text: str) -> str:
    """Clean a section title: NFC, leading ``#`` marks and spaces, an ATX closing ``##``, inner runs of spaces.

    ``##  Sprint   3 ##`` and ``Sprint 3`` are one title. Idempotent, so a stored
    title and its :attr:`ScopeEntry.section_key` agree.

    Args:
        text: the raw title.

    Returns:
        The cleaned title.
    """
    title = _TITLE_LEAD_RE.sub("", nfc(text))
    title = _TITLE_CLOSING_RE.sub("", title)
    return _SPACES_RE.sub(" ", title).strip()


def _normalize(text: str) -> str:
    """Normalise a path or raise :class:`_BadPath` with the reason.

    Args:
        text: the path as written.

    Returns:
        The normalised path, keeping a trailing ``/`` when one was given.

    Raises:
        _BadPath: when the path is empty, absolute, has ``..``, a backslash,
            glob characters or control characters.
    """
    text = nfc(text.strip())
    if _CONTROL_RE.search(text):
        raise _BadPath("NUL and control characters are not allowed")
    if not text:
        raise _BadPath("the path is empty")
    if "\\" in text:
        raise _BadPath("backslashes are not allowed (paths are POSIX, use '/')")
    if text.startswith("/"):
        raise _BadPath("absolute paths are not allowed (give a path relative to the brain root)")
    parts = text.split("/")
    if ".." in parts:
        raise _BadPath("'..' is not allowed")
    if any(char in text for char in _GLOB_CHARS):
        raise _BadPath("glob characters (* ?) are not allowed: claim the folder (agents/), the files, or * for all")
    trailing = text.endswith("/") or parts[-1] == "."
    kept = [part for part in parts if part not in ("", ".")]
    if not kept:
        raise _BadPath("the path is empty")
    return "/".join(kept) + ("/" if trailing else "")


def normalize_path(text: str) -> str:
    """Normalise a POSIX path relative to the brain root.

    Strips surrounding spaces, leading ``./`` (repeatedly) and inner ``/./``,
    and collapses ``//``. A trailing ``/`` is kept when given. The result is in
    NFC (SPEC 5.1: one spelling whatever the machine wrote).

    Args:
        text: the path as written.

    Returns:
        The normalised path, e.g. ``"agents/x.md"`` or ``"agents/"``.

    Raises:
        InvalidData: for an empty or absolute path, a ``..`` component, a
            backslash, a glob character, NUL, C0/C1 control characters or DEL.
    """
    try:
        return _normalize(text)
    except _BadPath as exc:
        raise InvalidData(f"invalid path {_quote(text)}: {exc}") from None


def _split_section(text: str) -> tuple[str, str] | None:
    """Split ``path<marker>title`` at the earliest section marker.

    Args:
        text: one scope entry as written (already trimmed).

    Returns:
        ``(path, raw_title)`` or None when the text has no marker.
    """
    positions = [pos for pos in (text.find(marker) for marker in _SECTION_MARKERS) if pos >= 0]
    if not positions:
        return None
    pos = min(positions)
    return text[:pos], text[pos + 1 :]


def _has_brain_folder(root: str | os.PathLike[str] | None) -> bool:
    """Tell whether the brain root has a top-level ``brain`` folder.

    Args:
        root: the brain root, or None when unknown.

    Returns:
        True only when ``root/brain`` is an existing folder.
    """
    return root is not None and Path(root, "brain").is_dir()


def _is_folder(root: str | os.PathLike[str] | None, path: str) -> bool:
    """Tell whether ``path`` names an existing folder under ``root``.

    Args:
        root: the brain root, or None when unknown.
        path: a normalised relative path without trailing slash.

    Returns:
        True when the folder exists (False when root is None or on OS errors).
    """
    if root is None:
        return False
    try:
        return os.path.isdir(os.path.join(root, path))  # not pathlib: called per claim on a cold start
    except OSError:
        return False


def parse_entry(text: str, root: str | os.PathLike[str] | None = None) -> ScopeEntry:
    """Parse one scope entry (SPEC 5.1).

    Args:
        text: the entry as written: ``*``, ``/``, ``global``, ``brain/``,
            ``agents/``, ``todo/brain.md``, ``todo/brain.md#Sprint 3``,
            ``todo/brain.md ## Sprint 3`` or ``todo/brain.md § Sprint 3``.
        root: the brain root, used to tell folders from files and to decide
            whether ``brain/`` is the legacy global spelling. None when unknown:
            then only a trailing slash makes a dir and ``brain/`` is global.

    Returns:
        The parsed entry.

    Raises:
        InvalidData: with a one-line message saying what and why (bad path,
            empty section title, section of a folder, not a string...).
    """
    if not isinstance(text, str):
        raise InvalidData(f"invalid scope {text!r}: expected a string, got {type(text).__name__}")

    def bad(reason: str) -> InvalidData:
        return InvalidData(f"invalid scope {_quote(text)}: {reason}")

    stripped = nfc(text.strip())
    if not stripped:
        raise bad("the scope is empty")
    if stripped in _GLOBAL_SPELLINGS:
        return ScopeEntry(GLOBAL, "")
    if stripped == _LEGACY_BRAIN and not _has_brain_folder(root):
        return ScopeEntry(GLOBAL, "")

    split = _split_section(stripped)
    if split is not None:
        raw_path, raw_title = split
        if _CONTROL_RE.search(raw_title.strip()):
            raise bad("NUL and control characters are not allowed")
        title = _section_title(raw_title)
        if not title:
            raise bad("the section title is empty")
        if not raw_path.strip():
            raise bad("a section needs a file path before the marker")
        try:
            path = _normalize(raw_path)
        except _BadPath as exc:
            raise bad(str(exc)) from None
        if path.endswith("/") or _is_folder(root, path):
            raise bad("a section must belong to a file, not a folder")
        return ScopeEntry(SECTION, path, title)

    if _FOLDER_GLOB_RE.search(stripped) and stripped.rstrip("*") != "/":
        stripped = stripped.rstrip("*")  # agents/* and agents/** mean the folder agents/
    try:
        path = _normalize(stripped)
    except _BadPath as exc:
        raise bad(str(exc)) from None
    if path.endswith("/"):
        return ScopeEntry(DIR, path.rstrip("/"))
    if _is_folder(root, path):
        return ScopeEntry(DIR, path)
    return ScopeEntry(FILE, path)


def _identity(entry: ScopeEntry) -> tuple[str, str, str]:
    """Key under which two entries are the same scope (section titles by key).

    Args:
        entry: a scope entry.

    Returns:
        ``(kind, path, section_key)``.
    """
    return (entry.kind, entry.path, entry.section_key)


def parse_scope(value: object, root: str | os.PathLike[str] | None = None) -> tuple[ScopeEntry, ...]:
    """Parse a claim's scope: a string or a list of strings (SPEC 5.1).

    A list gives one entry per item. A string containing a section marker
    (``#``, ``##``, ``§``) is one entry; any other string is split on
    whitespace and commas (legacy multi-entry form). Duplicates are removed
    (sections compared by :attr:`ScopeEntry.section_key`), first spelling and
    order kept.

    Args:
        value: the scope value as loaded from YAML or the command line.
        root: the brain root (see :func:`parse_entry`), or None.

    Returns:
        The entries, at least one.

    Raises:
        InvalidData: for an empty scope, a non-string item, a value that is
            neither a string nor a list/tuple, or any bad entry.
    """
    if isinstance(value, str):
        stripped = value.strip()
        if not stripped:
            raise InvalidData("invalid scope '': the scope is empty")
        if _split_section(stripped) is not None:
            items: list[str] = [stripped]
        else:
            items = [item for item in _SPLIT_RE.split(stripped) if item]
            if not items:
                raise InvalidData(f"invalid scope {_quote(value)}: the scope is empty")
    elif isinstance(value, (list, tuple)):
        if not value:
            raise InvalidData("invalid scope []: the scope is empty")
        items = []
        for number, item in enumerate(value, start=1):
            if not isinstance(item, str):
                raise InvalidData(f"invalid scope: item {number} is {type(item).__name__}, expected a string")
            items.append(item)
    elif value is None:
        raise InvalidData("invalid scope: the scope is missing")
    else:
        raise InvalidData(
            f"invalid scope: expected a string or a list of strings, got {type(value).__name__}"
        )

    seen: set[tuple[str, str, str]] = set()
    entries: list[ScopeEntry] = []
    for item in items:
        entry = parse_entry(item, root)
        key = _identity(entry)
        if key not in seen:
            seen.add(key)
            entries.append(entry)
    return tuple(entries)


def parse_scope_args(values: Sequence[str], root: str | os.PathLike[str] | None = None) -> tuple[ScopeEntry, ...]:
    """Parse scope values typed on a command line or in a form: each one read as a claim file's string.

    ``--scope "a/ b.md"`` is two entries, exactly as ``scope: a/ b.md`` in a claim
    file is (SPEC 5.1: whitespace and commas separate entries unless the text
    holds a section marker), so what is typed and what is read back agree.

    Args:
        values: the values, one per ``--scope``.
        root: the brain root (see :func:`parse_entry`), or None.

    Returns:
        The entries, duplicates removed, first spelling kept.

    Raises:
        InvalidData: no value, or any bad entry.
    """
    if not values:
        raise InvalidData("invalid scope []: the scope is empty")
    seen: set[tuple[str, str, str]] = set()
    entries: list[ScopeEntry] = []
    for value in values:
        if not isinstance(value, str):
            raise InvalidData(f"invalid scope {value!r}: expected a string")
        for entry in parse_scope(value, root):
            key = _identity(entry)
            if key not in seen:
                seen.add(key)
                entries.append(entry)
    return tuple(entries)


def format_scope(entries: Sequence[ScopeEntry]) -> str | list[str]:
    """Write scope entries back: a string for one entry, a list otherwise.

    A single non-section entry whose text holds whitespace or a comma is written
    as a one-item list, because as a string it would be read back as several
    entries (legacy splitting).

    Args:
        entries: the entries, at least one.

    Returns:
        ``"todo/brain.md"`` for one entry, ``["agents/", "todo/brain.md"]`` for several.

    Raises:
        InvalidData: when there is no entry.
    """
    if not entries:
        raise InvalidData("invalid scope []: the scope is empty")
    texts = [str(entry) for entry in entries]
    if len(texts) == 1:
        only = entries[0]
        if only.kind == SECTION or not _SPLIT_RE.search(texts[0]):
            return texts[0]
    return texts


def _contains(dir_path: str, path: str) -> bool:
    """Tell whether ``path`` is strictly below the folder ``dir_path``.

    Args:
        dir_path: a folder path without trailing slash.
        path: another normalised path without trailing slash.

    Returns:
        True on a path-component boundary (``agents`` contains ``agents/x.md``,
        not ``agents-old/x.md``).
    """
    return path.startswith(dir_path + "/")


def overlap(a: ScopeEntry, b: ScopeEntry) -> str | None:
    """Tell whether two entries intersect, and how (SPEC 5.2).

    * ``"direct"``: both global, the same dir, the same file (a dir and a file
      with the same path are also treated as direct: one of the two spellings
      is wrong and the safe answer is a conflict);
    * ``"parent/child"``: one side is global (not both), or a dir contains the
      other entry (a dir also contains the sections of a file of the same path);
    * ``"section"``: a file and a section of it, or the same section (titles
      compared by :attr:`ScopeEntry.section_key`).

    Two different sections of one file do not intersect. The relation is symmetric.

    Args:
        a: one entry.
        b: another entry.

    Returns:
        The overlap kind, or None when the entries do not intersect.
    """
    if a.kind == GLOBAL or b.kind == GLOBAL:
        return DIRECT if a.kind == b.kind else PARENT_CHILD
    if a.kind == DIR and b.kind == DIR:
        if a.path == b.path:
            return DIRECT
        if _contains(a.path, b.path) or _contains(b.path, a.path):
            return PARENT_CHILD
        return None
    if a.kind == DIR or b.kind == DIR:
        folder, other = (a, b) if a.kind == DIR else (b, a)
        if other.path == folder.path:
            return DIRECT if other.kind == FILE else PARENT_CHILD
        return PARENT_CHILD if _contains(folder.path, other.path) else None
    if a.path != b.path:
        return None
    if a.kind == FILE and b.kind == FILE:
        return DIRECT
    if a.kind == SECTION and b.kind == SECTION:
        return SECTION_OVERLAP if a.section_key == b.section_key else None
    return SECTION_OVERLAP


def scopes_overlap(a: Sequence[ScopeEntry], b: Sequence[ScopeEntry]) -> str | None:
    """Tell whether two scopes intersect: the first overlapping pair decides.

    Pairs are tried in order: every entry of ``b`` against ``a[0]``, then ``a[1]``...

    Args:
        a: entries of one claim.
        b: entries of another claim.

    Returns:
        The overlap kind of the first intersecting pair, or None.
    """
    for left in a:
        for right in b:
            kind = overlap(left, right)
            if kind is not None:
                return kind
    return None


def covers_file(entries: Sequence[ScopeEntry], file_path: str) -> bool:
    """Tell whether a file lies inside a scope (preflight, SPEC 10).

    Global covers every file; a dir covers files below it; a file covers itself;
    a section covers its whole file.

    Args:
        entries: the claim's scope entries.
        file_path: the file as given; it is normalised first. A path that does
            not normalise (``..``, absolute, control characters...) is never covered.

    Returns:
        True when some entry covers the file.
    """
    try:
        path = _normalize(file_path).rstrip("/")
    except _BadPath:
        return False
    for entry in entries:
        if entry.kind == GLOBAL:
            return True
        if entry.kind == DIR:
            if _contains(entry.path, path):
                return True
        elif entry.path == path:
            return True
    return False


@dataclass(eq=False)
class _Node:
    """One trie node: the entries whose path ends here, and the children.

    Each mapping goes from owner to the smallest index of that entry in the
    owner's scope (used to reproduce the "first overlapping pair" rule).
    """

    children: dict[str, _Node] = field(default_factory=dict)
    dirs: dict[str, int] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)
    sections: dict[str, dict[str, int]] = field(default_factory=dict)

    def is_empty(self) -> bool:
        """Tell whether the node holds nothing and can be pruned.

        Returns:
            True when the node has no entry and no child.
        """
        return not (self.children or self.dirs or self.files or self.sections)

    def subtree_hits(self) -> Iterator[tuple[str, int]]:
        """Yield every ``(owner, index)`` held strictly below this node.

        Returns:
            An iterator over the hits of all descendants.
        """
        stack = list(self.children.values())
        while stack:
            node = stack.pop()
            yield from node.dirs.items()
            yield from node.files.items()
            for owners in node.sections.values():
                yield from owners.items()
            stack.extend(node.children.values())


def _components(path: str) -> list[str]:
    """Split a normalised path into components.

    Args:
        path: a normalised relative path without trailing slash.

    Returns:
        Its components.
    """
    return path.split("/")


class ScopeIndex:
    """Path trie over blocking claims' scope entries; answers conflicts without scanning every claim.

    Owners (claim IDs) are added with their entries. Globals are kept apart;
    every other entry sits on the trie node of its path. A query walks the
    path components of each of its entries (ancestor nodes hold the dirs that
    contain it, the last node holds equal files, dirs and sections); a dir
    query also visits the subtree below it. The result equals
    :func:`scopes_overlap` against every owner, overlap kind included.
    """

    def __init__(self) -> None:
        """Create an empty index."""
        self._root = _Node()
        self._globals: dict[str, int] = {}
        self._owners: dict[str, tuple[ScopeEntry, ...]] = {}

    def __len__(self) -> int:
        """Number of owners in the index.

        Returns:
            How many owners were added and not removed.
        """
        return len(self._owners)

    def __contains__(self, owner: object) -> bool:
        """Tell whether an owner is in the index.

        Args:
            owner: an owner name.

        Returns:
            True when the owner was added and not removed.
        """
        return owner in self._owners

    def add(self, owner: str, entries: Sequence[ScopeEntry]) -> None:
        """Add (or replace) an owner's entries.

        Args:
            owner: the claim ID (or any unique name).
            entries: its scope entries.
        """
        if owner in self._owners:
            self.remove(owner)
        stored = tuple(entries)
        self._owners[owner] = stored
        for index, entry in enumerate(stored):
            if entry.kind == GLOBAL:
                self._globals.setdefault(owner, index)
                continue
            node = self._root
            for part in _components(entry.path):
                node = node.children.setdefault(part, _Node())
            if entry.kind == DIR:
                node.dirs.setdefault(owner, index)
            elif entry.kind == FILE:
                node.files.setdefault(owner, index)
            else:
                node.sections.setdefault(entry.section_key, {}).setdefault(owner, index)

    def remove(self, owner: str) -> None:
        """Remove an owner and all its entries; unknown owners are ignored.

        Args:
            owner: the owner given to :meth:`add`.
        """
        stored = self._owners.pop(owner, None)
        if stored is None:
            return
        self._globals.pop(owner, None)
        for entry in stored:
            if entry.kind == GLOBAL:
                continue
            trail: list[tuple[_Node, str]] = []
            node = self._root
            for part in _components(entry.path):
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
        """Drop one owner's entry from the node of its path.

        Args:
            node: the node of ``entry.path``.
            owner: the owner.
            entry: a dir, file or section entry.
        """
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
        """Delete the now-empty nodes at the end of a walked path, deepest first.

        Args:
            trail: ``(parent, component)`` pairs from the root down to the node.
        """
        for parent, part in reversed(trail):
            if not parent.children[part].is_empty():
                break
            del parent.children[part]

    def _hits(self, query: ScopeEntry) -> dict[str, tuple[int, str]]:
        """Find the owners one query entry intersects.

        Args:
            query: one entry.

        Returns:
            For each owner hit, ``(smallest entry index, overlap kind)``.
        """
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

        parts = _components(query.path)
        node = self._root
        last = len(parts) - 1
        for depth, part in enumerate(parts):
            found = node.children.get(part)
            if found is None:
                return hits
            node = found
            if depth < last:
                for owner, index in node.dirs.items():
                    hit(owner, index, PARENT_CHILD)
                continue
            self._hits_at(node, query, hit)
        return hits

    @staticmethod
    def _hits_at(node: _Node, query: ScopeEntry, hit: Callable[[str, int, str], None]) -> None:
        """Record the hits on the node whose path equals the query's path.

        Args:
            node: the node of the query's path.
            query: a dir, file or section entry.
            hit: callback ``hit(owner, index, kind)``.
        """
        if query.kind == DIR:
            for owner, index in node.dirs.items():
                hit(owner, index, DIRECT)
            for owner, index in node.files.items():
                hit(owner, index, DIRECT)
            for owners in node.sections.values():
                for owner, index in owners.items():
                    hit(owner, index, PARENT_CHILD)
            for owner, index in node.subtree_hits():
                hit(owner, index, PARENT_CHILD)
        elif query.kind == FILE:
            for owner, index in node.dirs.items():
                hit(owner, index, DIRECT)
            for owner, index in node.files.items():
                hit(owner, index, DIRECT)
            for owners in node.sections.values():
                for owner, index in owners.items():
                    hit(owner, index, SECTION_OVERLAP)
        else:
            for owner, index in node.dirs.items():
                hit(owner, index, PARENT_CHILD)
            for owner, index in node.files.items():
                hit(owner, index, SECTION_OVERLAP)
            for owner, index in node.sections.get(query.section_key, {}).items():
                hit(owner, index, SECTION_OVERLAP)

    def conflicts_with(self, entries: Sequence[ScopeEntry]) -> list[tuple[str, str]]:
        """List the owners whose entries intersect the given scope.

        Args:
            entries: the scope to check (for instance a new claim's).

        Returns:
            ``[(owner, overlap_kind)]``, one per owner, sorted by owner; the
            kind is the one :func:`scopes_overlap` (entries, owner's entries) gives.
        """
        result: dict[str, str] = {}
        for query in entries:
            for owner, (_index, kind) in self._hits(query).items():
                result.setdefault(owner, kind)
        return sorted(result.items())
