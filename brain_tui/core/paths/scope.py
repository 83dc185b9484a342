"""Scopes: parsing, normalisation, intersection and a path index (SPEC 5).

A scope is a tuple of :class:`ScopeEntry` values. Each entry is one of four levels:

* ``global`` -- the whole brain (written ``*``; also read ``/``, ``global`` and,
  when the brain has no top-level ``brain/`` folder, ``brain/``);
* ``dir`` -- a folder and everything below it (``agents/``);
* ``file`` -- one file (``todo/brain.md``);
* ``section`` -- one ``##`` section of a markdown file (``todo/brain.md#Sprint 3``).

Paths are POSIX and relative to the brain root; their normalisation lives in
`scope_paths`. Conflict checks between many claims go through
`scope_index.ScopeIndex`, a trie keyed by path components.

Paths compare by their `path_keys.path_key` (NFC, case-folded), as section
titles already do: ``TODO.md`` and ``todo.md`` are one file on macOS, so they
are one scope everywhere. An entry keeps the spelling it was written with
(:attr:`ScopeEntry.path`); only :attr:`ScopeEntry.key` is folded.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from brain_tui.core.errors import InvalidData
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.path_keys import is_below, path_key, resolve_in_brain
from brain_tui.core.paths.scope_paths import (
    BadPath,
    file_key,
    nfc,
    normalize,
    normalize_path,
    quote,
    section_key,
    section_title,
)
from brain_tui.core.paths.text_safety import CONTROL_RE
from brain_tui.core.record import field, record

__all__ = [
    "GLOBAL",
    "DIR",
    "FILE",
    "SECTION",
    "KINDS",
    "ScopeEntry",
    "normalize_path",  # also read from here by preflight
    "parse_entry",
    "parse_scope",
    "parse_scope_args",
    "format_scope",
    "overlap",
    "scopes_overlap",
    "covers_file",
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
_SPLIT_RE = LazyPattern(r"[\s,]+")
#: ``agents/*`` and ``agents/**``: what a user means is the folder.
_FOLDER_GLOB_RE = LazyPattern(r"/\*{1,2}$")
_SECTION_MARKERS = ("#", "\u00a7")  # '#' (also '##') and '§'


@record(order=True)
class ScopeEntry:
    """One entry of a scope.

    Attributes:
        kind: ``"global"``, ``"dir"``, ``"file"`` or ``"section"``.
        path: ``""`` for global; the folder without trailing slash for dir
            (``"agents"``); the file for file and section (``"todo/brain.md"``).
        section: the section title as written, trimmed, with leading ``#`` and
            spaces stripped (``"Sprint 3"``); ``""`` unless kind is section.
        target: the brain path ``path`` names through symlinks inside the
            brain (``real`` for ``alias`` when ``alias -> real``), ``""`` when
            no link moves it; never written, not part of equality.
        key: the path as compared (`path_keys.path_key`: NFC, case-folded) —
            of ``target`` when there is one, else of ``path``; never written,
            not part of equality.
    """

    kind: str
    path: str
    section: str = ""
    target: str = field(default="", repr=False, compare=False)
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check the kind and derive the comparison key of the path.

        Raises:
            ValueError: if ``kind`` is not one of the four levels.
        """
        if self.kind not in KINDS:
            raise ValueError(f"unknown scope kind {self.kind!r}")
        object.__setattr__(self, "key", path_key(self.target or self.path))

    @property
    def section_key(self) -> str:
        """The section title as compared (`scope_paths.section_key`: case, spaces and emphasis marks folded).

        Returns:
            The comparison key ("" for entries that are not sections).
        """
        return section_key(self.section)

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


def _linked(root: str | os.PathLike[str] | None, kind: str, path: str, section: str = "") -> ScopeEntry:
    """Build an entry keyed by the brain path its symlinks lead to (`path_keys.resolve_in_brain`).

    A dir or file that is a link to the brain itself is the whole brain (global).

    Args:
        root: the brain root, or None when unknown (then links are not followed).
        kind: the entry's level (dir, file or section).
        path: the normalised path, without trailing slash.
        section: the section title (sections only).

    Returns:
        The entry, with ``target`` set when a link moves it.
    """
    if root is None:
        return ScopeEntry(kind, path, section)
    target = resolve_in_brain(root, path)
    if not target:
        return ScopeEntry(GLOBAL, "")
    return ScopeEntry(kind, path, section, "" if target == path else target)


