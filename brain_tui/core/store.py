"""BrainStore: reads claims, signals and locks from disk, parsing a file only when it changed.

Files on disk are the source of truth. Each file is parsed once per
`(mtime_ns, size, inode, ctime_ns)` — across processes, through the parse cache
under `.brain/` (core/cache.py); a snapshot is then assembled from the cached
results, so refreshing a brain of thousands of claims costs a `stat` per file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import quote

from brain_tui.core.cache import ParseCache, Parsed, pausing_gc
from brain_tui.core.clock import DEFAULT_TTL, MAX_TTL, SKEW_TOLERANCE, claim_ttl, try_parse_timestamp
from brain_tui.core.config import BrainConfig
from brain_tui.core.errors import InvalidData
from brain_tui.core.ids import SIGNAL_ID_RE, valid_session_id
from brain_tui.core.model import BrainSnapshot, Claim, CorruptFile, Lock, Signal
from brain_tui.core.scope import ScopeEntry, parse_scope
from brain_tui.core.skew import suspect_stale
from brain_tui.core.yamlio import TEMP_MARK, safe_load_bytes

YAML_SUFFIXES = (".yml", ".yaml")

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)






def encode_lock_name(file: str) -> str:
    """Reversible, collision-free lock file name for a normalised path (SPEC 9)."""
    return quote(file, safe="") + ".yml"




def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return str(value)


_LEGACY_SECTION_RE = re.compile(
    r"^scope:[ \t]*(?P<path>[^'\"\s#][^\n#]*?)[ \t]+(?P<section>##[ \t]*[^\s#][^\n]*?)[ \t]*$", re.MULTILINE
)


def recover_legacy_section(text: str, scope: Any) -> str | None:
    """The legacy section scope that YAML read as a comment, or None.

    The original tools wrote ``scope: todo/brain.md ## Sprint BSI`` unquoted:
    for YAML the ``## Sprint BSI`` part is a comment, so the parsed scope is only
    the file. The tools themselves read the whole line (SPEC 5.1 legacy
    spelling), so the product does too.
    """
    if not isinstance(scope, str) or any(marker in scope for marker in ("#", "\u00a7")):
        return None
    for match in _LEGACY_SECTION_RE.finditer(text):
        if match.group("path").strip() == scope.strip():
            return f"{match.group('path').strip()} {match.group('section')}"
    return None


def _claim_ttl(data: Mapping[str, Any], default_ttl: timedelta) -> timedelta:
    return claim_ttl(data.get("ttl"), default_ttl)


#: The statuses of SPEC 6.3; any other (after `normalize_status`) is kept, blocks, and is flagged.
KNOWN_STATUSES = frozenset({"open", "waiting_human", "paused", "stale", "closed", "failed", "released"})
#: Spellings of the live status in older formats (the seeds' BSI v1 writes `status: active`).
_OPEN_SPELLINGS = frozenset({"active"})


def normalize_status(raw: str) -> str:
    """A status as the rules read it: case-insensitive, ``active`` is ``open``; unknown ones kept as written."""
    lowered = raw.strip().lower()
    if lowered in _OPEN_SPELLINGS:
        return "open"
    return lowered if lowered in KNOWN_STATUSES else raw.strip()


def _claim_file_rank(rel_path: str, sess_id: str | None) -> int:
    """0 for `claims/<sess_id>.yml`, 1 for `.yaml`, 2 for any other name: the lowest holds the ID."""
    if sess_id is None:
        return 3
    if rel_path == f"claims/{sess_id}.yml":
        return 0
    return 1 if rel_path == f"claims/{sess_id}.yaml" else 2


def claim_identity(data: Any, rel_path: str, tz: tzinfo) -> tuple[str, str] | CorruptFile | None:
    """``(sess_id, status)`` of a claim, without building it (enough for a snapshot filtered by status).

    Returns:
        The pair; else the CorruptFile or None that `claim_from_mapping` returns for this data.
    """
    if not isinstance(data, Mapping):
        return CorruptFile(rel_path, 1, "top level is not a mapping")
    if not any(key in data for key in ("sess_id", "name", "scope")):
        return None
    raw_id = data.get("sess_id") if data.get("sess_id") is not None else data.get("name")
    sess_id = _text(raw_id).strip() if raw_id is not None else Path(rel_path).stem
    if not valid_session_id(sess_id):
        return CorruptFile(rel_path, 1, f"invalid session ID {sess_id!r}")
    status = normalize_status(_text(data.get("status")))
    if not status:
        status = "closed" if try_parse_timestamp(data.get("closed_at", data.get("closed")), tz) else "open"
    return sess_id, status


def claim_from_mapping(
    data: Any, rel_path: str, root: str | Path, tz: tzinfo, default_ttl: timedelta = DEFAULT_TTL,
    scope_parser: Callable[[Any], tuple[ScopeEntry, ...]] | None = None,
) -> Claim | CorruptFile | None:
    """Read one claim leniently (current, v2/v3 and v1 formats, SPEC 6.2).

    `scope_parser` replaces ``parse_scope(value, root)`` (the store passes a memoised one).

    Returns:
        A Claim; a CorruptFile when it is a claim that cannot be used; None when
        the file is not a claim at all (e.g. ``gate-ack-*.yml``).
    """
    identity = claim_identity(data, rel_path, tz)
    if not isinstance(identity, tuple):
        return identity
    sess_id, status = identity
    live = status not in ("closed", "failed", "released")
    flags: list[str] = []
    if status not in KNOWN_STATUSES:
        flags.append("status-unknown")
    scope: tuple[ScopeEntry, ...] = ()
    raw_scope = data.get("scope")
    scope_text = " ".join(_text(s) for s in raw_scope) if isinstance(raw_scope, list) else _text(raw_scope)
    try:
        scope = parse_scope(raw_scope, root) if scope_parser is None else scope_parser(raw_scope)
    except InvalidData as exc:
        if live:  # a live claim whose scope cannot be read would block nothing: it is a corrupt row
            return CorruptFile(rel_path, 1, f"unreadable scope: {exc.message}")
        flags.append("scope-invalid")
    history = data.get("gate_history")
    if history is not None and not isinstance(history, list):
        return CorruptFile(rel_path, 1, "gate_history is not a list (the audit trail cannot be appended to)")
    raw_opened = data.get("opened_at", data.get("opened"))
    opened_at = try_parse_timestamp(raw_opened, tz)
    if live and opened_at is None:
        if raw_opened not in (None, ""):
            return CorruptFile(rel_path, 1, f"unreadable opening time {str(raw_opened)[:60]!r}")
        flags.append("no-opened-at")  # no expiry can be computed: stale (and blocking) at once
    closed_at = try_parse_timestamp(data.get("closed_at", data.get("closed")), tz)
    expires_at = try_parse_timestamp(data.get("expires_at"), tz)
    if opened_at is not None:
        if expires_at is None:
            expires_at = opened_at + _claim_ttl(data, default_ttl)
        expires_at = min(expires_at, opened_at + MAX_TTL)
    ctype = _text(data.get("type")).strip() or ("satellite" if data.get("parent_satellite") else "solo")
    parent = _text(data.get("parent_satellite")).strip() or None
    sat_type = _text(data.get("satellite_type")).strip() or None
    if ctype in ("pilote", "pilot"):
        level = "pilote"
    elif _text(data.get("satellite_level")).strip() == "domain":
        level = "domain"
    elif ctype == "solo" and not parent:
        level = "solo"
    else:
        level = "leaf"
    return Claim(
        sess_id=sess_id,
        path=rel_path,
        data=data,
        scope=scope,
        scope_text=scope_text,
        status=status,
        type=ctype,
        instance=_text(data.get("instance")).strip(),
        story=_text(data.get("story_angle")),
        opened_at=opened_at,
        expires_at=expires_at,
        closed_at=closed_at,
        parent=parent,
        satellite_type=sat_type,
        level=level,
        flags=tuple(flags),
    )


def signal_from_mapping(data: Any, rel_path: str, tz: tzinfo) -> Signal | CorruptFile:
    """Read one signal file (SPEC 7)."""
    if not isinstance(data, Mapping):
        return CorruptFile(rel_path, 1, "top level is not a mapping")
    sig_id = _text(data.get("sig_id")).strip() or Path(rel_path).stem
    if not SIGNAL_ID_RE.match(sig_id):
        return CorruptFile(rel_path, 1, f"invalid signal ID {sig_id!r}")
    state = _text(data.get("state")).strip().lower() or "pending"
    return Signal(
        sig_id=sig_id,
        path=rel_path,
        data=data,
        sender=_text(data.get("from")),
        to=_text(data.get("to")),
        type=_text(data.get("type")).strip().upper() or "INFO",
        scope=_text(data.get("scope")),
        payload=_text(data.get("payload")),
        state=state,
        created_at=try_parse_timestamp(data.get("created_at"), tz),
        delivered_at=try_parse_timestamp(data.get("delivered_at"), tz),
    )


def lock_from_mapping(data: Any, rel_path: str, tz: tzinfo) -> Lock | CorruptFile:
    """Read one lock file, current (`.yml`) or legacy (`.lock`) format."""
    if not isinstance(data, Mapping) or not data.get("file"):
        return CorruptFile(rel_path, 1, "not a lock (no file:)")
    claimed = try_parse_timestamp(data.get("claimed_at"), tz)
    expires = try_parse_timestamp(data.get("expires_at"), tz)
    ttl = data.get("ttl_min")
    ttl_min = ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else 60
    if expires is None and claimed is not None:
        expires = claimed + timedelta(minutes=ttl_min)
    generation = data.get("generation")
    return Lock(
        file=_text(data.get("file")),
        path=rel_path,
        holder=_text(data.get("holder")),
        generation=generation if isinstance(generation, int) and not isinstance(generation, bool) else 1,
        claimed_at=claimed,
        expires_at=expires,
        ttl_min=ttl_min,
    )


def _parse_claim_bytes(raw: bytes) -> Any:
    """A claim file's data: the safe load, plus the legacy section scope YAML read as a comment."""
    data = safe_load_bytes(raw)
    if isinstance(data, Mapping) and "expires_at" not in data and isinstance(data.get("scope"), str):
        recovered = recover_legacy_section(raw.decode("utf-8", errors="replace"), data["scope"])
        if recovered:
            data = {**data, "scope": recovered}
    return data


