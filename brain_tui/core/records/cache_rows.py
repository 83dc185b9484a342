"""The parse cache's rows: a file's key, the outcome of reading it, and their SQLite table.

`cache.ParseCache` (whose docstring explains when a row is still valid) keeps one `Entry` per brain file; `CacheRows`
reads those entries from, and writes them to, ``.brain/parse-cache.sqlite3`` — values are JSON text, never pickle.
Any database trouble means "no cache" for that step, never an error.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

try:  # hashlib's own BLAKE2: `import hashlib` also loads OpenSSL (~3 ms of every start-up, issue 18)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without the builtin module
    from hashlib import blake2b

from brain_tui.core.records.statuses import Status
from brain_tui.core.records.yamlio import make_state_dir

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any
    #: Reads a file's bytes into its outcome data; raises CorruptYaml for a corrupt file.
    Parser = Callable[[bytes], Any]

__all__ = [
    "CacheRows",
    "Entry",
    "FileKey",
    "Hint",
    "Parsed",
    "Read",
    "code_fingerprint",
    "content_digest",
    "file_key",
    "is_json_value",
    "no_gc",
    "outcome_of",
]

#: Bump when the table layout or the meaning of a row changes.
SCHEMA = 1
#: How long a write waits for another process holding the database (then the write is skipped).
BUSY_TIMEOUT_S = 0.25
#: After a failed write (locked, read-only, full disk), how long before trying again.
WRITE_RETRY_S = 30.0

FileKey = tuple[int, int, int, int]
#: A file's bytes, its key after reading and the clock before reading.
Read = tuple[bytes, FileKey, int]
#: ``(sess_id, status)`` of the claim built from an outcome (set by the store); a status the product
#: does not know stays the plain string written, as on a `Claim`.
Hint = tuple[str, Status | str]


def file_key(st: os.stat_result) -> FileKey:
    """The cache key of a file's ``stat`` result: ``(mtime_ns, size, inode, ctime_ns)`` (see `cache`'s docstring)."""
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


class Parsed:
    """The outcome of reading one file (treat as immutable): `data` (after legacy repairs; None when corrupt),
    `corrupt` (``(line, reason)`` or None) and the BLAKE2 `digest` of the bytes ("" when unreadable).

    A plain slotted class, not a dataclass: a cold start makes one per file."""

    __slots__ = ("data", "corrupt", "digest")

    def __init__(self, data: Any = None, corrupt: tuple[int, str] | None = None, digest: str = "") -> None:
        self.data = data
        self.corrupt = corrupt
        self.digest = digest

    def __repr__(self) -> str:
        return f"Parsed(corrupt={self.corrupt!r}, digest={self.digest!r})"


class Entry:
    """One file's cache line. `parsed` is None while the outcome still sits in the database."""

    __slots__ = ("key", "digest", "parsed", "racy", "persist", "hint")

    def __init__(self, key: FileKey, digest: str, parsed: Parsed | None, racy: bool, persist: bool = True,
                 hint: Hint | None = None) -> None:
        self.key = key
        self.digest = digest
        self.parsed = parsed
        self.racy = racy
        self.persist = persist
        self.hint = hint


