"""The parse cache: each brain file is parsed once per change, across processes (DESIGN 4).

`BrainStore` asks :class:`ParseCache` for the *outcome of reading* one file — the raw mapping the safe loader gave
(after legacy repairs), or the reason it is corrupt — and builds its Claim/Signal/Lock objects from that. Outcomes
are kept in memory and, so that a cold `bsi` process on 10,000 claims parses nothing that did not change, in
``.brain/parse-cache.sqlite3`` (stdlib sqlite3; values are JSON text — never pickle, nothing executable is ever read
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

That last case is real: Linux stamps files from a coarse clock (one tick is 1–10 ms), some filesystems keep whole
seconds (ext3, HFS+) or two (FAT). Two writes in one tick, same size, look identical to ``stat``. The remedy is git's
"racy clean" rule: an entry read less than :data:`RACY_NS` (2 s) after the file's last change (``max(mtime, ctime)``,
measured on the same clock) is *racy*: it also stores a BLAKE2 digest of the bytes, and a later lookup with a
matching key re-reads the file (a few µs) and compares digests instead of trusting the key. Once the file is older
than the window, a matching digest *settles* the entry (any later write would carry a later ctime, so the key alone
is enough from then on). A key that changed between the directory scan and the read is treated as racy too. What
remains unprotected: a writer that forges ctime (changing the system clock, or raw disk edits) or a filesystem whose
clock runs more than 2 s behind ours (a skewed NFS server) — the cache then trusts ``stat`` exactly as `make` and git
do.

Hints: the store records, with each claim's outcome, the ``(sess_id, status)`` it built from it. A snapshot that only
wants some statuses (``bsi claim list``, ``bsi check-scope``: open/waiting/paused/stale) skips the other claims on a
valid entry without decoding their outcome — the database is first read without outcomes, which are then fetched one
by one only for the claims kept.

Cold starts: every missing file is parsed by this process, as it is asked for (a helper
process on a second core paid under 1.3× on cold starts and was removed).

Other invalidation: the cache has a fingerprint of the code that produces outcomes and hints (this module,
`cache_rows`, PyYAML's files, and the `code_files` its user passes in: `BrainStore` names `formats`, `yamlio`,
`clock`, `ids` and itself); a different fingerprint empties it. Rows are JSON; a row that does not decode is ignored.

Failure policy: the cache may make things faster, never wrong or broken. Any error opening, reading or writing the
database (corrupt file, locked by another process past a short timeout, read-only or full disk, no ``.brain/``
permission) means "no cache" for that step; the command goes on with parsing. Writes are one sqlite transaction each
(WAL journal, ``synchronous=NORMAL``), so a crash or ``kill -9`` leaves the old or the new state, never a torn one; a
database that fails to open is deleted and rebuilt at the next write.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from brain_tui.core.paths.layout import CACHE_FILE, STATE_DIR
from brain_tui.core.records.cache_rows import (
    CacheRows,
    Entry,
    FileKey,
    Hint,
    Parsed,
    Read,
    content_digest,
    file_key,
    is_json_value,
    no_gc,
)
from brain_tui.core.records.yamlio import MAX_FILE_BYTES, CorruptYaml

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, ParamSpec, TypeVar

    from brain_tui.core.records.cache_rows import Parser
    P = ParamSpec("P")
    R = TypeVar("R")

__all__ = [
    "CACHE_FILE",
    "one_reader",
    "pausing_gc",
    "RACY_NS",
    "FileKey",
    "Hint",
    "Parsed",
    "ParseCache",
    "file_key",
    "is_json_value",
]

#: A file changed less than this before it was read is verified by digest until it settles.
RACY_NS = 2_000_000_000
#: `_check`'s answer when the file disappeared while being verified.
_VANISHED = object()


def pausing_gc(func: Callable[P, R]) -> Callable[P, R]:
    """Decorator: run `func` with the cyclic GC paused (for the snapshot that builds thousands of objects).

    The objects a snapshot makes are acyclic, so collections during it only rescan them; pausing saves ~15 % of a
    cold start on 10,000 claims. The previous state is restored, so nested or concurrent uses leave it enabled.
    """

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with no_gc():
            return func(*args, **kwargs)

    return wrapper


def one_reader(method: Callable[P, R]) -> Callable[P, R]:
    """Decorator of a `BrainStore` read: one thread of the process reads through a store at a time (its `reading`).

    A read keeps its state on the store (the odd entries its scans met, the scopes memo, the closed set and owners
    of the last snapshot, the built claims it prunes): an MCP server answers the tool calls a client sends at once
    in worker threads over one store, and a read begun meanwhile emptied another's list of links, so that read lost
    the corrupt row that holds the whole brain (SPEC 22). A read served from the caches is short; re-entrant.
    """

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with args[0].reading:  # type: ignore[attr-defined]
            return method(*args, **kwargs)

    return wrapper


class ParseCache(CacheRows):
    """Outcomes of reading brain files, valid per `file_key`, in memory and (unless not `persist`) in ``.brain/``.

    Each entry may also carry a *hint* set by the store — ``(sess_id, status)`` of the claim built from that outcome
    — so a snapshot that only wants some statuses (``bsi claim list``, ``bsi check-scope``) can skip the other claims
    without even decoding their cached outcome. `clock_ns` times the racy window (tests)."""

    def __init__(self, root: str | os.PathLike[str], *, persist: bool = True,
                 clock_ns: Callable[[], int] = time.time_ns, code_files: Iterable[str] = ()) -> None:
        self.root = Path(root)
        #: the source files whose code makes the outcomes and hints (part of the fingerprint).
        self.code_files = tuple(code_files)
        self._root_text = os.fspath(self.root)
        self.persist = persist
        self.path = self.root / STATE_DIR / CACHE_FILE
        self._clock_ns = clock_ns
        self._entries: dict[str, Entry] = {}
        self._loaded = not persist
        self._pending = 0
        self._reader: Any = None
        self._broken = False
        self._fingerprint: str | None = None
        self._dirty: set[str] = set()
        self._deleted: set[str] = set()
        self._retry_at = 0.0
        self._verified_now: set[str] = set()
        #: the paths whose rows were read alone (`load_only`) while the table is not loaded.
        self._partial: set[str] = set()
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

    def load_only(self, rels: list[str]) -> None:
        """Read only these paths' rows from the database, not the whole table (a live-only snapshot).

        The other paths are read as before when first asked for; rows already read are not read again.
        """
        if self._loaded:
            return
        wanted = [rel for rel in rels if rel not in self._partial]
        if wanted:
            self._partial.update(wanted)
            self._load(outcomes=True, only=wanted)

    def get(self, rel: str, st: os.stat_result, parse: Parser) -> Parsed | None:
        """The outcome of reading `rel` (brain-relative, `st` from the scan): cached while valid, else parsed by `parse`
        (which raises `CorruptYaml` for a corrupt file); None when the file vanished since the scan."""
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
        """``(sess_id, status)`` set by `set_hint` for `rel` while its entry is valid, else None."""
        entry, _read = self._check(rel, file_key(st))
        return entry.hint if entry is not None else None

    def set_hint(self, rel: str, parsed: Parsed, hint: Hint | None) -> None:
        """Record what the store built from `parsed` (`hint`: None but for a claim); ignored when the entry moved on."""
        entry = self._entries.get(rel)
        if entry is None or entry.parsed is not parsed or entry.hint == hint:
            return
        entry.hint = hint
        if entry.persist:
            self._dirty.add(rel)

    def _check(self, rel: str, key: FileKey) -> tuple[Entry | None, Any]:
        """``(entry, None)`` when the cached entry is valid; else ``(None, read)``.

        ``read`` is the ``(bytes, key)`` already read while verifying a racy
        entry, `_VANISHED` when the file is gone, or None.
        """
        if not self._loaded and rel not in self._partial:
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
        if after != key or not entry.digest or content_digest(raw) != entry.digest:
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
                self._set(rel, Entry(key, "", parsed, racy=False, persist=False))
                return parsed
            if read is None:
                self._drop(rel)
                return None
        raw, after, read_ns = read
        self.parsed += 1
        digest = content_digest(raw)
        try:
            parsed = Parsed(parse(raw), None, digest)
        except CorruptYaml as exc:
            parsed = Parsed(None, (exc.line, exc.reason), digest)
        racy = after != key or not self._settled(after, read_ns)
        self._set(rel, Entry(after, digest, parsed, racy=racy, persist=is_json_value(parsed.data)))
        return parsed

    def entry_names(self) -> list[str]:
        """The paths this cache holds an entry for (in memory)."""
        return list(self._entries)

    def forget_missing(self, seen: Iterable[str]) -> None:
        """Drop the entries of files that are gone (every path not `seen` by the scan)."""
        present = seen if isinstance(seen, (set, frozenset)) else set(seen)
        for rel in [r for r in self._entries if r not in present]:
            self._drop(rel)

