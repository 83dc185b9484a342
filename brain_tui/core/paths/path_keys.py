"""The comparison key of a brain path: two spellings that one machine maps to one file compare equal.

A brain is one git repository checked out on Linux (case-sensitive, bytes as written) and on macOS (APFS:
case-insensitive and normalisation-insensitive), so ``TODO.md`` and ``todo.md``, ``Notes/`` and ``notes/``, ``café.md``
in NFC and in NFD are one file on the laptop. Every rule that asks "same path?" or "below this folder?" — scope
intersection and coverage, the scope index, locks, the kernel zone, the protocol-folder check of the hooks — compares
:func:`path_key` values, never the spellings.

The reading: comparing folded is the safe direction. On Linux ``A.md`` and ``a.md`` may be two files, and a claim on
one is then refused while another claim holds the other (a false refusal, undone by choosing another name); a double
grant of one macOS file is never possible. The key uses full Unicode case folding (``ß`` meets ``ss``): folding more
than a file system does only ever adds refusals, never a second holder.

Symlinks inside the brain are a second spelling too: git stores them, and every Linux and macOS checkout has them, so
with ``alias -> real`` the scopes ``alias/`` and ``real/`` are one folder. :func:`resolve_in_brain` gives the path a
brain path names once its links are followed, and the scope rules key an entry by that path (SPEC is silent on links;
keying by the target is the safe direction: it only adds refusals).

Only comparisons fold: claim files, lock files, JSON output and the index keep the spelling that was written. Standard
library only: `bsi hook pre-tool-use` imports this module on its hot path.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from functools import lru_cache

from brain_tui.core.paths.layout import PROTOCOL_DIRS, PROTOCOL_FILES, brain_above

__all__ = [
    "PROTOCOL_DIRS",
    "PROTOCOL_FILES",
    "brain_holding",
    "brain_relative",
    "brain_target",
    "below_folder",
    "hard_linked",
    "is_below",
    "is_protocol_path",
    "names_folder",
    "path_key",
    "resolve_in_brain",
]

def path_key(path: str) -> str:
    """The key under which a path (or a component, or any text that names a file) is compared, never shown nor
    written: NFD, then full case folding, then NFC, HFS+'s ignored code points dropped.

    Unicode's canonical caseless match (D145) decomposes before it folds: U+0345 (an iota subscript) folds to a
    full iota, so ``ᾷ`` (precomposed) and ``ᾼ`` + perispomeni fold to one text only once their marks are in
    canonical order. Idempotent (``path_key(path_key(p)) == path_key(p)``); ``/`` is kept, so component boundaries
    survive. ASCII paths fold by ``lower()`` alone.
    """
    if path.isascii():
        return path.lower()
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFD", path).casefold())
    return folded.translate(_IGNORED)


#: Code points an HFS+ volume ignores in names (Apple TN1150: U+200C–U+200F, U+202A–U+202E, U+206A–U+206F,
#: U+FEFF), plus the zero-width space: ``to\u200cdo.md`` is ``todo.md`` on a macOS HFS+ disk. APFS and ext4 keep
#: them, so dropping them from the key only adds refusals there. Lookalikes (Cyrillic ``а``, full-width ``／``)
#: are distinct names on every one of these file systems and stay distinct.
_IGNORED = dict.fromkeys([*range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF])


_PROTOCOL_KEYS = frozenset(path_key(name) for name in (*PROTOCOL_DIRS, *PROTOCOL_FILES))


def is_below(dir_key: str, key: str) -> bool:
    """True when the path keyed ``key`` is strictly below the folder keyed ``dir_key`` (both :func:`path_key` values
    without trailing slash), on a component boundary: ``agents`` holds ``agents/x.md``, not ``agents-old/x.md``."""
    return key.startswith(dir_key + "/")


def is_protocol_path(rel: str) -> bool:
    """True when a normalised brain-relative POSIX path's first component is a protocol folder or the path is a
    protocol file, in any spelling: ``claims/x.yml``, ``CLAIMS/x.yml``, ``Claims``, ``brain-index.md`` and
    ``.Brain/agents/x.json`` all are, since on macOS they are the protocol's files."""
    return path_key(rel).split("/", 1)[0] in _PROTOCOL_KEYS