def parse_entry(text: str, root: str | os.PathLike[str] | None = None, *, typed: bool = True) -> ScopeEntry:
    """Parse one scope entry (SPEC 5.1).

    Args:
        text: the entry as written: ``*``, ``/``, ``global``, ``brain/``,
            ``agents/``, ``todo/brain.md``, ``todo/brain.md#Sprint 3``,
            ``todo/brain.md ## Sprint 3`` or ``todo/brain.md § Sprint 3``.
        root: the brain root, used to tell folders from files and to decide
            whether ``brain/`` is the legacy global spelling. None when unknown:
            then only a trailing slash makes a dir and ``brain/`` is global.
        typed: True for a scope being given now (command line, form, MCP): a
            section of a path that is a folder here is refused. False for a
            scope read back from a claim file: the file may have been a file
            on the machine that wrote it and a folder here, and the claim
            still holds it (a section keyed by a folder meets everything below).

    Returns:
        The parsed entry.

    Raises:
        InvalidData: with a one-line message saying what and why (bad path,
            empty section title, section of a folder, not a string...).
    """
    if not isinstance(text, str):
        raise InvalidData(f"invalid scope {text!r}: expected a string, got {type(text).__name__}")

    def bad(reason: str) -> InvalidData:
        return InvalidData(f"invalid scope {quote(text)}: {reason}")

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
        if CONTROL_RE.search(raw_title.strip()):
            raise bad("NUL and control characters are not allowed")
        title = section_title(raw_title)
        if not title:
            raise bad("the section title is empty")
        if not raw_path.strip():
            raise bad("a section needs a file path before the marker")
        try:
            path = normalize(raw_path)
        except BadPath as exc:
            raise bad(str(exc)) from None
        if path.endswith("/") or (typed and _is_folder(root, path)):
            raise bad("a section must belong to a file, not a folder")
        return _linked(root, SECTION, path, title)

    if _FOLDER_GLOB_RE.search(stripped) and stripped.rstrip("*") != "/":
        stripped = stripped.rstrip("*")  # agents/* and agents/** mean the folder agents/
    try:
        path = normalize(stripped)
    except BadPath as exc:
        raise bad(str(exc)) from None
    if path.endswith("/"):
        return _linked(root, DIR, path.rstrip("/"))
    if _is_folder(root, path):
        return _linked(root, DIR, path)
    return _linked(root, FILE, path)


def _identity(entry: ScopeEntry) -> tuple[str, str, str]:
    """Key under which two entries are the same scope (paths and section titles by key).

    Args:
        entry: a scope entry.

    Returns:
        ``(kind, path key, section_key)``.
    """
    return (entry.kind, entry.key, entry.section_key)


def parse_scope(
    value: object, root: str | os.PathLike[str] | None = None, *, typed: bool = True
) -> tuple[ScopeEntry, ...]:
    """Parse a claim's scope: a string or a list of strings (SPEC 5.1).

    A list gives one entry per item. A string containing a section marker
    (``#``, ``##``, ``§``) is one entry; any other string is split on
    whitespace and commas (legacy multi-entry form). Duplicates are removed
    (paths compared by :attr:`ScopeEntry.key`, sections by
    :attr:`ScopeEntry.section_key`), first spelling and order kept.

    Args:
        value: the scope value as loaded from YAML or the command line.
        root: the brain root (see :func:`parse_entry`), or None.
        typed: False when reading a claim file (see :func:`parse_entry`).

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
                raise InvalidData(f"invalid scope {quote(value)}: the scope is empty")
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
        entry = parse_entry(item, root, typed=typed)
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


def overlap(a: ScopeEntry, b: ScopeEntry) -> str | None:
    """Tell whether two entries intersect, and how (SPEC 5.2).

    * ``"direct"``: both global, the same dir, the same file (a dir and a file
      with the same path are also treated as direct: one of the two spellings
      is wrong and the safe answer is a conflict);
    * ``"parent/child"``: one side is global (not both), or a dir contains the
      other entry (a dir also contains the sections of a file of the same path),
      or a file or section entry has another entry below its path (a path with
      something below it is a folder, whatever the entry says: ``notes`` read
      as a file where ``Notes/`` is a folder on a case-sensitive machine is that
      folder on macOS);
    * ``"section"``: a file and a section of it, or the same section (by :attr:`ScopeEntry.section_key`).

    Two different sections of one file do not intersect. The relation is
    symmetric. Paths compare by :attr:`ScopeEntry.key` (``TODO.md`` is
    ``todo.md``, ``Notes/`` holds ``notes/x.md``), never by spelling.

    Args:
        a: one entry.
        b: another entry.

    Returns:
        The overlap kind, or None when the entries do not intersect.
    """
    if a.kind == GLOBAL or b.kind == GLOBAL:
        return DIRECT if a.kind == b.kind else PARENT_CHILD
    if a.key != b.key:
        return PARENT_CHILD if is_below(a.key, b.key) or is_below(b.key, a.key) else None
    if a.kind == DIR or b.kind == DIR:
        if a.kind == b.kind:
            return DIRECT
        other = b if a.kind == DIR else a
        return DIRECT if other.kind == FILE else PARENT_CHILD
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


def covers_file(entries: Sequence[ScopeEntry], file_path: str, root: str | os.PathLike[str] | None = None) -> bool:
    """Tell whether a file lies inside a scope (preflight, SPEC 10).

    Global covers every file; a dir covers files below it; a file covers itself;
    a section covers its whole file. Paths compare by key: a claim on ``src/``
    covers ``SRC/a.py``, which macOS writes into the same folder.

    Args:
        entries: the claim's scope entries.
        file_path: the file as given; it is normalised first. A path that does
            not normalise (``..``, absolute, control characters...) is never covered.
        root: the brain root: links inside the brain are then followed, as the
            entries' keys are (a claim on ``alias/`` covers ``real/x.md``).

    Returns:
        True when some entry covers the file.
    """
    try:
        key = file_key(file_path, root)
    except BadPath:
        return False
    if not key:
        return any(entry.kind == GLOBAL for entry in entries)
    for entry in entries:
        if entry.kind == GLOBAL:
            return True
        if entry.kind == DIR:
            if is_below(entry.key, key):
                return True
        elif entry.key == key:
            return True
    return False
