"""Scopes: parsing, normalisation, intersection and a path index (SPEC 5).

A scope is a tuple of :class:`ScopeEntry` values. Each entry is one of four levels:

* ``global`` -- the whole brain (written ``*``; also read ``/``, ``global`` and, when the brain has no top-level
  ``brain/`` folder, ``brain/``);
* ``dir`` -- a folder and everything below it (``agents/``);
* ``file`` -- one file (``todo/brain.md``);
* ``section`` -- one ``##`` section of a markdown file (``todo/brain.md#Sprint 3``).

Paths are POSIX and relative to the brain root; their normalisation lives in `scope_paths`. Conflict checks between
many claims go through `scope_index.ScopeIndex`, a trie keyed by path components.

Paths compare by their `path_keys.path_key` (NFC, case-folded), as section titles already do: ``TODO.md`` and
``todo.md`` are one file on macOS, so they are one scope everywhere. An entry keeps the spelling it was written with
(:attr:`ScopeEntry.path`); only :attr:`ScopeEntry.key` is folded.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
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
from brain_tui.core.paths.text_safety import CONTROL_BUT_SPACES_RE, CONTROL_RE
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
    "names_a_path",
    "parse_scope_args",
    "format_scope",
    "overlap",
    "scopes_overlap",
    "covers_file",
    "is_markdown",
    "MARKDOWN_SUFFIXES",
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
#: The suffixes of a markdown file's name (compared lower-cased): a section belongs to such a file only.
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdx")


@record(order=True)
class ScopeEntry:
    """One entry of a scope.

    Attributes:
        kind: ``"global"``, ``"dir"``, ``"file"`` or ``"section"``.
        path: ``""`` for global; the folder without trailing slash for dir (``"agents"``); the file for file and
            section (``"todo/brain.md"``).
        section: the section title as written, trimmed, with leading ``#`` and spaces stripped (``"Sprint 3"``);
            ``""`` unless kind is section.
        target: the brain path ``path`` names through symlinks inside the brain (``real`` for ``alias`` when
            ``alias -> real``), ``""`` when no link moves it; never written, not part of equality.
        key: the path as compared (`path_keys.path_key`: NFC, case-folded) — of ``target`` when there is one, else of
            ``path``; never written, not part of equality.
    """

    kind: str
    path: str
    section: str = ""
    target: str = field(default="", repr=False, compare=False)
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check the kind (ValueError unless one of the four levels) and derive the comparison key of the path."""
        if self.kind not in KINDS:
            raise ValueError(f"unknown scope kind {self.kind!r}")
        object.__setattr__(self, "key", path_key(self.target or self.path))

    @property
    def section_key(self) -> str:
        """The section title as compared (`scope_paths.section_key`: case, spaces and emphasis marks folded; "" for
        entries that are not sections)."""
        return section_key(self.section)

    def __str__(self) -> str:
        """Canonical text of the entry, which :func:`parse_entry` reads back as this entry.

        ``*`` for global, ``agents/`` for a dir, ``todo/brain.md`` for a file and ``todo/brain.md#Sprint 3`` for a
        section. A dir named ``brain`` is written ``./brain/`` so that it is never read back as the legacy global
        ``brain/``.
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
    """Split one trimmed entry ``path<marker>title`` at the earliest section marker: ``(path, raw_title)``, or None
    when the text has no marker."""
    positions = [pos for pos in (text.find(marker) for marker in _SECTION_MARKERS) if pos >= 0]
    if not positions:
        return None
    pos = min(positions)
    return text[:pos], text[pos + 1 :]


def _is_folder(root: str | os.PathLike[str] | None, path: str) -> bool:
    """True when the normalised ``path`` names an existing folder under ``root`` (False when root is None or on OS
    errors)."""
    if root is None:
        return False
    try:
        return os.path.isdir(os.path.join(root, path))  # not pathlib: called per claim on a cold start
    except OSError:
        return False


def _is_file(root: str | os.PathLike[str] | None, path: str) -> bool:
    """True when the normalised ``path`` names an existing file (not a folder; links followed, so a dangling link is
    none) under ``root`` (False when root is None or on OS errors)."""
    if root is None:
        return False
    try:
        return os.path.exists(os.path.join(root, path)) and not os.path.isdir(os.path.join(root, path))
    except OSError:
        return False


def is_markdown(path: str) -> bool:
    """True when ``path`` names a markdown file by its suffix (``.md``, ``.markdown``…, any case): the only files
    whose ``##`` sections a scope may name (SPEC 5.1)."""
    return path.rsplit("/", 1)[-1].lower().endswith(MARKDOWN_SUFFIXES)


