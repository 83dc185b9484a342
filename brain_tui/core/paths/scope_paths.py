"""Scope paths: the normalisation of the paths and section titles a scope names (SPEC 5.1).

One spelling per path and title whatever the machine wrote (NFC, no ``./`` or ``//``), and a one-line reason for a
path that cannot be a scope (absolute, ``..``, backslash, glob or control characters). `scope` builds entries from
these; preflight, locks and breath normalise file paths here.
"""

from __future__ import annotations

import os
import unicodedata

from brain_tui.core.errors import InvalidData
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.path_keys import path_key, resolve_in_brain
from brain_tui.core.paths.text_safety import ASCII_SPACES, CONTROL_RE, EXTRA_INVISIBLE

__all__ = ["BadPath", "file_key", "nfc", "normalize", "normalize_path", "quote", "section_key", "section_title",
           "zone_entries", "zone_keys"]

_TITLE_LEAD_RE = LazyPattern(r"^[#\s]+")
#: An ATX closing sequence (``## Sprint 3 ##``): spaces then ``#`` marks at the end of the title.
_TITLE_CLOSING_RE = LazyPattern(r"\s+#+\s*$")
_SPACES_RE = LazyPattern(r"\s+")
#: Markdown's inline emphasis, code and strike marks: ``## **Sprint 3**`` reads "Sprint 3".
_EMPHASIS_RE = LazyPattern(r"[*_`~]+")
#: A markdown backslash escape: ``\#`` reads ``#`` (CommonMark: any ASCII punctuation).
_ESCAPE_RE = LazyPattern(r"\\([!-/:-@\[-`{-~])")
#: Glob characters: a scope names folders, files and sections, never patterns.
_GLOB_CHARS = ("*", "?")
_MAX_QUOTED = 80


class BadPath(ValueError):
    """Internal: why a path was refused (the reason only, without the path)."""


def quote(text: str) -> str:
    """User text quoted for a one-line error message: its ``repr``, cut to a reasonable length."""
    if len(text) > _MAX_QUOTED:
        text = text[: _MAX_QUOTED - 1] + "\u2026"
    return repr(text)


