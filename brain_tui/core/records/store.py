"""BrainStore: reads claims, signals and locks from disk, parsing a file only when it changed.

Files on disk are the source of truth. Each file is parsed once per `(mtime_ns, size, inode, ctime_ns)` — across
processes, through the parse cache under `.brain/` (core/records/cache.py); a snapshot is then assembled from the
cached results, so refreshing a brain of thousands of claims costs a `stat` per file.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Collection
from datetime import datetime, tzinfo
from pathlib import Path

from brain_tui.core import clock, ids
from brain_tui.core.config import BrainConfig
from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.layout import BREATH_DIR, INDEX_FILE
from brain_tui.core.paths.path_keys import path_key
from brain_tui.core.paths.scope import ScopeEntry, parse_scope
from brain_tui.core.record import replace
from brain_tui.core.records import breath_records, finished, formats, in_force, index, index_legacy, scope_ways, yamlio
from brain_tui.core.records.cache import ParseCache, Parsed, file_key, one_reader, pausing_gc
from brain_tui.core.records.clock_skew import skew_flagged
from brain_tui.core.records.closed_set import ARCHIVED_SIGNALS, ClosedSet, closed_set, micros
from brain_tui.core.records.folder_variants import misplaced_claims
from brain_tui.core.records.formats import (
    KNOWN_STATUSES,
    YAML_SUFFIXES,
    claim_from_mapping,
    claim_identity,
    lock_from_mapping,
    parse_claim_bytes,
    signal_from_mapping,
)
from brain_tui.core.records.index_signals import Rows, index_signals, legacy_rows
from brain_tui.core.records.locks_in_head import held_in_head as locks_held_in_head
from brain_tui.core.records.model import (
    BrainSnapshot,
    BreathRecord,
    Claim,
    CorruptFile,
    Lock,
    Signal,
)
from brain_tui.core.records.odd_entries import odd_row
from brain_tui.core.records.signal_twins import owned_signals
from brain_tui.core.records.state_json import MAX_STATE_BYTES
from brain_tui.core.records.statuses import TERMINAL_STATUSES
from brain_tui.core.records.unreadable import held_by_data, held_by_file
from brain_tui.core.records.yamlio import TEMP_MARK, read_capped, safe_load_bytes

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

#: The code that turns a file's bytes into a cached outcome and hint (the parse cache's fingerprint).
PARSER_CODE = (formats.__file__, yamlio.__file__, clock.__file__, ids.__file__, index_legacy.__file__, __file__)


Scanned = list[tuple[str, os.stat_result]]
#: which of the files naming one session ID holds it (`finished.claim_file_rank`)
_rank = finished.claim_file_rank
#: Pass 1's mark for a terminal file of the closed set that carries a live file's session ID.
_CLOSED = finished.CLOSED


def _memo_scope(memo: dict[Any, tuple[ScopeEntry, ...] | str], value: Any,
                root: Path | None) -> tuple[ScopeEntry, ...]:
    """`parse_scope(value, root)` of a claim file's scope, through `memo` (a refusal is kept as its message)."""
    key = value if isinstance(value, str) else tuple(value) if isinstance(value, list) else None
    try:
        hit = memo.get(key) if key is not None else None
    except TypeError:  # a list holding unhashable items: not memoised
        key, hit = None, None
    if hit is None:
        try:
            hit = parse_scope(value, root, typed=False)
        except InvalidData as exc:
            hit = exc.message
        if key is not None:
            memo[key] = hit
    if isinstance(hit, str):
        raise InvalidData(hit)
    return hit