def _linked(root: str | os.PathLike[str] | None, kind: str, path: str, section: str = "") -> ScopeEntry:
    """Build an entry keyed by the brain path its symlinks lead to (`path_keys.resolve_in_brain`), with ``target`` set
    when a link moves it; links are not followed when ``root`` is None. A dir or file that is a link to the brain
    itself is the whole brain (global)."""
    if root is None:
        return ScopeEntry(kind, path, section)
    target = resolve_in_brain(root, path)
    if not target:
        return ScopeEntry(GLOBAL, "")
    return ScopeEntry(kind, path, section, "" if target == path else target)


def parse_entry(text: str, root: str | os.PathLike[str] | None = None, *, typed: bool = True) -> ScopeEntry:
    """Parse one scope entry (SPEC 5.1): ``*``, ``/``, ``global``, ``brain/``, ``agents/``, ``todo/brain.md``,
    ``todo/brain.md#Sprint 3``, ``todo/brain.md ## Sprint 3`` or ``todo/brain.md § Sprint 3``.

    ``root`` tells folders from files and whether ``brain/`` is the legacy global spelling; when it is None only a
    trailing slash makes a dir and ``brain/`` is global. ``typed`` is True for a scope being given now (command line,
    form, MCP): a section of a path that is a folder here, a section of a file that is not markdown, by its name or
    where its links lead (SPEC 5.1: one ``##`` section of a markdown file; two "sections" of ``a.py``, or of an
    ``alias.md`` linked to it, would each hold the whole file) and a trailing slash
    on a path that is a file here (a folder that cannot exist, which its own holder could not write) are refused. It
    is False for a scope read back from a claim file, or for a path being written (the write decision): the file may
    have been a file on the machine that wrote it and a folder here, and the claim still holds it (a section keyed by
    a folder meets everything below).

    Raises InvalidData with a one-line message saying what and why (bad path, empty section title, section of a
    folder or of a file that is not markdown, a file given as a folder, not a string...).
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
    if stripped == _LEGACY_BRAIN and not (root is not None and Path(root, "brain").is_dir()):
        return ScopeEntry(GLOBAL, "")

    split = _split_section(stripped)
    if split is not None:
        raw_path, raw_title = split
        if CONTROL_RE.search(raw_title.strip()):
            raise bad("NUL and control characters are not allowed")
        title = section_title(raw_title)
        if not title:
            raise bad("the section title is empty")
        if typed and not section_key(title):
            raise bad("the section title reads as nothing (only emphasis marks or characters drawn as nothing)")
        if not raw_path.strip():
            raise bad("a section needs a file path before the marker")
        try:
            path = normalize(raw_path)
        except BadPath as exc:
            raise bad(str(exc)) from None
        if path.endswith("/") or (typed and _is_folder(root, path)):
            raise bad("a section must belong to a file, not a folder")
        entry = _linked(root, SECTION, path, title)
        if typed and not (is_markdown(path) and is_markdown(entry.target or entry.path)):  # (a link: where it leads)
            led = f" ({quote(path)} leads to {quote(entry.target or entry.path)})" if is_markdown(path) else ""
            raise bad(f"a section (#, ##, §) names a ## heading of a markdown file (.md){led}; claim the whole file "
                      "instead")
        return entry

    if _FOLDER_GLOB_RE.search(stripped) and stripped.rstrip("*") != "/":
        stripped = stripped.rstrip("*")  # agents/* and agents/** mean the folder agents/
    try:
        path = normalize(stripped)
    except BadPath as exc:
        raise bad(str(exc)) from None
    if path.endswith("/"):
        if typed and _is_file(root, path.rstrip("/")):
            raise bad(f"{quote(path.rstrip('/'))} is a file of the brain, not a folder: drop the trailing '/'")
        return _linked(root, DIR, path.rstrip("/"))
    if _is_folder(root, path):
        return _linked(root, DIR, path)
    return _linked(root, FILE, path)


def _unique(entries: Iterable[ScopeEntry]) -> tuple[ScopeEntry, ...]:
    """The entries without repeats, first spelling and order kept: two entries are the same scope when their kind,
    path key and section key agree."""
    seen: set[tuple[str, str, str]] = set()
    kept: list[ScopeEntry] = []
    for entry in entries:
        identity = (entry.kind, entry.key, entry.section_key)
        if identity not in seen:
            seen.add(identity)
            kept.append(entry)
    return tuple(kept)


def _refuse_controls(text: str) -> None:
    """Raise InvalidData when a scope text holds a control character other than an ASCII space (SPEC 5.1: NUL and
    control characters are refused, exit 65), before any splitting or trimming could drop it."""
    if CONTROL_BUT_SPACES_RE.search(text):  # (checked before `\s` splits or `strip` trims)
        raise InvalidData(f"invalid scope {quote(text)}: NUL and control characters are not allowed")


def parse_scope(
    value: object, root: str | os.PathLike[str] | None = None, *, typed: bool = True
) -> tuple[ScopeEntry, ...]:
    """Parse a claim's scope as loaded from YAML or the command line: a string or a list of strings (SPEC 5.1), into
    at least one entry (``root`` and ``typed`` as for :func:`parse_entry`).

    A list gives one entry per item. A string containing a section marker (``#``, ``##``, ``§``) is one entry; any
    other string is split on whitespace and commas (legacy multi-entry form). Duplicates are removed (paths compared
    by :attr:`ScopeEntry.key`, sections by :attr:`ScopeEntry.section_key`), first spelling and order kept.

    Raises InvalidData for an empty scope, a non-string item, a value that is neither a string nor a list/tuple, or
    any bad entry.
    """
    if isinstance(value, str):
        _refuse_controls(value)
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
            _refuse_controls(item)
            items.append(item)
    elif value is None:
        raise InvalidData("invalid scope: the scope is missing")
    else:
        raise InvalidData(f"invalid scope: expected a string or a list of strings, got {type(value).__name__}")

    return _unique(parse_entry(item, root, typed=typed) for item in items)


def parse_scope_args(values: Sequence[str], root: str | os.PathLike[str] | None = None) -> tuple[ScopeEntry, ...]:
    """Parse scope values typed on a command line or in a form (one per ``--scope``), each one read as a claim file's
    string; duplicates removed, first spelling kept.

    ``--scope "a/ b.md"`` is two entries, exactly as ``scope: a/ b.md`` in a claim file is (SPEC 5.1: whitespace and
    commas separate entries unless the text holds a section marker), so what is typed and what is read back agree;
    but a value naming an existing file or folder whole (`names_a_path`: ``wiki/Meeting notes.md``) is that entry.
    Raises InvalidData for no value, or any bad entry.
    """
    if not values:
        raise InvalidData("invalid scope []: the scope is empty")
    entries: list[ScopeEntry] = []
    for value in values:
        if not isinstance(value, str):
            raise InvalidData(f"invalid scope {value!r}: expected a string")
        _refuse_controls(value)
        entries.extend(parse_scope([value.strip()] if names_a_path(value, root) else value, root))
    return _unique(entries)


def names_a_path(value: str, root: str | os.PathLike[str] | None) -> bool:
    """True when a typed scope value holding whitespace or a comma is one path of the brain: the whitespace or
    comma is inside the name of a file or folder that exists there (``wiki/Meeting notes.md``, or
    ``wiki/Team notes/new.md`` below an existing ``wiki/Team notes/``, or ``wiki/Team notes/*`` for it). It is
    then that one entry, not several (`parse_scope_args`); ``wiki/ todo.md`` stays two, and so does
    ``wiki/Team notes/a.md wiki/b.md`` (a spaced name that exists nowhere, before the last)."""
    text = value.strip()
    if root is None or not _SPLIT_RE.search(text) or _split_section(text) is not None:
        return False
    if _FOLDER_GLOB_RE.search(text):
        text = text.rstrip("*")  # `wiki/Team notes/*` names the folder, as `parse_entry` reads it
    try:
        parts = normalize(text).rstrip("/").split("/")  # never absolute nor with `..`
    except BadPath:
        return False
    found = False
    for depth, name in enumerate(parts, start=1):
        if not _SPLIT_RE.search(name) or os.path.lexists(Path(root, *parts[:depth])):
            found = found or bool(_SPLIT_RE.search(name))
            continue
        # a spaced name that does not exist: the new file itself below a spaced folder that does, else entries
        return found and depth == len(parts)
    return found


def joined(texts: Sequence[str]) -> str:
    """Scope entries shown on one line: separated by spaces, or by commas when one of them holds whitespace (a
    folder `wiki/Team notes/` beside `todo.md` must not read as three entries)."""
    return (", " if any(_SPLIT_RE.search(text) for text in texts) else " ").join(texts)


def format_scope(entries: Sequence[ScopeEntry]) -> str | list[str]:
    """Write scope entries back: ``"todo/brain.md"`` for one entry, ``["agents/", "todo/brain.md"]`` for several;
    InvalidData when there is no entry.

    A single non-section entry whose text holds whitespace or a comma is written as a one-item list, because as a
    string it would be read back as several entries (legacy splitting).
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
    """How two entries intersect (SPEC 5.2), or None when they do not.

    * ``"direct"``: both global, the same dir, the same file (a dir and a file with the same path are also treated as
      direct: one of the two spellings is wrong and the safe answer is a conflict);
    * ``"parent/child"``: one side is global (not both), or a dir contains the other entry (a dir also contains the
      sections of a file of the same path), or a file or section entry has another entry below its path (a path with
      something below it is a folder, whatever the entry says: ``notes`` read as a file where ``Notes/`` is a folder
      on a case-sensitive machine is that folder on macOS);
    * ``"section"``: a file and a section of it, or the same section (by :attr:`ScopeEntry.section_key`).

    Two different sections of one file do not intersect. The relation is symmetric. Paths compare by
    :attr:`ScopeEntry.key` (``TODO.md`` is ``todo.md``, ``Notes/`` holds ``notes/x.md``), never by spelling.
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
    """The overlap kind of the first intersecting pair of two claims' scopes, or None. Pairs are tried in order:
    every entry of ``b`` against ``a[0]``, then ``a[1]``..."""
    for left in a:
        for right in b:
            kind = overlap(left, right)
            if kind is not None:
                return kind
    return None


def covers_file(entries: Sequence[ScopeEntry], file_path: str, root: str | os.PathLike[str] | None = None,
                tree: bool = False) -> bool:
    """True when the file lies inside the claim's scope (preflight, SPEC 10); with `tree`, when the folder
    `file_path` and everything below it does (`rm -r`, an extraction into it): a dir entry covers its own folder too.

    Global covers every file; a dir covers files below it; a file covers itself; a section covers its whole file. Paths
    compare by key: a claim on ``src/`` covers ``SRC/a.py``, which macOS writes into the same folder. ``file_path`` is
    normalised first: one that does not normalise (``..``, absolute, control characters...) is never covered. With
    ``root``, links inside the brain are followed, as the entries' keys are (a claim on ``alias/`` covers
    ``real/x.md``).
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
            if is_below(entry.key, key) or (tree and entry.key == key):
                return True
        elif entry.key == key:
            return True
    return False
