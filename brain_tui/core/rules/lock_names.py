"""Which paths a lock file holds (SPEC 9): `locks/<percent-encoded normalised path>.yml`.

A lock file holds the path its `file:` names and the path its name decodes to, in any spelling of that name
(``%2f`` or ``%2F``, an unencoded character encoded, ``./``, ``//``, a trailing ``/``). When a hand edit or a bad
merge made the two disagree, it holds both (SPEC 22: fail closed).
"""

from __future__ import annotations

from urllib.parse import unquote

from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.layout import LOCKS_DIR
from brain_tui.core.paths.scope_paths import normalize_path
from brain_tui.core.records.formats import encode_lock_name
from brain_tui.core.records.model import Lock


def lock_file_path(file: str) -> str:
    """Normalise a file path for locking: SPEC 5.1, no trailing slash (`./agents//foo.md` → `agents/foo.md`).

    Raises:
        InvalidData: empty, absolute, `..`, backslash or control characters (exit 65).
    """
    return normalize_path(file).rstrip("/")


def lock_rel_path(file: str) -> str:
    """Where the lock of a normalised file lives: `locks/<percent-encoded path>.yml` (collision-free)."""
    return f"{LOCKS_DIR}/{encode_lock_name(file)}"


def lock_key(lock: Lock) -> str:
    """The normalised path a lock file names (its raw `file:` text when that does not normalise)."""
    try:
        return lock_file_path(lock.file)
    except InvalidData:
        return lock.file


def name_path(rel_path: str) -> str | None:
    """The normalised path a lock file's name decodes to (`locks/<percent-encoded path>.yml`, in any spelling:
    ``bravo%2fx.md.yml``, ``.%2Fbravo%2Fx.md.yml``), or None for a legacy `.lock` name or one naming no path."""
    prefix = f"{LOCKS_DIR}/"
    if not rel_path.startswith(prefix) or not rel_path.endswith(".yml"):
        return None
    try:
        return lock_file_path(unquote(rel_path[len(prefix):-len(".yml")]))
    except InvalidData:
        return None


def lock_paths(lock: Lock) -> tuple[str, ...]:
    """Every path a lock file holds: the one its `file:` names (`lock_key`) and, when it differs, the one its file
    name decodes to. A hand edit or a bad merge that made the two disagree holds both (SPEC 22: fail closed)."""
    key = lock_key(lock)
    named = name_path(lock.path)
    return (key,) if named is None or named == key else (key, named)