def is_json_value(value: Any) -> bool:
    """True when ``json.loads(json.dumps(value)) == value`` with the same types (str keys; str/int/float/bool/None/
    list/dict); `value` is parsed YAML, at most 64 levels deep (the loader refuses deeper)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            for key in item:
                if type(key) is not str:
                    return False
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind not in _JSON_SCALARS:
            return False
    return True


_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def content_digest(raw: bytes) -> str:
    """The 16-byte BLAKE2 digest of a file's bytes, as hex (how a racy entry is verified)."""
    return blake2b(raw, digest_size=16).hexdigest()


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic GC while thousands of acyclic dicts are created (it would rescan them many times)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def package_stamp(name: str) -> str:
    """Name, size and mtime of a package's code files, found without importing it (PyYAML: ~10 ms)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
        folder = Path(spec.origin).parent if spec is not None and spec.origin else None
        if folder is None:
            return f"{name}=?"
        files = sorted(
            (entry.name, entry.stat().st_size, entry.stat().st_mtime_ns)
            for entry in os.scandir(folder)
            if entry.name.endswith((".py", ".so", ".pyd"))
        )
    except (ImportError, OSError, ValueError):
        return f"{name}=?"
    return f"{name}={files!r}"


def code_fingerprint(code_files: Iterable[str] = ()) -> str:
    """A digest of the code that turns bytes into outcomes and hints (the cache's own modules, PyYAML's files and
    the user's `code_files`: `BrainStore` names its formats and loaders); a new one empties the cache."""
    from brain_tui import __version__
    from brain_tui.core.records import cache

    sha = blake2b(digest_size=16)
    sha.update(f"schema={SCHEMA}\nversion={__version__}\n{package_stamp('yaml')}\n".encode())
    for module_file in (cache.__file__, __file__, *code_files):
        try:
            sha.update(Path(module_file or "").read_bytes())
        except OSError:
            sha.update(str(module_file).encode())
    return sha.hexdigest()


def outcome_of(value: Any, digest: str) -> Parsed | None:
    """A decoded database outcome as `Parsed` (None when it is not one of the two shapes)."""
    if not isinstance(value, dict):
        return None
    if "c" in value:
        corrupt = value["c"]
        if not (isinstance(corrupt, list) and len(corrupt) == 2 and isinstance(corrupt[0], int)
                and isinstance(corrupt[1], str)):
            return None
        return Parsed(None, (corrupt[0], corrupt[1]), digest)
    if "d" in value:
        return Parsed(value["d"], None, digest)
    return None


class CacheRows:
    """Reading and writing a `ParseCache`'s entries in its SQLite database (the base of `ParseCache`).

    Holds the entries and the bookkeeping of which rows changed; `ParseCache`
    sets these attributes and decides which entries are valid.
    """

    path: Path
    persist: bool
    _entries: dict[str, Entry]
    _loaded: bool
    _pending: int
    _reader: Any
    _broken: bool
    _fingerprint: str | None
    code_files: tuple[str, ...]
    _dirty: set[str]
    _deleted: set[str]
    _retry_at: float

    # -- which rows changed ---------------------------------------------------------------------
    def _set(self, rel: str, entry: Entry) -> None:
        old = self._entries.get(rel)
        if old is not None and old.parsed is None:
            self._pending -= 1
        self._entries[rel] = entry
        if entry.persist:
            self._dirty.add(rel)
            self._deleted.discard(rel)
        else:
            self._dirty.discard(rel)
            self._deleted.add(rel)

    def _drop(self, rel: str) -> None:
        old = self._entries.pop(rel, None)
        if old is not None and old.parsed is None:
            self._pending -= 1
        self._dirty.discard(rel)
        self._deleted.add(rel)

    # -- reading the database -------------------------------------------------------------------
    def _connect(self, write: bool) -> Any:
        import sqlite3

        con = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_S, isolation_level=None,
                              check_same_thread=False)
        if write:
            try:
                con.execute("PRAGMA journal_mode=WAL")
                con.execute("PRAGMA synchronous=NORMAL")
            except Exception:
                con.close()
                raise
        return con

    def _load(self, outcomes: bool, only: list[str] | None = None) -> None:
        """Read the table once; any problem means an empty cache (rebuilt at the next write).

        With `outcomes`, every outcome is fetched and decoded (a full snapshot); else only keys and hints, outcomes
        being fetched one by one when needed. With `only`, only these paths' rows are read (a live-only snapshot)
        and the table stays "not loaded"; rows already in memory are never replaced (memory is at least as new)."""
        if only is None:
            self._loaded = True
        if not self.path.is_file():
            return
        columns = "path, mtime_ns, size, ino, ctime_ns, racy, digest, hint_id, hint_status"
        try:
            fingerprint = self._code_fingerprint()
            con = self._connect(write=False)
            try:
                meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
                if meta.get("schema") != str(SCHEMA) or meta.get("fingerprint") != fingerprint:
                    self._broken = True  # stale: rebuilt from scratch at the next write
                    return
                query = f"SELECT {columns}{', outcome' if outcomes else ''} FROM entries"
                if only is None:
                    rows = con.execute(query).fetchall()
                else:
                    rows = []
                    for start in range(0, len(only), 900):  # sqlite's parameter limit
                        chunk = only[start:start + 900]
                        marks = ",".join("?" * len(chunk))
                        rows.extend(con.execute(f"{query} WHERE path IN ({marks})", chunk).fetchall())
            finally:
                con.close()
        except Exception:
            self._broken = True
            return
        with no_gc():
            decoded = self._decode([row[9] for row in rows]) if outcomes else None
            for number, row in enumerate(rows):
                try:
                    rel, mtime, size, ino, ctime, racy, digest, hint_id, hint_status = row[:9]
                    if str(rel) in self._entries:
                        continue
                    parsed = outcome_of(decoded[number], str(digest)) if decoded is not None else None
                    if outcomes and parsed is None:
                        continue
                    hint = (str(hint_id), Status.of(str(hint_status)) or str(hint_status)) \
                        if hint_id is not None and hint_status is not None else None
                    self._entries[str(rel)] = Entry((int(mtime), int(size), int(ino), int(ctime)), str(digest),
                                                     parsed, racy=bool(racy), hint=hint)
                    if parsed is None:
                        self._pending += 1
                except Exception:  # one bad row: that file is parsed again
                    continue

    @staticmethod
    def _decode(texts: list[Any]) -> list[Any]:
        """Decode many JSON texts with one `json.loads` (one by one if the batch fails)."""
        try:
            return list(json.loads("[" + ",".join(texts) + "]"))
        except (ValueError, TypeError, RecursionError):
            out: list[Any] = []
            for text in texts:
                try:
                    out.append(json.loads(text))
                except (ValueError, TypeError, RecursionError):
                    out.append(None)
            return out

    def _fetch(self, rel: str, entry: Entry) -> Parsed | None:
        """One pending outcome, only if the row still has the entry's key and digest; None otherwise."""
        try:
            if self._reader is None:
                self._reader = self._connect(write=False)
            row = self._reader.execute(
                "SELECT outcome FROM entries WHERE path = ? AND mtime_ns = ? AND size = ? AND ino = ?"
                " AND ctime_ns = ? AND digest = ?", (rel, *entry.key, entry.digest)
            ).fetchone()
            parsed = outcome_of(json.loads(row[0]), entry.digest) if row is not None else None
        except Exception:
            parsed = None
        if parsed is None:
            self._drop(rel)
            self._deleted.discard(rel)
            return None
        entry.parsed = parsed
        self._pending -= 1
        return parsed

    def _fetch_all(self) -> None:
        """Every pending outcome in one query (rows that moved on are dropped and parsed again)."""
        try:
            con = self._connect(write=False)
            try:
                rows = con.execute("SELECT path, mtime_ns, size, ino, ctime_ns, digest, outcome FROM entries"
                                   ).fetchall()
            finally:
                con.close()
        except Exception:
            rows = []
        with no_gc():
            wanted = []
            for row in rows:
                entry = self._entries.get(row[0])
                if entry is not None and entry.parsed is None and tuple(row[1:5]) == entry.key \
                        and row[5] == entry.digest:
                    wanted.append((entry, row[6]))
            decoded = self._decode([text for _entry, text in wanted])
            for (entry, _text), outcome in zip(wanted, decoded, strict=True):
                parsed = outcome_of(outcome, entry.digest)
                if parsed is not None:
                    entry.parsed = parsed
                    self._pending -= 1
        for rel in [r for r, e in self._entries.items() if e.parsed is None]:
            self._drop(rel)
            self._deleted.discard(rel)

    def _code_fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = code_fingerprint(self.code_files)
        return self._fingerprint

    # -- writing the database -------------------------------------------------------------------
    def flush(self) -> bool:
        """Write what changed since the last flush (one transaction; never raises): True when the database now holds
        this cache's state (or nothing needed writing)."""
        if self._reader is not None:
            with contextlib.suppress(Exception):
                self._reader.close()
            self._reader = None
        if not self.persist or (not self._dirty and not self._deleted and not self._broken):
            return True
        if time.monotonic() < self._retry_at:
            return False
        try:
            self._write()
        except Exception:
            self._retry_at = time.monotonic() + WRITE_RETRY_S
            return False
        return True

    def _write(self) -> None:
        make_state_dir(self.path.parent)
        if self._broken:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{self.path}{suffix}")
        fingerprint = self._code_fingerprint()
        con = self._connect(write=True)
        try:
            con.execute("BEGIN IMMEDIATE")
            try:
                con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                con.execute(
                    "CREATE TABLE IF NOT EXISTS entries (path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL,"
                    " size INTEGER NOT NULL, ino INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,"
                    " racy INTEGER NOT NULL, digest TEXT NOT NULL, hint_id TEXT, hint_status TEXT,"
                    " outcome TEXT NOT NULL)"
                )
                meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
                rels: Iterable[str]
                if meta.get("schema") != str(SCHEMA) or meta.get("fingerprint") != fingerprint or self._broken:
                    con.execute("DELETE FROM entries")
                    con.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                    [("schema", str(SCHEMA)), ("fingerprint", fingerprint)])
                    rels = list(self._entries)
                else:
                    con.executemany("DELETE FROM entries WHERE path = ?", [(r,) for r in self._deleted])
                    rels = self._dirty
                rows = [row for row in (self._row(rel) for rel in rels) if row is not None]
                con.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
                con.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(Exception):
                    con.execute("ROLLBACK")
                raise
        finally:
            con.close()
        self._dirty.clear()
        self._deleted.clear()
        self._broken = False

    def _row(self, rel: str) -> tuple[Any, ...] | None:
        entry = self._entries.get(rel)
        if entry is None or not entry.persist or entry.parsed is None:
            return None
        parsed = entry.parsed
        outcome: dict[str, Any] = {"c": list(parsed.corrupt)} if parsed.corrupt is not None else {"d": parsed.data}
        try:
            text = json.dumps(outcome, ensure_ascii=True, allow_nan=True, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):
            return None
        hint_id, hint_status = entry.hint if entry.hint is not None else (None, None)
        mtime, size, ino, ctime = entry.key
        return (rel, mtime, size, ino, ctime, int(entry.racy), entry.digest, hint_id, hint_status, text)

