"""BrainStore: reads claims, signals and locks from disk, parsing a file only when it changed.

Files on disk are the source of truth. Each file is parsed once per
`(mtime_ns, size, inode)`; a snapshot is then assembled from the cached
results, so refreshing a brain of thousands of claims costs a `stat` per file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from brain_tui.core.clock import DEFAULT_TTL, MAX_TTL, SKEW_TOLERANCE, parse_duration, try_parse_timestamp
from brain_tui.core.config import BrainConfig
from brain_tui.core.errors import InvalidData
from brain_tui.core.model import BrainSnapshot, Claim, CorruptFile, Lock, Signal
from brain_tui.core.scope import ScopeEntry, parse_scope
from brain_tui.core.yamlio import TEMP_MARK, CorruptYaml, safe_load_file

SESSION_ID_RE = re.compile(r"^sess-[A-Za-z0-9._-]+$")
SIGNAL_ID_RE = re.compile(r"^sig-[A-Za-z0-9._-]+$")
YAML_SUFFIXES = (".yml", ".yaml")

StatKey = tuple[int, int, int]
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def stat_key(st: os.stat_result) -> StatKey:
    """The cache key of a file: content changes move at least one of these."""
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def valid_session_id(sess_id: str) -> bool:
    """True when `sess_id` is a readable session ID (never a path)."""
    return bool(SESSION_ID_RE.match(sess_id)) and sess_id not in (".", "..")


def encode_lock_name(file: str) -> str:
    """Reversible, collision-free lock file name for a normalised path (SPEC 9)."""
    return quote(file, safe="") + ".yml"


def decode_lock_name(name: str) -> str:
    """Inverse of `encode_lock_name`."""
    return unquote(name[: -len(".yml")] if name.endswith(".yml") else name)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return str(value)


def _claim_ttl(data: Mapping[str, Any], default_ttl: timedelta) -> timedelta:
    raw = data.get("ttl")
    if raw is None:
        return default_ttl
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = f"{raw}m"
    try:
        return parse_duration(str(raw))
    except InvalidData:
        return default_ttl


def claim_from_mapping(
    data: Any, rel_path: str, root: str | Path, tz: tzinfo, default_ttl: timedelta = DEFAULT_TTL
) -> Claim | CorruptFile | None:
    """Read one claim leniently (current, v2/v3 and v1 formats, SPEC 6.2).

    Returns:
        A Claim; a CorruptFile when it is a claim that cannot be used; None when
        the file is not a claim at all (e.g. ``gate-ack-*.yml``).
    """
    if not isinstance(data, Mapping):
        return CorruptFile(rel_path, 1, "top level is not a mapping")
    if not any(key in data for key in ("sess_id", "name", "scope")):
        return None
    raw_id = data.get("sess_id") if data.get("sess_id") is not None else data.get("name")
    sess_id = _text(raw_id).strip() if raw_id is not None else Path(rel_path).stem
    if not valid_session_id(sess_id):
        return CorruptFile(rel_path, 1, f"invalid session ID {sess_id!r}")
    flags: list[str] = []
    scope: tuple[ScopeEntry, ...] = ()
    raw_scope = data.get("scope")
    scope_text = " ".join(_text(s) for s in raw_scope) if isinstance(raw_scope, list) else _text(raw_scope)
    try:
        scope = parse_scope(raw_scope, root)
    except InvalidData:
        flags.append("scope-invalid")
    opened_at = try_parse_timestamp(data.get("opened_at", data.get("opened")), tz)
    closed_at = try_parse_timestamp(data.get("closed_at", data.get("closed")), tz)
    status = _text(data.get("status")).strip() or ("closed" if closed_at else "open")
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


class BrainStore:
    """Loads the brain's files into snapshots, re-parsing only what changed on disk.

    Args:
        root: the brain folder.
        tz: the brain's timezone, for legacy naive timestamps.
        config: the brain's configuration (default TTL).
    """

    def __init__(self, root: str | Path, tz: tzinfo, config: BrainConfig) -> None:
        self.root = Path(root)
        self.tz = tz
        self.config = config
        self._cache: dict[str, tuple[StatKey, Any]] = {}
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

    def _load(self, rel: str, st: os.stat_result, kind: str) -> Any:
        key = stat_key(st)
        cached = self._cache.get(rel)
        if cached is not None and cached[0] == key:
            return cached[1]
        self.parsed_last += 1
        try:
            data = safe_load_file(self.root / rel)
        except CorruptYaml as exc:
            result: Any = CorruptFile(rel, exc.line, exc.reason)
        except FileNotFoundError:
            return None
        except OSError as exc:
            result = CorruptFile(rel, 0, exc.strerror or "unreadable")
        else:
            if kind == "claim":
                result = claim_from_mapping(data, rel, self.root, self.tz, self.config.ttl_default)
            elif kind == "signal":
                result = signal_from_mapping(data, rel, self.tz)
            else:
                result = lock_from_mapping(data, rel, self.tz)
        self._cache[rel] = (key, result)
        return result

    def snapshot(self, now: datetime) -> BrainSnapshot:
        """Read the brain as it is on disk now (cached parses for unchanged files)."""
        self.parsed_last = 0
        claims: list[Claim] = []
        signals: list[Signal] = []
        locks: list[Lock] = []
        corrupt: list[CorruptFile] = []
        seen: set[str] = set()
        ids: set[str] = set()
        for rel, st in self._scan("claims", YAML_SUFFIXES):
            seen.add(rel)
            item = self._load(rel, st, "claim")
            if isinstance(item, Claim):
                if item.sess_id in ids:
                    corrupt.append(CorruptFile(rel, 1, f"duplicate session ID {item.sess_id}"))
                    continue
                ids.add(item.sess_id)
                if item.opened_at is not None and item.opened_at > now + SKEW_TOLERANCE:
                    item = replace(item, flags=(*item.flags, "clock-skew"))
                claims.append(item)
            elif isinstance(item, CorruptFile):
                corrupt.append(item)
        for rel, st in self._scan("signals", YAML_SUFFIXES):
            seen.add(rel)
            item = self._load(rel, st, "signal")
            if isinstance(item, Signal):
                signals.append(item)
            elif isinstance(item, CorruptFile):
                corrupt.append(item)
        for rel, st in self._scan("locks", (*YAML_SUFFIXES, ".lock")):
            seen.add(rel)
            item = self._load(rel, st, "lock")
            if isinstance(item, Lock):
                locks.append(item)
            elif isinstance(item, CorruptFile):
                corrupt.append(item)
        for stale_key in set(self._cache) - seen:
            del self._cache[stale_key]
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
        )