def nfc(text: str) -> str:
    """The NFC form of a text: one spelling for paths and titles written on macOS (NFD) and Linux (NFC)."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def section_title(text: str) -> str:
    """Clean a section title: NFC, leading ``#`` marks and spaces, an ATX closing ``##``, inner runs of spaces.

    ``##  Sprint   3 ##`` and ``Sprint 3`` are one title. Idempotent, so a stored title and its
    :attr:`ScopeEntry.section_key` agree.
    """
    title = _TITLE_LEAD_RE.sub("", nfc(text))
    title = _TITLE_CLOSING_RE.sub("", title)
    return _SPACES_RE.sub(" ", title).strip()


def _drawn_as_nothing(char: str) -> bool:
    """True for a character a reader draws as nothing: a format character (a soft hyphen, a word joiner, a tag
    character...) or one of `text_safety.EXTRA_INVISIBLE` (a variation selector, the combining grapheme joiner)."""
    return ord(char) in EXTRA_INVISIBLE or unicodedata.category(char) == "Cf"


def _as_rendered(title: str) -> str:
    """A cleaned title as a markdown reader renders it: entities (``&#66;``, ``&nbsp;``) and backslash escapes
    (``\\-``) read as their characters, the characters drawn as nothing dropped, cleaned again (a decoded ``#`` may
    close the title, a decoded space may lead it)."""
    if "&" in title:
        import html  # only for a title with an entity: its table costs the hook's start-up otherwise

        title = html.unescape(title)
    if "\\" in title:
        title = _ESCAPE_RE.sub(r"\1", title)
    if not title.isascii():
        title = "".join(char for char in title if not _drawn_as_nothing(char))
    return section_title(title)


def section_key(text: str) -> str:
    """The key a section title compares by, never shown nor written: cleaned (:func:`section_title`), read as a
    markdown reader renders it (`_as_rendered`: entities, backslash escapes, characters drawn as nothing), markdown's
    emphasis marks dropped, then keyed as a path is (`path_keys.path_key`: case-folded, HFS+'s ignored code points
    dropped).

    ``**Sprint 3**``, ``_Sprint 3_``, ``SPRINT 3``, ``Sprint&#32;3`` and ``Sprint 3`` with a soft hyphen inside
    are the heading a reader calls "Sprint 3". SPEC 5.1 names case and spaces only; dropping more only adds
    refusals between sections whose titles differ by these marks.
    """
    key = path_key(_EMPHASIS_RE.sub("", _as_rendered(section_title(text))))
    return _SPACES_RE.sub(" ", key).strip()


def normalize(text: str) -> str:
    """Normalise a path, keeping a trailing ``/`` when one was given; raises :class:`BadPath` with the reason when
    the path is empty, absolute, has ``..``, a backslash, glob characters or control characters."""
    text = nfc(text.strip(ASCII_SPACES))  # not str.strip(): it takes controls too (SPEC 5.1 refuses them)
    if CONTROL_RE.search(text):
        raise BadPath("NUL and control characters are not allowed")
    if not text:
        raise BadPath("the path is empty")
    if "\\" in text:
        raise BadPath("backslashes are not allowed (paths are POSIX, use '/')")
    if text.startswith("/"):
        raise BadPath("absolute paths are not allowed (give a path relative to the brain root)")
    parts = text.split("/")
    if ".." in parts:
        raise BadPath("'..' is not allowed")
    if any(char in text for char in _GLOB_CHARS):
        raise BadPath("glob characters (* ?) are not allowed: claim the folder (agents/), the files, or * for all")
    trailing = text.endswith("/") or parts[-1] == "."
    kept = [part for part in parts if part not in ("", ".")]
    if not kept:
        raise BadPath("the path is empty")
    return "/".join(kept) + ("/" if trailing else "")


def normalize_path(text: str) -> str:
    """Normalise a POSIX path relative to the brain root, e.g. to ``"agents/x.md"`` or ``"agents/"``.

    Strips surrounding spaces, leading ``./`` (repeatedly) and inner ``/./``, and collapses ``//``. A trailing ``/``
    is kept when given. The result is in NFC (SPEC 5.1: one spelling whatever the machine wrote). Raises InvalidData
    for an empty or absolute path, a ``..`` component, a backslash, a glob character, NUL, C0/C1 control characters
    or DEL.
    """
    try:
        return normalize(text)
    except BadPath as exc:
        raise InvalidData(f"invalid path {quote(text)}: {exc}") from None


def file_key(file_path: str, root: str | os.PathLike[str] | None = None) -> str:
    """The key a brain-relative file path compares by, comparable with :attr:`ScopeEntry.key`: normalised, links
    inside the brain followed (when root is given), folded. Raises BadPath when the path does not normalise."""
    path = normalize(file_path).rstrip("/")
    return path_key(resolve_in_brain(root, path) if root is not None else path)


#: A zone entry naming the whole brain: SPEC 5.1's global spelling `global` (`brain/` is a folder's name here); `*`,
#: `/`, `.` and any other entry of slashes, dots and stars alone (`**`, `/*`, `./`) are the whole brain too.
_WHOLE_BRAIN = frozenset({"global"})
#: Folder globs at the end of an entry (`agents/*`, `agents/**`, `agents/**/*`, `agents/**/`): the folder, as
#: `scope.parse_entry` reads the first two.
_FOLDER_GLOB = LazyPattern(r"(?:^|/)\*{1,2}(?:/\*{1,2})*/?$")


def zone_entries(zone: object) -> list[str]:
    """The path each entry of a zone list (`zones.kernel`) names, normalised, without its trailing `/`: it covers
    that path and everything below (a name with a file below it is a folder); ``""`` for an entry naming the whole
    brain.

    A zone is a protection, so an entry is read on its side: a folder glob is the folder (`agents/**` is `agents/`,
    as a scope reads it, and so is `agents/**/*`), an entry of slashes, dots and stars alone is the whole brain (`*`,
    `/`, `.`, `**`), and a leading `/` is the brain's root (`/agents/` is `agents/`). An entry that still names no
    path of the brain (`..`, another glob, control characters, not text) is skipped."""
    entries: list[str] = []
    for raw in zone if isinstance(zone, (list, tuple)) else ():
        if not isinstance(raw, str):
            continue
        text = raw.strip()
        if text in _WHOLE_BRAIN or (text and not text.strip("/.*") and ".." not in text.split("/")):
            entries.append("")
            continue
        try:
            entries.append(normalize(_FOLDER_GLOB.sub("/", text).lstrip("/")).rstrip("/"))
        except BadPath:
            continue
    return entries


def zone_keys(zone: object, root: str | os.PathLike[str] | None = None) -> list[str]:
    """The key of each entry of a zone list (`zone_entries`), and with `root`, the key of the brain path it leads to
    through the links on its way too (zone `kern/` with `kern -> real`: a write to `real/a.md` is one to the zone's
    file; a link to the brain itself makes the zone the whole brain, ``""``)."""
    keys: list[str] = []
    for entry in zone_entries(zone):
        keys.append(path_key(entry))
        real = resolve_in_brain(root, entry) if root is not None and entry else entry
        if real != entry:
            keys.append(path_key(real))
    return keys