def brain_relative(root: str, real: str) -> str | None:
    """The brain-relative POSIX path of ``real`` below the brain ``root`` (both resolved with ``os.path.realpath``):
    ``""`` for the brain folder itself, None when outside.

    The brain's own components compare by :func:`path_key`, so a path spelled ``/Users/me/Brain/…`` for the brain
    ``/Users/me/brain`` is inside it (on macOS it is); the part below the brain keeps the spelling given.
    """
    root_parts = [part for part in root.split(os.sep) if part]
    parts = [part for part in real.split(os.sep) if part]
    if len(parts) < len(root_parts):
        return None
    for mine, theirs in zip(root_parts, parts, strict=False):
        if mine != theirs and path_key(mine) != path_key(theirs):
            return None
    return "/".join(parts[len(root_parts):])


@lru_cache(maxsize=16)
def _real_root(root: str) -> str:
    """The brain folder resolved (memoised: a process looks at one or two brains)."""
    return os.path.realpath(root)


def resolve_in_brain(root: str | os.PathLike[str], rel: str) -> str:
    """The brain path that ``rel`` (normalised, relative, without trailing slash) names once the symlinks on its way
    are followed.

    With ``alias -> real`` in the brain, ``alias/x.md`` gives ``real/x.md``; a link to the brain itself gives ``""``.
    A link out of the brain and a later component back in is the inside path (with ``up -> ..``, ``up/<brain>/x.md``
    gives ``x.md``). A path whose target stays outside the brain (a link to a folder elsewhere), a link loop, or any
    OS error gives ``rel`` unchanged: the brain path is then the only name claims can share. The part that does not
    exist yet keeps its spelling (``alias/new.md`` gives ``real/new.md``).
    """
    if not rel:
        return rel
    base = _real_root(os.fspath(root))
    parts = rel.split("/")
    for _ in range(_MAX_RESPELLINGS):
        inside, respelled = _walk(base, parts)
        if respelled is None:
            return rel if inside is None else inside
        parts = respelled
    return rel


def _walk(base: str, parts: list[str]) -> tuple[str | None, list[str] | None]:
    """Follow ``parts`` below the resolved brain ``base``, one ``lstat`` per component.

    The walk goes on through a link that leaves the brain (``up -> ..``): a later component may come back in
    (``up/<brain>/real/f.md`` is ``real/f.md``), and only the place the whole path reaches says whether it is inside.
    ``folder`` is always the resolved path of the components walked so far. Gives ``(brain path, None)``; ``(None,
    respelled parts)`` when a missing component has a linked sibling of the same key (walk again); ``(None, None)``
    when the path ends outside the brain, loops or cannot be read.
    """
    folder = base
    for number, part in enumerate(parts):
        here = os.path.join(folder, part)
        try:
            mode = os.lstat(here).st_mode
        except (FileNotFoundError, NotADirectoryError):
            name = _linked_children(folder).get(path_key(part))
            if name is not None and name != part:
                return None, [*parts[:number], name, *parts[number + 1 :]]
            inside = brain_relative(base, folder)
            return (None if inside is None else "/".join([*([inside] if inside else []), *parts[number:]])), None
        except (OSError, ValueError):
            return None, None
        folder = os.path.realpath(here) if stat.S_ISLNK(mode) else here
    return brain_relative(base, folder), None


#: How many missing components :func:`resolve_in_brain` respells (each may lead through one more link).
_MAX_RESPELLINGS = 8


#: folder → (its stat key, {key of a child that is a symlink: that child's name}); valid while the folder's
#: mtime and inode hold (making or removing a link moves the mtime).
_LINKED: dict[str, tuple[tuple[int, int], dict[str, str]]] = {}
_LINKED_MAX = 4096


def _linked_children(folder: str) -> dict[str, str]:
    """The symlinks directly in `folder`, by key (memoised per folder state; {} when it cannot be read)."""
    try:
        st = os.stat(folder)
    except OSError:
        return {}
    state = (st.st_mtime_ns, st.st_ino)
    hit = _LINKED.get(folder)
    if hit is not None and hit[0] == state:
        return hit[1]
    links: dict[str, str] = {}
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_symlink():
                    links.setdefault(path_key(entry.name), entry.name)
    except OSError:
        return {}
    if len(_LINKED) >= _LINKED_MAX:
        _LINKED.clear()
    _LINKED[folder] = (state, links)
    return links