class BrainStore:
    """Loads the brain's files into snapshots (`tz` reads legacy naive times, `config` gives the default TTL),
    re-parsing only what changed on disk."""

    def __init__(self, root: str | Path, tz: tzinfo, config: BrainConfig, *, persist_cache: bool = True) -> None:
        self.root = Path(root)
        self.tz = tz
        self.config = config
        #: held by the thread reading through this store (`cache.one_reader`): one at a time, re-entrant
        self.reading = threading.RLock()
        #: outcomes of reading each file, valid per (mtime_ns, size, inode, ctime_ns); on disk under .brain/.
        self.files = ParseCache(self.root, persist=persist_cache, code_files=PARSER_CODE)
        #: the object built from each file, for the `Parsed` outcome it was built from.
        self._cache: dict[str, tuple[Parsed, Any]] = {}
        #: the terminal claims read for the history's display (`load_history`), by file, and their scopes.
        self.history_cache: dict[str, tuple[Parsed, Claim]] = {}
        self._written_scopes: dict[Any, tuple[ScopeEntry, ...] | str] = {}
        self._scopes: dict[Any, tuple[ScopeEntry, ...] | str] = {}
        #: the folders on the way of each kept claim that can block (or unreadable claim file that holds), and
        #: their keys when it was built (None: too fresh to vouch for it): its scope was read against them
        self._ways: dict[str, scope_ways.WayKeys | None] = {}
        #: the links, FIFOs, devices, sockets and folders the scans met since the last snapshot began (corrupt rows).
        self._links: list[CorruptFile] = []
        #: the claim rows of a legacy BRAIN-INDEX.md, for the index's (mtime_ns, size, inode, ctime_ns).
        self._index_rows: tuple[tuple[int, int, int, int], Rows, Rows] | None = None
        #: how many files were parsed by the last `snapshot()` call (for tests and benchmarks).
        self.parsed_last = 0
        #: how many claim files the last live-only `snapshot()` looked at one by one (tests, benchmarks).
        self.stats_last = 0
        #: the closed set the last `snapshot()` used (None: every claim file was scanned).
        self.closed_last: ClosedSet | None = None
        #: the archived signals' set the last `snapshot()` used (None: every signal file was scanned).
        self.archived_last: ClosedSet | None = None
        #: session ID -> file of every claim file the last `snapshot()` scanned, kept or filtered out.
        self.owners_last: dict[str, str] = {}

    def _entry(self, folder: str, name: str, st: os.stat_result, found: Scanned) -> None:
        """Keep one directory entry of `folder` by its ``lstat``: a regular file is read; a link, a FIFO, a device,
        a socket or a folder is a corrupt row, never opened (`odd_entries`: one in claims/ but a folder holds the
        whole brain)."""
        rel = f"{folder}/{name}"
        if stat.S_ISREG(st.st_mode):
            found.append((rel, st))
        elif (row := odd_row(self.root, rel, st.st_mode, self.tz)) is not None:
            self._links.append(row)

    def _scan(self, folder: str, suffixes: tuple[str, ...]) -> Scanned:
        """The regular files of `folder` with these suffixes (temp files skipped; links and the like noted), by name."""
        base = self.root / folder
        found: Scanned = []
        try:
            entries = os.scandir(base)
        except (FileNotFoundError, NotADirectoryError):
            return found
        with entries:
            for entry in entries:
                if not entry.name.endswith(suffixes) or entry.name.startswith(TEMP_MARK):
                    continue
                try:
                    self._entry(folder, entry.name, entry.stat(follow_symlinks=False), found)
                except OSError:
                    continue
        found.sort()
        return found

    def _scan_names(self, folder: str, names: Collection[str]) -> Scanned:
        """`_scan` of only these names of `folder` (one ``lstat`` each; the closed set's live names)."""
        found: Scanned = []
        base = os.path.join(self.root, folder)
        for name in names:
            self.stats_last += folder == "claims"
            try:
                self._entry(folder, name, os.lstat(os.path.join(base, name)), found)
            except OSError:
                continue
        found.sort()
        return found

    def _scope(self, value: Any) -> tuple[ScopeEntry, ...]:
        """`parse_scope` memoised for one snapshot (history repeats the same scopes; entries are shared)."""
        return _memo_scope(self._scopes, value, self.root)

    def _identity(self, rel: str, st: os.stat_result) -> tuple[str, str] | None:
        """A claim file's ``(sess_id, status)`` without building the claim (recorded as its hint), or None."""
        parsed = self.files.get(rel, st, parse_claim_bytes)
        if parsed is None or parsed.corrupt is not None:
            return None
        identity = claim_identity(parsed.data, rel, self.tz)
        if not isinstance(identity, tuple):
            return None
        self.files.set_hint(rel, parsed, identity)
        return identity

    def _load(self, rel: str, st: os.stat_result, kind: str) -> Any:
        parsed = self.files.get(rel, st, parse_claim_bytes if kind == "claim" else safe_load_bytes)
        if parsed is None:
            return None
        cached = self._cache.get(rel)
        if cached is not None and cached[0] is parsed and self._ways_hold(rel):
            return cached[1]
        self._ways.pop(rel, None)
        result: Any
        if parsed.corrupt is not None:
            # A claim file that does not read fails closed: what it may hold is read again from its bytes.
            holds = held_by_file(self.root, rel, self.tz) if kind == "claim" else ()
            result = CorruptFile(rel, *parsed.corrupt, holds=holds)
        elif kind == "claim":
            result = claim_from_mapping(parsed.data, rel, self.root, self.tz, self.config.ttl_default, self._scope)
            self.files.set_hint(rel, parsed, (result.sess_id, result.status) if isinstance(result, Claim) else None)
            if isinstance(result, CorruptFile):
                result = replace(result, holds=held_by_data(parsed.data, rel, self.root, self.tz))
        elif kind == "signal":
            result = signal_from_mapping(parsed.data, rel, self.tz)
        elif kind == "breath":
            result = breath_records.breath_from_mapping(parsed.data, rel, self.tz)
        else:
            result = lock_from_mapping(parsed.data, rel, self.tz)
        self._cache[rel] = (parsed, result)
        held = result.scope if isinstance(result, Claim) and result.is_blocking else \
            result.holds if isinstance(result, CorruptFile) else ()
        if held:  # what it holds was read against the links and folders on its way
            self._ways[rel] = scope_ways.vouching_keys(os.fspath(self.root), held)
        return result

    def _ways_hold(self, rel: str) -> bool:
        """True when a kept claim's scope still reads the same: the folders on its way did not move
        (`scope_ways`; a claim that can block whose keys were too fresh to vouch for it is built again)."""
        if rel not in self._ways:
            return True
        keys = self._ways[rel]
        return keys is not None and scope_ways.ways_hold(os.fspath(self.root), keys)

    @one_reader
    def load_history(self, rel: str, st: os.stat_result) -> Any:
        """A claim file the closed set holds terminal, for the history's display (BRAIN-INDEX.md's window, the
        cockpit): its scope is read as written, without the folder stats and link walks only a claim that can
        block needs (what is shown is its text). A file that does not read, or is not terminal, is read as any."""
        parsed = self.files.get(rel, st, parse_claim_bytes)
        if parsed is None:
            return None
        cached = self._cache.get(rel) or self.history_cache.get(rel)
        if cached is not None and cached[0] is parsed:
            return cached[1]
        if parsed.corrupt is None:
            result = claim_from_mapping(parsed.data, rel, self.root, self.tz, self.config.ttl_default,
                                        self._scope_as_written)
            if isinstance(result, Claim) and result.is_terminal:
                self.files.set_hint(rel, parsed, (result.sess_id, result.status))
                self.history_cache[rel] = (parsed, result)
                return result
        return self._load(rel, st, "claim")

    def _scope_as_written(self, value: Any) -> tuple[ScopeEntry, ...]:
        """`parse_scope` of a terminal claim's scope without the brain's files (memoised: it depends on the text)."""
        if len(self._written_scopes) >= 100_000:
            self._written_scopes.clear()
        return _memo_scope(self._written_scopes, value, None)

    def _breath_files(self) -> Scanned:
        """``breath/*.yml`` (hidden names skipped, as the context-broker's own tools do)."""
        return [(rel, st) for rel, st in self._scan(BREATH_DIR, YAML_SUFFIXES)
                if not rel.rpartition("/")[2].startswith(".")]

    def _read_files(self, files: Scanned, kind: str, want: type, corrupt: list[CorruptFile]) -> list[Any]:
        """The items of `kind` these files hold; the files that do not load go to `corrupt`."""
        items = []
        for rel, st in files:
            item = self._load(rel, st, kind)
            if isinstance(item, want):
                items.append(item)
            elif isinstance(item, CorruptFile):
                corrupt.append(item)
        return items

    def _read_breath(self, files: Scanned) -> tuple[tuple[BreathRecord, ...], tuple[CorruptFile, ...]]:
        corrupt: list[CorruptFile] = []
        records = self._read_files(files, "breath", BreathRecord, corrupt)
        corrupt.extend(link for link in self._links if link.path.startswith(f"{BREATH_DIR}/")
                       and not link.path.rpartition("/")[2].startswith("."))
        return tuple(breath_records.order_records(records)), tuple(sorted(corrupt, key=lambda c: c.path))

    @one_reader
    def breath(self) -> tuple[tuple[BreathRecord, ...], tuple[CorruptFile, ...]]:
        """Only the breath records (what `snapshot().breath` holds), for a reader that needs no claims: ``(the records
        ordered by opening time then ID, the breath files that did not load)``."""
        self.files.reset_counters()
        self._links = []
        found = self._read_breath(self._breath_files())
        self.files.flush()
        return found

    def _index_claims(self, owner: dict[str, str], corrupt: list[CorruptFile],
                      closed: ClosedSet | None = None) -> list[Claim]:
        """Claims that only a legacy BRAIN-INDEX.md records (no file in `claims/` yet): they block like any other.

        The next write imports them as files (`index_file.refresh`); a migrated index (with the
        generated block) holds none. One `stat` when unchanged; a changed index is scanned for the
        block's marker as bytes and parsed only when it has none (not a record: `parsed_last` ignores it).
        """
        try:
            st = os.stat(self.root / INDEX_FILE)
        except OSError:
            self._index_rows = None
            return []
        key = file_key(st)
        if self._index_rows is None or self._index_rows[0] != key:
            try:  # bounded, never waiting on a FIFO
                raw = read_capped(self.root / INDEX_FILE, MAX_STATE_BYTES) or b""
            except OSError:
                return []
            self._index_rows = (key, *(([], []) if index.START.encode() in raw else legacy_rows(raw)))
        held: list[Claim] = []
        folded = {path_key(sess_id) for sess_id in owner} | {path_key(Path(c.path).stem) for c in corrupt}
        for row in self._index_rows[1]:
            if path_key(row["sess_id"]) in folded or not ids.valid_session_id(row["sess_id"]):
                continue
            if closed is not None and (closed.has(f"{row['sess_id']}.yml") or closed.has(f"{row['sess_id']}.yaml")
                                       or row["sess_id"] in closed.odd):
                continue  # its file is terminal in HEAD
            doc, rel = index_legacy.legacy_claim_doc(row), f"claims/{row['sess_id']}.yml"
            item = claim_from_mapping(doc, rel, self.root, self.tz, self.config.ttl_default, self._scope)
            if isinstance(item, Claim):
                held.append(replace(item, flags=(*item.flags, "from-index")))
            elif isinstance(item, CorruptFile):  # a row that does not read fails closed, as its claim file would
                corrupt.append(CorruptFile(INDEX_FILE, 0, f"row {row['sess_id']}: {item.reason}",
                                           holds=held_by_data(doc, rel, self.root, self.tz)))
        return held

    @one_reader
    def with_subtree(self, snapshot: BrainSnapshot, sess_id: str) -> BrainSnapshot | None:
        """A `skip_vouched` snapshot plus the terminal claims below `sess_id` (`finished.with_subtree`)."""
        return finished.with_subtree(self, snapshot, sess_id)

    @one_reader
    def with_chains(self, snapshot: BrainSnapshot, sess_ids: Collection[str]) -> BrainSnapshot | None:
        """A live-only snapshot plus the terminal claims of these sessions' chains (`finished.with_chains`)."""
        return finished.with_chains(self, snapshot, sess_ids)

    def _closed_set(self, only_statuses: Collection[str] | None) -> ClosedSet | None:
        """The closed set when the read wants no terminal claim, else None (every file is scanned)."""
        if only_statuses is None or TERMINAL_STATUSES.intersection(only_statuses):
            return None
        return closed_set(self.root, self.tz, persist=self.files.persist)

    @one_reader
    @pausing_gc
    def snapshot(self, now: datetime, *, only_statuses: Collection[str] | None = None,
                 closed_since: datetime | None = None, skip_vouched: bool = False) -> BrainSnapshot:
        """Read the brain as it is on disk now (cached parses for unchanged files).

        Args:
            now: the clock's answer.
            only_statuses: keep only the claims with one of these statuses (``bsi claim list``,
                ``bsi check-scope``). When none of them is terminal, the files HEAD holds terminal
                (the closed set, `closed_set`) are not even looked at: the read costs what the live
                claims cost. Otherwise the others are skipped from the parse cache's hints without
                being decoded. The signal files HEAD holds archived are not looked at either (the
                archived set: `closed_set.ARCHIVED_SIGNALS`). Locks, corrupt rows and duplicate-ID
                detection against live files are as in a full snapshot. None (the default): every
                claim and every signal.
            closed_since: with `only_statuses`, also the terminal claims closed at or after this time
                (BRAIN-INDEX.md's recent history).
            skip_vouched: with no `only_statuses`, skip only the files the closed set vouches terminal
                (every claim of the other files is kept, terminal or not): the caller adds the finished
                claims it needs by name (`finished.with_subtree`). No closed set: a full snapshot.
        """
        self.parsed_last = 0
        self.stats_last = 0
        self.files.reset_counters()
        self._scopes = {}
        vouched = closed_set(self.root, self.tz, persist=self.files.persist) \
            if skip_vouched and only_statuses is None else None
        if only_statuses is None and vouched is None:
            self.files.preload()
        self._links = []
        if only_statuses is None and closed_since is not None:  # every unfinished claim, and the recent history
            only_statuses = KNOWN_STATUSES - TERMINAL_STATUSES
        closed = vouched if vouched is not None else self._closed_set(only_statuses)
        self.closed_last = closed
        # A live read wants no archived signal either (SPEC 7: nothing leaves archived; SPEC 8 lists none).
        archived = closed_set(self.root, self.tz, persist=self.files.persist, kind=ARCHIVED_SIGNALS) \
            if closed is not None else None
        self.archived_last = archived
        # The terminal claims of the scan itself (no closed set, or files it does not vouch for: untracked,
        # uncommitted) are kept by the same window the closed set's rows answer.
        fallback_since = closed_since if only_statuses is not None else None
        if fallback_since is not None:
            only_statuses = {*only_statuses, *TERMINAL_STATUSES}  # type: ignore[misc]
        claim_files = self._scan_names("claims", closed.live) if closed is not None else \
            self._scan("claims", YAML_SUFFIXES)
        signal_files = self._scan_names("signals", archived.live) if archived is not None else \
            self._scan("signals", YAML_SUFFIXES)
        lock_files = self._scan("locks", (*YAML_SUFFIXES, ".lock"))
        breath_files = self._breath_files()
        if closed is not None:  # only these rows of the parse cache (and the window's), never the history's
            self.files.load_only([rel for files in (claim_files, signal_files, lock_files, breath_files)
                                  for rel, _st in files] + ([f"claims/{name}" for name, _row in
                                  closed.closed_since(micros(closed_since))] if closed_since is not None else []))
        claims: list[Claim] = []
        corrupt: list[CorruptFile] = []
        seen: set[str] = set()
        # Pass 1: who each file says it is (from the parse cache's hints where filtered).
        found: list[tuple[str, Any, str | None, Any]] = []
        for rel, st in claim_files:
            seen.add(rel)
            if only_statuses is not None:
                hint = self.files.hint(rel, st) or self._identity(rel, st)
                if hint is not None:
                    found.append((rel, st, hint[0], hint))
                    continue
            item = self._load(rel, st, "claim")
            if isinstance(item, Claim):
                found.append((rel, st, item.sess_id, item))
            elif isinstance(item, CorruptFile):
                corrupt.append(item)
        if closed is not None:
            found.extend(finished.closed_twins(self, closed, found, {rel for rel, _st in claim_files}))
        # Pass 2: `claims/<sess_id>.yml` is the claim; any other file naming that ID is a corrupt row.
        owner: dict[str, str] = {}
        for rel, _st, sess_id, _item in sorted(found, key=lambda f: (_rank(f[0], f[2]), f[0])):
            if sess_id is not None:
                owner.setdefault(sess_id, rel)
        self.owners_last = owner
        for rel, st, sess_id, item in found:
            if sess_id is not None and owner[sess_id] != rel:
                holds = finished.duplicate_holds(self, rel, st, item, _rank(owner[sess_id], sess_id) < 2)
                corrupt.append(CorruptFile(rel, 1, f"duplicate of {owner[sess_id]} (session ID {sess_id})", holds))
                continue
            if item is _CLOSED:
                continue  # terminal in HEAD: not wanted
            if not isinstance(item, Claim):  # a hint: skipped when its status is known and not wanted
                assert only_statuses is not None
                if item[1] in KNOWN_STATUSES and item[1] not in only_statuses:
                    continue
                if fallback_since is not None and item[1] in TERMINAL_STATUSES and \
                        not finished.ended_since(self, rel, st, fallback_since):
                    continue  # finished before the window: not even built
                item = self._load(rel, st, "claim")
                if isinstance(item, CorruptFile):
                    corrupt.append(item)
                    continue
                if not isinstance(item, Claim):
                    continue
            if only_statuses is not None and item.status in KNOWN_STATUSES and item.status not in only_statuses:
                continue
            ended = item.closed_at or item.opened_at  # BRAIN-INDEX.md's history: closed_at, else opened_at
            if fallback_since is not None and item.status in TERMINAL_STATUSES and \
                    (ended is None or ended < fallback_since):
                continue
            claims.append(skew_flagged(item, now))
        head_set = closed if closed is not None else \
            in_force.current_set(self.root, self.tz, persist=self.files.persist)
        if head_set is not None and head_set.others:  # SPEC 22: an uncommitted release lets nothing go
            in_head = in_force.held_in_head(self.root, head_set, in_force.scanned_statuses(
                (rel for rel, _st in claim_files), found), self.tz, self.config.ttl_default, self._scope)
            if in_head:
                claims = in_force.replace_held(claims, [skew_flagged(c, now) for c in in_head],
                                               only_statuses)
            claims = in_force.strictest_with_head(self.root, head_set, claims, self.tz, self.config.ttl_default,
                                                  self._scope)
            if closed is None:  # a read of every file: a terminal file of HEAD reopened by hand stays terminal
                claims = in_force.terminal_in_head(self.root, head_set, claims, self.tz, self.config.ttl_default,
                                                   self._scope)
        if closed_since is not None:
            finished.add_closed_since(self, closed, claims, closed_since)
        for held in self._index_claims(owner, corrupt, closed):
            if only_statuses is None or held.status not in KNOWN_STATUSES or held.status in only_statuses:
                claims.append(held)
        signals: list[Signal] = owned_signals(  # a copy of `signals/<ID>.yml` is a corrupt row
            self.root, self._read_files(signal_files, "signal", Signal, corrupt), corrupt)
        signals += index_signals(self.root, self._index_rows[2] if self._index_rows else [],
                                 {s.sig_id for s in signals}, self.tz, live=archived is not None)
        locks: list[Lock] = self._read_files(lock_files, "lock", Lock, corrupt)
        for held_lock in locks_held_in_head(self.root, self.tz, persist=self.files.persist):  # SPEC 22
            if isinstance(held_lock, Lock):
                locks.append(held_lock)
            else:
                corrupt.append(held_lock)
        seen.update(rel for files in (signal_files, lock_files, breath_files) for rel, _st in files)
        breath, breath_corrupt = self._read_breath(breath_files)
        corrupt.extend(link for link in self._links if not link.path.startswith(f"{BREATH_DIR}/"))
        corrupt.extend(misplaced_claims(self.root, self.tz))  # `Claims/x.yml`: the laptop's claim
        # The files of the sets were not looked at: their entries stay.
        unread = tuple(f"{kind}/" for kind, used in (("claims", closed), ("signals", archived)) if used is not None)
        if unread:
            seen.update(rel for rel in self._cache if rel.startswith(unread))
        for stale_key in set(self._cache) - seen:
            del self._cache[stale_key]
            self._ways.pop(stale_key, None)
        self.files.forget_missing(seen | {rel for rel in self.files.entry_names() if rel.startswith(unread)}
                                  if unread else seen)
        self.files.flush()
        self.parsed_last = self.files.parsed
        self._scopes = {}
        epoch = finished.EPOCH
        claims.sort(key=lambda c: (c.opened_at or epoch, c.sess_id))
        signals.sort(key=lambda s: (s.created_at or epoch, s.sig_id))
        return BrainSnapshot(
            root=str(self.root),
            now=now,
            tz=self.tz,
            claims=tuple(claims),
            signals=tuple(signals),
            locks=tuple(locks),
            corrupt=tuple(sorted(corrupt, key=lambda c: c.path)),
            config=self.config.raw,
            default_ttl=self.config.ttl_default,
            breath=breath,
            breath_corrupt=breath_corrupt,
        )
