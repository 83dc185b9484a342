"""The comparison key of a brain path: two spellings that one machine maps to one file compare equal.

A brain is one git repository checked out on Linux (case-sensitive, bytes as
written) and on macOS (APFS: case-insensitive and normalisation-insensitive),
so ``TODO.md`` and ``todo.md``, ``Notes/`` and ``notes/``, ``café.md`` in NFC
and in NFD are one file on the laptop. Every rule that asks "same path?" or
"below this folder?" — scope intersection and coverage, the scope index,
locks, the kernel zone, the protocol-folder check of the hooks — compares
:func:`path_key` values, never the spellings.

The reading: comparing folded is the safe direction. On Linux ``A.md`` and
``a.md`` may be two files, and a claim on one is then refused while another
claim holds the other (a false refusal, undone by choosing another name); a
double grant of one macOS file is never possible. The key uses full Unicode
case folding (``ß`` meets ``ss``): folding more than a file system does only
ever adds refusals, never a second holder.

Only comparisons fold: claim files, lock files, JSON output and the index keep
the spelling that was written. Standard library only: `bsi hook pre-tool-use`
imports this module on its hot path.
"""

from __future__ import annotations

import os
import unicodedata

__all__ = ["PROTOCOL_DIRS", "PROTOCOL_FILES", "brain_relative", "is_below", "is_protocol_path", "path_key"]

#: The protocol's own folders and files (SPEC 2): written through `bsi` only, never with an editor tool.
PROTOCOL_DIRS = ("claims", "signals", "locks", "breath", ".brain")
PROTOCOL_FILES = ("BRAIN-INDEX.md",)


def path_key(path: str) -> str:
    """The key under which a path is compared: NFC, then full case folding, then NFC again.

    Idempotent (``path_key(path_key(p)) == path_key(p)``); ``/`` is kept, so
    component boundaries survive. ASCII paths fold by ``lower()`` alone.

    Args:
        path: a path, a path component, or any text that names a file.

    Returns:
        The comparison key (never shown, never written).
    """
    if path.isascii():
        return path.lower()
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())


_PROTOCOL_KEYS = frozenset(path_key(name) for name in (*PROTOCOL_DIRS, *PROTOCOL_FILES))


def is_below(dir_key: str, key: str) -> bool:
    """Tell whether the path keyed ``key`` is strictly below the folder keyed ``dir_key``.

    Args:
        dir_key: the :func:`path_key` of a folder, without trailing slash.
        key: the :func:`path_key` of another path, without trailing slash.

    Returns:
        True on a path-component boundary (``agents`` holds ``agents/x.md``, not ``agents-old/x.md``).
    """
    return key.startswith(dir_key + "/")


def is_protocol_path(rel: str) -> bool:
    """Tell whether a brain-relative path is a protocol file or folder, in any spelling.

    ``claims/x.yml``, ``CLAIMS/x.yml``, ``Claims``, ``brain-index.md`` and
    ``.Brain/agents/x.json`` all are: on macOS they are the protocol's files.

    Args:
        rel: a normalised brain-relative POSIX path (no ``./``, no ``..``).

    Returns:
        True when its first component is a protocol folder or the path is a protocol file.
    """
    first = path_key(rel).split("/", 1)[0]
    return first in _PROTOCOL_KEYS


def brain_relative(root: str, real: str) -> str | None:
    """The brain-relative POSIX path of a resolved absolute path, or None when it is outside the brain.

    The brain's own components compare by :func:`path_key`, so a path spelled
    ``/Users/me/Brain/…`` for the brain ``/Users/me/brain`` is inside it (on
    macOS it is); the part below the brain keeps the spelling given.

    Args:
        root: the brain folder, resolved (``os.path.realpath``).
        real: the target, resolved the same way.

    Returns:
        ``""`` for the brain folder itself, the relative path below it, or None when outside.
    """
    root_parts = [part for part in root.split(os.sep) if part]
    parts = [part for part in real.split(os.sep) if part]
    if len(parts) < len(root_parts):
        return None
    for mine, theirs in zip(root_parts, parts, strict=False):
        if mine != theirs and path_key(mine) != path_key(theirs):
            return None
    return "/".join(parts[len(root_parts):])
