"""The parse cache: each brain file is parsed once per change, across processes (DESIGN 4).

`BrainStore` asks :class:`ParseCache` for the *outcome of reading* one file —
the raw mapping the safe loader gave (after legacy repairs), or the reason it
is corrupt — and builds its Claim/Signal/Lock objects from that. Outcomes are
kept in memory and, so that a cold `bsi` process on 10,000 claims parses
nothing that did not change, in ``.brain/parse-cache.sqlite3`` (stdlib
sqlite3; values are JSON text — never pickle, nothing executable is ever read
back).

Validity: when is a cached outcome still the file's content?
----------------------------------------------------------------
An entry is keyed by the file's ``(mtime_ns, size, inode, ctime_ns)``:

* ``mtime_ns`` and ``size`` move on ordinary edits;
* ``inode`` moves on every atomic write (temp file + rename: the product's own
  writes, most editors, ``git checkout``);
* ``ctime_ns`` is the answer to "mtime lies". ``os.utime``/``touch -d`` can put
  mtime back to its old value after an edit, and an edit can keep the size, so
  ``(mtime_ns, size, inode)`` alone misses an in-place same-size edit whose
  mtime is reset. The kernel sets ctime to the current time on every write,
  chmod, rename or ``utime`` itself, and no system call sets it to a chosen
  value. So a content change always moves ctime — *unless it happens within
  the same timestamp tick as the previous change*.

That last case is real: Linux stamps files from a coarse clock (one tick is
1–10 ms), some filesystems keep whole seconds (ext3, HFS+) or two (FAT). Two
writes in one tick, same size, look identical to ``stat``. The remedy is git's
"racy clean" rule: an entry read less than :data:`RACY_NS` (2 s) after the
file's last change (``max(mtime, ctime)``, measured on the same clock) is
*racy*: it also stores a BLAKE2 digest of the bytes, and a later lookup with a
matching key re-reads the file (a few µs) and compares digests instead of
trusting the key. Once the file is older than the window, a matching digest
*settles* the entry (any later write would carry a later ctime, so the key
alone is enough from then on). A key that changed between the directory scan
and the read is treated as racy too. What remains unprotected: a writer that
forges ctime (changing the system clock, or raw disk edits) or a filesystem
whose clock runs more than 2 s behind ours (a skewed NFS server) — the cache
then trusts ``stat`` exactly as `make` and git do.

Hints: the store records, with each claim's outcome, the ``(sess_id, status)``
it built from it. A snapshot that only wants some statuses (``bsi claim list``,
``bsi check-scope``: open/waiting/paused/stale) skips the other claims on a
valid entry without decoding their outcome — the database is first read
without outcomes, which are then fetched one by one only for the claims kept.

Cold starts: when thousands of files miss the cache, one helper process on a
second core parses part of them (`ParseCache.prefetch`, `helper_main`); it
receives paths and answers JSON over pipes, and any failure of it only means
this process parses those files too.

Other invalidation: the cache has a fingerprint of the code that produces
outcomes and hints (this module, `yamlio`, `store`, `clock`, and PyYAML's
files); a different fingerprint empties it. Rows are JSON; a row that
does not decode is ignored.

Failure policy: the cache may make things faster, never wrong or broken. Any
error opening, reading or writing the database (corrupt file, locked by
another process past a short timeout, read-only or full disk, no ``.brain/``
permission) means "no cache" for that step; the command goes on with parsing.
Writes are one sqlite transaction each (WAL journal, ``synchronous=NORMAL``),
so a crash or ``kill -9`` leaves the old or the new state, never a torn one; a
database that fails to open is deleted and rebuilt at the next write.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from brain_tui.core.layout import CACHE_FILE, STATE_DIR
from brain_tui.core.yamlio import MAX_FILE_BYTES, CorruptYaml

__all__ = [
    "CACHE_FILE",
    "pausing_gc",
    "RACY_NS",
    "FileKey",
    "Hint",
    "Parsed",
    "ParseCache",
    "file_key",
    "is_json_value",
]

#: Bump when the table layout or the meaning of a row changes.
SCHEMA = 1
#: A file changed less than this before it was read is verified by digest until it settles.
RACY_NS = 2_000_000_000
#: How long a write waits for another process holding the database (then the write is skipped).
BUSY_TIMEOUT_S = 0.25
#: Cache misses needed before a helper process on another core is worth its start-up (~0.1 s).
PARALLEL_MIN = 2000
#: A helper that has not answered this long after this process finished its own share is given up.
HELPER_TIMEOUT_S = 60.0
#: After a failed write (locked, read-only, full disk), how long before trying again.
WRITE_RETRY_S = 30.0
#: `_check`'s answer when the file disappeared while being verified.
_VANISHED = object()

FileKey = tuple[int, int, int, int]
#: A file's bytes, its key after reading and the clock before reading.
Read = tuple[bytes, FileKey, int]
#: ``(sess_id, status)`` of the claim built from an outcome (set by the store).
Hint = tuple[str, str]
#: Reads a file's bytes into its outcome data; raises CorruptYaml for a corrupt file.
Parser = Callable[[bytes], Any]


def file_key(st: os.stat_result) -> FileKey:
    """The cache key of a file: ``(mtime_ns, size, inode, ctime_ns)`` (see the module docstring).

    Args:
        st: the file's ``stat`` (or ``lstat``/``DirEntry.stat``) result.

    Returns:
        The key tuple.
    """
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


class Parsed:
    """The outcome of reading one file: its data, or why it is corrupt (treat as immutable).

    A plain slotted class, not a dataclass: a cold start makes one per file.

    Attributes:
        data: what the safe loader gave (after legacy repairs); None when corrupt.
        corrupt: ``(line, reason)`` when the file is corrupt, else None.
        digest: BLAKE2 digest of the bytes read ("" when the file was unreadable).
    """

    __slots__ = ("data", "corrupt", "digest")

    def __init__(self, data: Any = None, corrupt: tuple[int, str] | None = None, digest: str = "") -> None:
        self.data = data
        self.corrupt = corrupt
        self.digest = digest

    def __repr__(self) -> str:
        return f"Parsed(corrupt={self.corrupt!r}, digest={self.digest!r})"


class _Entry:
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
    """Tell whether `value` survives a JSON round trip unchanged (str keys; str/int/float/bool/None/list/dict).

    Args:
        value: parsed YAML data (at most 64 levels deep: the loader refuses deeper).

    Returns:
        True when ``json.loads(json.dumps(value)) == value`` with the same types.
    """
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


def _digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic GC while thousands of acyclic dicts are created (it would rescan them many times)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def pausing_gc(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: run `func` with the cyclic GC paused (for the snapshot that builds thousands of objects).

    The objects a snapshot makes are acyclic, so collections during it only
    rescan them; pausing saves ~15 % of a cold start on 10,000 claims. The
    previous state is restored, so nested or concurrent uses leave it enabled.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _no_gc():
            return func(*args, **kwargs)

    return wrapper


def _package_stamp(name: str) -> str:
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


def _fingerprint() -> str:
    """A digest of the code that turns bytes into outcomes; a new one empties the cache."""
    from brain_tui import __version__
    from brain_tui.core import clock, store, yamlio

    sha = hashlib.blake2b(digest_size=16)
    sha.update(f"schema={SCHEMA}\nversion={__version__}\n{_package_stamp('yaml')}\n".encode())
    for module_file in (yamlio.__file__, store.__file__, clock.__file__, __file__):
        try:
            sha.update(Path(module_file or "").read_bytes())
        except OSError:
            sha.update(str(module_file).encode())
    return sha.hexdigest()


class ParseCache:
    """Outcomes of reading brain files, valid per `file_key`, in memory and in ``.brain/``.

    Each entry may also carry a *hint* set by the store — ``(sess_id, status)``
    of the claim built from that outcome — so a snapshot that only wants some
    statuses (``bsi claim list``, ``bsi check-scope``) can skip the other
    claims without even decoding their cached outcome.

    Args:
        root: the brain folder.
        persist: False keeps the cache in memory only (nothing read or written under ``.brain/``).
        clock_ns: the wall clock used for the racy window (tests); `time.time_ns` by default.
    """

    def __init__(self, root: str | os.PathLike[str], *, persist: bool = True,
                 clock_ns: Callable[[], int] = time.time_ns) -> None:
        self.root = Path(root)
        self._root_text = os.fspath(self.root)
        self.persist = persist
        self.path = self.root / STATE_DIR / CACHE_FILE
        self._clock_ns = clock_ns
        self._entries: dict[str, _Entry] = {}
        self._loaded = not persist
        self._pending = 0
        self._reader: Any = None
        self._broken = False
        self._fingerprint: str | None = None
        self._dirty: set[str] = set()
        self._deleted: set[str] = set()
        self._retry_at = 0.0
        self._verified_now: set[str] = set()
        #: files parsed (cache misses) since the last `reset_counters()`.
        self.parsed = 0
        #: files whose racy entry was re-read to compare digests since the last `reset_counters()`.
        self.verified = 0

    # -- lookups --------------------------------------------------------------------------------
    def reset_counters(self) -> None:
        """Zero `parsed` and `verified`, and forget which racy entries were verified: call per snapshot."""
        self.parsed = 0
        self.verified = 0
        self._verified_now.clear()

    def preload(self) -> None:
        """Fetch every cached outcome at once (one query, one JSON decode): call before reading all files."""
        if not self._loaded:
            self._load(outcomes=True)
        elif self._pending:
            self._fetch_all()

    def get(self, rel: str, st: os.stat_result, parse: Parser) -> Parsed | None:
        """The outcome of reading `rel`, from the cache when still valid, else by reading and parsing it.

        Args:
            rel: the file's path relative to the brain root (``claims/x.yml``).
            st: its ``stat`` from the directory scan.
            parse: turns the file's bytes into its data; raises `CorruptYaml` for a corrupt file.

        Returns:
            The outcome, or None when the file vanished since the scan.
        """
        key = file_key(st)
        entry, read = self._check(rel, key)
        if entry is not None:
            parsed = entry.parsed if entry.parsed is not None else self._fetch(rel, entry)
            if parsed is not None:
                return parsed
        if read is _VANISHED:
            self._drop(rel)
            return None
        return self._parse(rel, key, parse, read)

    def hint(self, rel: str, st: os.stat_result) -> Hint | None:
        """The hint of a file whose cache entry is still valid, else None.

        Args:
            rel: the file's path relative to the brain root.
            st: its ``stat`` from the directory scan.

        Returns:
            ``(sess_id, status)`` recorded by `set_hint`, or None (unknown, stale, or not a claim).
        """
        entry, _read = self._check(rel, file_key(st))
        return entry.hint if entry is not None else None

    def set_hint(self, rel: str, parsed: Parsed, hint: Hint | None) -> None:
        """Record what the store built from `parsed` (ignored when the entry moved on since).

        Args:
            rel: the file's path relative to the brain root.
            parsed: the outcome the hint was computed from.
            hint: ``(sess_id, status)`` for a claim, None for anything else.
        """
        entry = self._entries.get(rel)
        if entry is None or entry.parsed is not parsed or entry.hint == hint:
            return
        entry.hint = hint
        if entry.persist:
            self._dirty.add(rel)

    def _check(self, rel: str, key: FileKey) -> tuple[_Entry | None, Any]:
        """``(entry, None)`` when the cached entry is valid; else ``(None, read)``.

        ``read`` is the ``(bytes, key)`` already read while verifying a racy
        entry, `_VANISHED` when the file is gone, or None.
        """
        if not self._loaded:
            self._load(outcomes=False)
        entry = self._entries.get(rel)
        if entry is None or entry.key != key:
            return None, None
        if not entry.racy or rel in self._verified_now:
            return entry, None
        self.verified += 1
        try:
            read = self._read(rel)
        except OSError:
            return None, None
        if read is None:
            return None, _VANISHED
        raw, after, read_ns = read
        if after != key or not entry.digest or _digest(raw) != entry.digest:
            return None, read
        if entry.parsed is not None and self._settled(after, read_ns):
            entry.racy = False
            if entry.persist:
                self._dirty.add(rel)
        else:
            self._verified_now.add(rel)  # once per snapshot is enough
        return entry, None

    @staticmethod
    def _settled(key: FileKey, read_ns: int) -> bool:
        """True when the file's last change came at least `RACY_NS` before a read that began at `read_ns`."""
        return read_ns - max(key[0], key[3]) >= RACY_NS

    def _read(self, rel: str) -> Read | None:
        """The file's bytes (at most the size limit + 1), its key *after* reading and the clock *before*.

        Returns None when the file vanished.
        """
        read_ns = self._clock_ns()
        try:
            with open(os.path.join(self._root_text, rel), "rb") as handle:  # not pathlib: once per file
                raw = handle.read(MAX_FILE_BYTES + 1)
                after = file_key(os.fstat(handle.fileno()))
        except (FileNotFoundError, NotADirectoryError):
            return None
        return raw, after, read_ns

    def _parse(self, rel: str, key: FileKey, parse: Parser, read: Read | None) -> Parsed | None:
        if read is None:
            try:
                read = self._read(rel)
            except OSError as exc:  # unreadable: shown as corrupt, kept in memory only, retried when stat moves
                parsed = Parsed(None, (0, exc.strerror or "unreadable"), "")
                self._set(rel, _Entry(key, "", parsed, racy=False, persist=False))
                return parsed
            if read is None:
                self._drop(rel)
                return None
        raw, after, read_ns = read
        self.parsed += 1
        digest = _digest(raw)
        try:
            parsed = Parsed(parse(raw), None, digest)
        except CorruptYaml as exc:
            parsed = Parsed(None, (exc.line, exc.reason), digest)
        self._install(rel, key, after, read_ns, parsed, is_json_value(parsed.data))
        return parsed

    def _install(self, rel: str, key: FileKey, after: FileKey, read_ns: int, parsed: Parsed, persist: bool) -> None:
        racy = after != key or not self._settled(after, read_ns)
        self._set(rel, _Entry(after, parsed.digest, parsed, racy=racy, persist=persist))

    # -- many misses at once --------------------------------------------------------------------
    def prefetch(self, groups: Sequence[tuple[Sequence[tuple[str, os.stat_result]], Parser]]) -> None:
        """Parse, before they are asked for, the files whose cache entry is missing or stale.

        When there are many (a cold start), one helper process on another core
        parses part of them (`helper_main`); any trouble with it and this process
        parses everything itself. Files with a valid entry are not touched, and a
        warm cache costs no pass over the files at all.

        Args:
            groups: ``([(rel, stat), ...], parser)`` for every file a snapshot is about to read.
        """
        if not self._loaded:
            self._load(outcomes=False)
        if sum(len(group) for group, _parse in groups) - len(self._entries) < PARALLEL_MIN:
            return  # too few unknown files to need a helper
        misses: list[tuple[str, FileKey, Parser]] = []
        for group, parse in groups:
            for rel, st in group:
                key = file_key(st)
                entry, read = self._check(rel, key)
                if entry is None and read is not _VANISHED:
                    misses.append((rel, key, parse))
        if len(misses) < PARALLEL_MIN or not _spare_core():
            return
        share = _helper_share(len(misses))
        mine, theirs = misses[: len(misses) - share], misses[len(misses) - share:]
        helper = _Helper.start(self.root, [(rel, parse) for rel, _key, parse in theirs])
        for rel, key, parse in mine:
            self._parse(rel, key, parse, None)
        answers = helper.finish() if helper is not None else None
        for rel, key, parse in theirs:
            answer = answers.get(rel) if answers is not None else None
            if answer is None:
                self._parse(rel, key, parse, None)
                continue
            after, read_ns, digest, outcome = answer
            parsed = _outcome(outcome, digest)
            if parsed is None:
                self._parse(rel, key, parse, None)
                continue
            self.parsed += 1
            self._install(rel, key, after, read_ns, parsed, True)

    def _set(self, rel: str, entry: _Entry) -> None:
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

    def forget_missing(self, seen: Iterable[str]) -> None:
        """Drop the entries of files that are gone.

        Args:
            seen: every path the scan found (entries of other paths are dropped).
        """
        present = seen if isinstance(seen, (set, frozenset)) else set(seen)
        for rel in [r for r in self._entries if r not in present]:
            self._drop(rel)

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

    def _load(self, outcomes: bool) -> None:
        """Read the table once; any problem means an empty cache (rebuilt at the next write).

        Args:
            outcomes: also fetch and decode every outcome (a full snapshot); else only keys and
                hints, outcomes being fetched one by one when needed (a snapshot that skips most claims).
        """
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
                rows = con.execute(query).fetchall()
            finally:
                con.close()
        except Exception:
            self._broken = True
            return
        with _no_gc():
            decoded = self._decode([row[9] for row in rows]) if outcomes else None
            for number, row in enumerate(rows):
                try:
                    rel, mtime, size, ino, ctime, racy, digest, hint_id, hint_status = row[:9]
                    parsed = _outcome(decoded[number], str(digest)) if decoded is not None else None
                    if outcomes and parsed is None:
                        continue
                    hint = (str(hint_id), str(hint_status)) if hint_id is not None and hint_status is not None \
                        else None
                    self._entries[str(rel)] = _Entry((int(mtime), int(size), int(ino), int(ctime)), str(digest),
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

    def _fetch(self, rel: str, entry: _Entry) -> Parsed | None:
        """One pending outcome, only if the row still has the entry's key and digest; None otherwise."""
        try:
            if self._reader is None:
                self._reader = self._connect(write=False)
            row = self._reader.execute(
                "SELECT outcome FROM entries WHERE path = ? AND mtime_ns = ? AND size = ? AND ino = ?"
                " AND ctime_ns = ? AND digest = ?", (rel, *entry.key, entry.digest)
            ).fetchone()
            parsed = _outcome(json.loads(row[0]), entry.digest) if row is not None else None
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
        with _no_gc():
            wanted = []
            for row in rows:
                entry = self._entries.get(row[0])
                if entry is not None and entry.parsed is None and tuple(row[1:5]) == entry.key \
                        and row[5] == entry.digest:
                    wanted.append((entry, row[6]))
            decoded = self._decode([text for _entry, text in wanted])
            for (entry, _text), outcome in zip(wanted, decoded, strict=True):
                parsed = _outcome(outcome, entry.digest)
                if parsed is not None:
                    entry.parsed = parsed
                    self._pending -= 1
        for rel in [r for r, e in self._entries.items() if e.parsed is None]:
            self._drop(rel)
            self._deleted.discard(rel)

    def _code_fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = _fingerprint()
        return self._fingerprint

    # -- writing the database -------------------------------------------------------------------
    def flush(self) -> bool:
        """Write what changed since the last flush (one transaction). Never raises.

        Returns:
            True when the database now holds this cache's state (or nothing needed writing).
        """
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
        state = self.path.parent
        if not state.is_dir():
            state.mkdir(parents=False, exist_ok=True)
            ignore = state / ".gitignore"
            if not ignore.exists():  # local state: never committed, even where the brain's .gitignore forgot it
                ignore.write_text("*\n", encoding="utf-8")
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


def _outcome(value: Any, digest: str) -> Parsed | None:
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


# --------------------------------------------------------------------------- helper processes


def _spare_core() -> bool:
    """True when this process may use a second core (and can start Python again)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores >= 2 and bool(sys.executable)


def _helper_share(misses: int) -> int:
    """How many of `misses` files one helper takes: about half, less its start-up (~1,300 files' worth)."""
    return max(0, (misses - 1300) // 2)


def _parser_name(parse: Parser) -> str | None:
    """``module:function`` of a parser the helper can import (only brain_tui's own), else None."""
    module, name = getattr(parse, "__module__", ""), getattr(parse, "__qualname__", "")
    if not module.startswith("brain_tui.") or not name.isidentifier():
        return None
    return f"{module}:{name}"


class _Helper:
    """One helper process parsing a list of files; talks JSON over pipes (never pickle)."""

    def __init__(self, process: Any, writer: Any) -> None:
        self.process = process
        self.writer = writer

    @classmethod
    def start(cls, root: Path, files: list[tuple[str, Parser]]) -> _Helper | None:
        """Start a helper on `files`; None when it cannot start (then the caller parses them)."""
        import subprocess
        import threading

        names = [_parser_name(parse) for _rel, parse in files]
        if not files or None in names:
            return None
        request = json.dumps({"root": str(root), "files": [[rel, name] for (rel, _p), name in zip(files, names,
                                                                                                  strict=True)]})
        import brain_tui

        package_home = str(Path(brain_tui.__file__).resolve().parent.parent)  # the same code as this process
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_home,
                                                                          os.environ.get("PYTHONPATH")]))}
        try:
            read_fd, write_fd = os.pipe()
            try:
                process = subprocess.Popen(
                    [sys.executable, "-c", "from brain_tui.core.cache import helper_main; helper_main()"],
                    stdin=read_fd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True, env=env,
                )
            finally:
                os.close(read_fd)
        except (OSError, ValueError):
            with contextlib.suppress(Exception):
                os.close(write_fd)
            return None

        def feed() -> None:  # a pipe holds 64 KiB: write from a thread so this process starts parsing now
            with contextlib.suppress(OSError), os.fdopen(write_fd, "wb") as pipe:
                pipe.write(request.encode("utf-8"))

        writer = threading.Thread(target=feed, name="parse-cache-helper-feed", daemon=True)
        writer.start()
        return cls(process, writer)

    def finish(self) -> dict[str, tuple[FileKey, int, str, Any]] | None:
        """The helper's answers by path; None when it failed (then the caller parses everything)."""
        import subprocess

        try:
            out, _err = self.process.communicate(timeout=HELPER_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()
            return None
        finally:
            self.writer.join(timeout=1.0)
        if self.process.returncode != 0:
            return None
        answers: dict[str, tuple[FileKey, int, str, Any]] = {}
        try:
            with _no_gc():
                for rel, after, read_ns, digest, outcome in json.loads(out):
                    if after is not None and outcome is not None:
                        answers[str(rel)] = (tuple(after), int(read_ns), str(digest), outcome)
        except (ValueError, TypeError):
            return None
        return answers


def helper_main() -> None:
    """The helper process: read ``{"root", "files": [[rel, "module:parser"]]}`` on stdin, answer JSON on stdout.

    Each answer is ``[rel, key_after, read_ns, digest, outcome]``; key and outcome
    are null when the file vanished, could not be read or gave data JSON cannot
    hold (the parent then reads that file itself).
    """
    import importlib

    request = json.loads(sys.stdin.buffer.read())
    cache = ParseCache(request["root"], persist=False)
    parsers: dict[str, Parser] = {}
    answers = []
    with _no_gc():
        for rel, name in request["files"]:
            parse = parsers.get(name)
            if parse is None:
                module, _sep, attr = name.partition(":")
                if not module.startswith("brain_tui."):
                    raise SystemExit(2)
                parse = parsers[name] = getattr(importlib.import_module(module), attr)
            try:
                read = cache._read(rel)
            except OSError:
                read = None
            if read is None:
                answers.append([rel, None, 0, "", None])
                continue
            raw, after, read_ns = read
            try:
                data = parse(raw)
            except CorruptYaml as exc:
                outcome: Any = {"c": [exc.line, exc.reason]}
            else:
                outcome = {"d": data} if is_json_value(data) else None
            answers.append([rel, list(after), read_ns, _digest(raw), outcome])
        sys.stdout.write(json.dumps(answers, ensure_ascii=True, separators=(",", ":")))
    sys.stdout.flush()