def brain_target(root: str | os.PathLike[str], absolute: str) -> str | None:
    """The brain path an absolute path names (what an agent's tool writes): ``""`` for the brain folder itself, None
    when it is outside the brain.

    Links inside the brain are followed (:func:`resolve_in_brain`, respelled as scopes are); a path written below the
    brain whose target is outside it (``ext/x.md`` with ``ext -> /elsewhere``) is the brain path written, not
    "outside": a claim on ``ext/`` holds it. A path through a second name of the brain folder that no link shows (a
    bind mount) is the brain path below it.
    """
    base = _real_root(os.fspath(root))
    real, lexical = os.path.realpath(absolute), os.path.normpath(absolute)
    rel = brain_relative(base, real)
    if rel is None:
        rel = brain_relative(base, lexical)
    if rel is None:
        rel = brain_relative(os.path.normpath(os.path.abspath(os.fspath(root))), lexical)
    if rel is None:
        rel = _below_same_folder(base, real)
    return None if rel is None else resolve_in_brain(base, rel)


def _below_same_folder(base: str, real: str) -> str | None:
    """The relative POSIX path of ``real`` (resolved, outside ``base`` by its spelling) below a folder above it that
    is the resolved folder ``base`` itself under another name: ``""`` for the folder itself, None when no folder above
    is ``base``.

    A bind mount (or a second mount of one disk) shows a folder at a second path that no symlink explains:
    ``/mnt/b/x.md`` is the brain's ``x.md`` when ``/mnt/b`` is the brain's folder (same device and inode).
    """
    try:
        wanted = os.stat(base)
    except OSError:
        return None
    folder, below = real, list[str]()
    while True:
        try:
            if os.path.samestat(os.stat(folder), wanted):
                return "/".join(reversed(below))
        except (OSError, ValueError):
            pass
        parent, name = os.path.split(folder)
        if parent == folder:
            return None
        folder = parent
        below.append(name)


def absolute(path: str, base: str) -> str:
    """`path` made absolute against the folder `base` (the process's own when blank); an absolute path as given."""
    return path if os.path.isabs(path) else os.path.join(base or os.getcwd(), path)


def names_folder(path: str) -> bool:
    """True when a tool's absolute `path` names a folder: written as one (a trailing ``/``, a last ``.``) or an
    existing folder (SPEC 5.1: a path naming an existing folder is a dir even without the slash). A write of it
    (another MCP server's `move_file` or `delete`, `bsi preflight check ID eng`) writes every file below it."""
    return path.endswith(("/", os.sep)) or os.path.basename(path) == "." or os.path.isdir(path)


def below_folder(folder: str | os.PathLike[str], absolute: str) -> str | None:
    """The relative POSIX path of ``absolute`` below ``folder`` (git's own, the brain's) once both are resolved,
    under any name of the folder: ``""`` for the folder itself, None when not below it.

    By spelling first (case-folded: on macOS ``.GIT/hooks`` is ``.git/hooks``), then by identity: a bind mount of the
    folder is the folder (:func:`_below_same_folder`).
    """
    base = os.path.realpath(folder)
    real = os.path.realpath(absolute)
    if real.casefold() == base.casefold():
        return ""
    # part by part: a case fold may change a name's length (``ß`` is ``ss``), so the cut is never by characters
    parts, inside = base.rstrip("/").split("/"), real.split("/")
    if len(inside) > len(parts) and all(a.casefold() == b.casefold() for a, b in zip(parts, inside, strict=False)):
        return "/".join(inside[len(parts):])
    return _below_same_folder(base, real)


def hard_linked(root: str | os.PathLike[str], rel: str) -> str | None:
    """Why a write of the file at a brain path is refused because it has other names (hard links), or None.

    The reason is one line, without the path; None for a file with one name, a missing path, a folder or an OS
    error. Symlinks of ``rel`` are followed.

    A hard link is a second name no path shows: with ``real/c.yml`` linked to ``claims/<id>.yml`` (or to another
    claim's file, or to a file outside the brain), a write through one name changes the others, and neither the
    spelling nor its symlinks say where those are. The write rules refuse a file with more than one name (SPEC is
    silent on hard links; git never makes them in a work tree, so the refusal only meets a link made by hand).
    """
    try:
        st = os.stat(os.path.join(os.fspath(root), rel))
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
        return None
    return (f"it has {st.st_nlink} names (hard links), and a write through one changes the others, which may be "
            "a protocol file or another claim's file: a human gives it a content of its own (copy it, then move "
            "the copy over it)")


def brain_holding(absolute: str) -> str | None:
    """The brain an absolute path (resolved here) lies in: the nearest folder above it holding ``claims/`` or the
    index, resolved, or None when no folder above the path is a brain.

    A write outside the brain a hook found (another brain, a second checkout of the same one) is still a write into
    that brain: its protocol files and its claims hold there too.
    """
    return brain_above(os.path.dirname(os.path.realpath(absolute)))