class BrainStore:
    """Loads the brain's files into snapshots, re-parsing only what changed on disk.

    Args:
        root: the brain folder.
        tz: the brain's timezone, for legacy naive timestamps.
        config: the brain's configuration (default TTL).
    """

    def __init__(self, root: str | Path, tz: tzinfo, config: BrainConfig, *, persist_cache: bool = True) -> None:
        self.root = Path(root)
        self.tz = tz
        self.config = config
        #: outcomes of reading each file, valid per (mtime_ns, size, inode, ctime_ns); on disk under .brain/.
        self.files = ParseCache(self.root, persist=persist_cache)
        #: the object built from each file, for the `Parsed` outcome it was built from.
        self._cache: dict[str, tuple[Parsed, Any]] = {}
        self._scopes: dict[Any, tuple[ScopeEntry, ...] | str] = {}
        #: how many files were parsed by the last `snapshot()` call (for tests and benchmarks).
        self.parsed_last = 0

    def _scan(self, folder: str, suffixes: tuple[str, ...]) -> list[tuple[str, os.stat_result]]:
        base = self.root / folder
        found: list[tuple[str, os.stat_result]] = []
        try:
            entries = os.scandir(base)
        except (FileNotFoundError, NotADirectoryError):
            return found
        with entries:
            for entry in entries:
                if not entry.name.endswith(suffixes) or entry.name.startswith(TEMP_MARK):
                    continue
                try:
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    found.append((f"{folder}/{entry.name}", entry.stat(follow_symlinks=False)))
                except OSError:
                    continue
        found.sort()
        return found

    def _scope(self, value: Any) -> tuple[ScopeEntry, ...]:
        """`parse_scope` memoised for one snapshot (history repeats the same scopes; entries are shared)."""
        key = value if isinstance(value, str) else tuple(value) if isinstance(value, list) else None
        try:
            hit = self._scopes.get(key) if key is not None else None
        except TypeError:  # a list holding unhashable items: not memoised
            key, hit = None, None
        if hit is None:
            try:
                hit = parse_scope(value, self.root)
            except InvalidData as exc:
                hit = exc.message
            if key is not None:
                self._scopes[key] = hit
        if isinstance(hit, str):
            raise InvalidData(hit)
        return hit

    def _identity(self, rel: str, st: os.stat_result) -> tuple[str, str] | None:
        """A claim file's ``(sess_id, status)`` without building the claim (recorded as its hint), or None."""
        parsed = self.files.get(rel, st, _parse_claim_bytes)
        if parsed is None or parsed.corrupt is not None:
            return None
        identity = claim_identity(parsed.data, rel, self.tz)
        if not isinstance(identity, tuple):
            return None
        self.files.set_hint(rel, parsed, identity)
        return identity

    def _load(self, rel: str, st: os.stat_result, kind: str) -> Any:
        parsed = self.files.get(rel, st, _parse_claim_bytes if kind == "claim" else safe_load_bytes)
        if parsed is None:
            return None
        cached = self._cache.get(rel)
        if cached is not None and cached[0] is parsed:
            return cached[1]
        result: Any
        if parsed.corrupt is not None:
            result = CorruptFile(rel, *parsed.corrupt)
        elif kind == "claim":
            result = claim_from_mapping(parsed.data, rel, self.root, self.tz, self.config.ttl_default, self._scope)
            self.files.set_hint(rel, parsed, (result.sess_id, result.status) if isinstance(result, Claim) else None)
        elif kind == "signal":
            result = signal_from_mapping(parsed.data, rel, self.tz)
        else:
            result = lock_from_mapping(parsed.data, rel, self.tz)
        self._cache[rel] = (parsed, result)
        return result

    @pausing_gc
    def snapshot(self, now: datetime, *, only_statuses: Collection[str] | None = None) -> BrainSnapshot:
        """Read the brain as it is on disk now (cached parses for unchanged files).

        Args:
            now: the clock's answer.
            only_statuses: keep only the claims with one of these statuses (``bsi claim list``,
                ``bsi check-scope``): the others are skipped from the parse cache's hints without
                being decoded. Signals, locks, corrupt rows and duplicate-ID detection are as in a
                full snapshot. None (the default): every claim.
        """
        self.parsed_last = 0
        self.files.reset_counters()
        self._scopes = {}
        if only_statuses is None:
            self.files.preload()
        claim_files = self._scan("claims", YAML_SUFFIXES)
        signal_files = self._scan("signals", YAML_SUFFIXES)
        lock_files = self._scan("locks", (*YAML_SUFFIXES, ".lock"))
        self.files.prefetch([(claim_files, _parse_claim_bytes), (signal_files + lock_files, safe_load_bytes)])
        claims: list[Claim] = []
        signals: list[Signal] = []
        locks: list[Lock] = []
        corrupt: list[CorruptFile] = []
        seen: set[str] = set()
        # Pass 1: who each file says it is (from the parse cache's hints where filtered).
        found: list[tuple[str, os.stat_result, str | None, Any]] = []
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
        # Pass 2: `claims/<sess_id>.yml` is the claim; any other file naming that ID is a corrupt row.
        owner: dict[str, str] = {}
        for rel, _st, sess_id, _item in sorted(found, key=lambda f: (_claim_file_rank(f[0], f[2]), f[0])):
            if sess_id is not None:
                owner.setdefault(sess_id, rel)
        for rel, st, sess_id, item in found:
            if sess_id is not None and owner[sess_id] != rel:
                corrupt.append(CorruptFile(rel, 1, f"duplicate of {owner[sess_id]} (session ID {sess_id})"))
                continue
            if not isinstance(item, Claim):  # a hint: skipped when its status is known and not wanted
                assert only_statuses is not None
                if item[1] in KNOWN_STATUSES and item[1] not in only_statuses:
                    continue
                item = self._load(rel, st, "claim")
                if isinstance(item, CorruptFile):
                    corrupt.append(item)
                    continue
                if not isinstance(item, Claim):
                    continue
            if only_statuses is not None and item.status in KNOWN_STATUSES and item.status not in only_statuses:
                continue
            if (item.opened_at is not None and item.opened_at > now + SKEW_TOLERANCE) or suspect_stale(item, now):
                item = replace(item, flags=(*item.flags, "clock-skew"))
            claims.append(item)
        for rel, st in signal_files:
            seen.add(rel)
            item = self._load(rel, st, "signal")
            if isinstance(item, Signal):
                signals.append(item)
            elif isinstance(item, CorruptFile):
                corrupt.append(item)
        for rel, st in lock_files:
            seen.add(rel)
            item = self._load(rel, st, "lock")
            if isinstance(item, Lock):
                locks.append(item)
            elif isinstance(item, CorruptFile):
                corrupt.append(item)
        for stale_key in set(self._cache) - seen:
            del self._cache[stale_key]
        self.files.forget_missing(seen)
        self.files.flush()
        self.parsed_last = self.files.parsed
        self._scopes = {}
        epoch = EPOCH
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
        )
