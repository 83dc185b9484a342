"""Preflight checks, file locks and the circuit breaker (SPEC 9, 10; defects 14.6, 14.7).

Three groups of rules, all deciding on a snapshot:

* **Locks** — `locks/<percent-encoded path>.yml` file mutexes with a TTL and a
  generation counter. `stage_acquire`, `stage_release` and `stage_cleanup`
  stage their writes in a `ChangeSet`; run inside `Brain.mutate` (which holds
  the brain's flock) the check-then-write is atomic across local processes.
  Legacy `locks/*.lock` files (original scripts) count as the lock of the path
  named by their `file:` field; a re-entry or takeover rewrites them in the new
  format and deletes the legacy file.
* **Circuit breaker** — `circuit: {fails: N, last_fail_at: ts|null}` in the
  claim (plus `tripped: true` once tripped). `stage_fail` adds one; reaching
  `max_consecutive_fails` sends one CIRCUIT_BREAK signal to the parent (or the
  tree's root). `stage_reset` clears it.
* **Preflight** — `check` returns 0 or raises `PreflightRefused` with the code
  of SPEC 10, in this order of precedence: 4 (claim not usable), 1 (scope),
  5 (kernel zone), 2 (locked), 3 (circuit tripped), 6 (branch). Exit 1 means
  only "scope violation".

`Brain.locks`, `Brain.circuit` and `Brain.preflight` run these rules (commit
messages `bsi: lock acquire <file>`, `bsi: lock release <file>`,
`bsi: lock cleanup`, `bsi: circuit fail <id>`, `bsi: circuit reset <id>`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ruamel.yaml.comments import CommentedMap

from brain_tui.core.changes import ChangeSet, flow_map
from brain_tui.core.clock import format_timestamp
from brain_tui.core.config import DEFAULT_MAX_FAILS, BrainConfig
from brain_tui.core.errors import InvalidData, NotFound, PreflightRefused, TransitionRefused
from brain_tui.core.layout import LOCKS_DIR
from brain_tui.core.model import BrainSnapshot, Claim, CorruptFile, Lock
from brain_tui.core.protocol import (
    delegating_chain,
    effective_status,
    find_conflicts,
    is_held_pause,
    require_claim,
    resolve_destination,
)
from brain_tui.core.scope import FILE, ScopeEntry, covers_file, normalize_path
from brain_tui.core.store import encode_lock_name, valid_session_id

DEFAULT_LOCK_TTL_MIN = 60
MAX_LOCK_TTL_MIN = 8 * 60

#: Preflight exit codes (SPEC 10) and the name of the check behind each.
GO = 0
SCOPE_VIOLATION = 1
FILE_LOCKED = 2
CIRCUIT_TRIPPED = 3
CLAIM_NOT_OPEN = 4
ZONE_VIOLATION = 5
WRONG_BRANCH = 6
CHECK_NAMES = {
    GO: "go",
    SCOPE_VIOLATION: "scope",
    FILE_LOCKED: "lock",
    CIRCUIT_TRIPPED: "circuit",
    CLAIM_NOT_OPEN: "claim",
    ZONE_VIOLATION: "zone",
    WRONG_BRANCH: "branch",
}

#: Lock exit codes (SPEC 9): acquire refused while another session holds it, release by a non-holder.
LOCK_HELD = 1
NOT_HOLDER = 2


# ---------------------------------------------------------------------------------------------
# Locks
# ---------------------------------------------------------------------------------------------
def lock_file_path(file: str) -> str:
    """Normalise a file path for locking: SPEC 5.1 normalisation, no trailing slash.

    Args:
        file: the path as given.

    Returns:
        The normalised path (`./agents//foo.md` → `agents/foo.md`).

    Raises:
        InvalidData: empty, absolute, `..`, backslash or control characters (exit 65).
    """
    return normalize_path(file).rstrip("/")


def lock_rel_path(file: str) -> str:
    """Where the lock of a normalised file lives: `locks/<percent-encoded path>.yml` (collision-free)."""
    return f"{LOCKS_DIR}/{encode_lock_name(file)}"


def _lock_key(lock: Lock) -> str:
    """The normalised path a lock file names (its raw `file:` text when that does not normalise)."""
    try:
        return lock_file_path(lock.file)
    except InvalidData:
        return lock.file


def is_expired(lock: Lock, now: datetime) -> bool:
    """True when the lock's expiry has passed (a lock with no readable time is treated as expired)."""
    return lock.expires_at is None or now >= lock.expires_at


def is_legacy(lock: Lock) -> bool:
    """True for a lock file in the original scripts' `.lock` format."""
    return lock.path.endswith(".lock")


def locks_for(snapshot: BrainSnapshot, file: str) -> list[Lock]:
    """Every lock file of one normalised path: the current `.yml` one and any legacy `.lock` one."""
    canonical = lock_rel_path(file)
    return [lock for lock in snapshot.locks if lock.path == canonical or _lock_key(lock) == file]


def live_lock(snapshot: BrainSnapshot, file: str) -> Lock | None:
    """The unexpired lock of a normalised path (highest generation first), or None."""
    live = [lock for lock in locks_for(snapshot, file) if not is_expired(lock, snapshot.now)]
    live.sort(key=lambda lock: (lock.generation, lock.path.endswith(".yml")), reverse=True)
    return live[0] if live else None


@dataclass(frozen=True)
class LockInfo:
    """One lock file as a front-end shows it (times formatted in the brain's timezone).

    Attributes:
        file: the normalised path it locks (its raw `file:` text when that does not normalise).
        holder: the session holding it.
        generation: its generation counter.
        claimed_at: when the holder took this generation, or None when unreadable.
        expires_at: its expiry, or None when unreadable (then it counts as expired).
        ttl_min: the TTL it was taken with.
        expired: True when its expiry has passed.
        legacy: True for an original scripts' `.lock` file.
        path: the lock file, relative to the brain.
    """

    file: str
    holder: str
    generation: int
    claimed_at: str | None
    expires_at: str | None
    ttl_min: int
    expired: bool
    legacy: bool
    path: str

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of a lock: its file fields plus `path`, `expired` and `legacy`."""
        return {
            "file": self.file,
            "holder": self.holder,
            "generation": self.generation,
            "claimed_at": self.claimed_at,
            "expires_at": self.expires_at,
            "ttl_min": self.ttl_min,
            "expired": self.expired,
            "legacy": self.legacy,
            "path": self.path,
        }


def lock_info(lock: Lock, snapshot: BrainSnapshot) -> LockInfo:
    """A lock as a front-end shows it (see `LockInfo`)."""

    def when(moment: datetime | None) -> str | None:
        return format_timestamp(moment, snapshot.tz) if moment is not None else None

    return LockInfo(_lock_key(lock), lock.holder, lock.generation, when(lock.claimed_at), when(lock.expires_at),
                    lock.ttl_min, is_expired(lock, snapshot.now), is_legacy(lock), lock.path)


def lock_json(lock: Lock, snapshot: BrainSnapshot) -> dict[str, Any]:
    """JSON shape of a lock (`LockInfo.as_dict`)."""
    return lock_info(lock, snapshot).as_dict()


@dataclass(frozen=True)
class LockRelease:
    """What a release did: the lock files deleted (none when the file was not locked)."""

    file: str
    removed: tuple[str, ...]

    @property
    def released(self) -> bool:
        """True when a lock file was deleted."""
        return bool(self.removed)

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi lock release`: ``{file, released, removed}``."""
        return {"file": self.file, "released": self.released, "removed": list(self.removed)}


@dataclass(frozen=True)
class LockCheck:
    """Who holds a file now.

    Attributes:
        file: the normalised path.
        locked: True when an unexpired lock exists (another session could not acquire it now).
        lock: the live lock, else the newest lock file of the path (expired), else None.
    """

    file: str
    locked: bool
    lock: LockInfo | None

    @property
    def exit_code(self) -> int:
        """`bsi lock check` exits 1 when locked, else 0."""
        return LOCK_HELD if self.locked else 0

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi lock check`: ``{file, locked, lock: lock object | null}``."""
        return {"file": self.file, "locked": self.locked, "lock": self.lock.as_dict() if self.lock else None}


@dataclass(frozen=True)
class LockList:
    """Every lock file (sorted by path locked) and the lock files that did not load."""

    locks: tuple[LockInfo, ...]
    corrupt: tuple[CorruptFile, ...]

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi lock list`: ``{locks: [lock objects], corrupt: [{path, line, reason}]}``."""
        return {"locks": [lock.as_dict() for lock in self.locks], "corrupt": [c.as_dict() for c in self.corrupt]}


def check_lock(snapshot: BrainSnapshot, file: str) -> LockCheck:
    """Who holds `file` now (`bsi lock check`).

    Raises:
        InvalidData: a bad path (65).
    """
    norm = lock_file_path(file)
    live = live_lock(snapshot, norm)
    shown = live
    if shown is None:
        every = locks_for(snapshot, norm)
        shown = max(every, key=lambda lock: lock.generation) if every else None
    return LockCheck(norm, live is not None, lock_info(shown, snapshot) if shown is not None else None)


def list_locks(snapshot: BrainSnapshot) -> LockList:
    """Every lock of the snapshot, sorted by the file locked, with the corrupt lock files."""
    locks = sorted((lock_info(lock, snapshot) for lock in snapshot.locks), key=lambda info: info.file)
    corrupt = tuple(c for c in snapshot.corrupt if c.path.startswith(f"{LOCKS_DIR}/"))
    return LockList(tuple(locks), corrupt)


def _require_session(sess_id: str) -> None:
    if not valid_session_id(sess_id):
        raise InvalidData(f"invalid session ID {sess_id!r}: expected sess-…")


def parse_ttl_min(value: Any) -> int:
    """Validate a lock TTL in minutes (1…480; default 60 when None).

    Raises:
        InvalidData: not a whole number of minutes in range (exit 65).
    """
    if value is None:
        return DEFAULT_LOCK_TTL_MIN
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) <= MAX_LOCK_TTL_MIN:
        raise InvalidData(f"invalid lock TTL {text!r}: a whole number of minutes from 1 to {MAX_LOCK_TTL_MIN}")
    return int(text)


def _refuse_corrupt(snapshot: BrainSnapshot, rel: str) -> None:
    for bad in snapshot.corrupt:
        if bad.path == rel:
            raise InvalidData(f"lock file {rel} is corrupt (line {bad.line}: {bad.reason}): fix or remove it by hand")


@dataclass(frozen=True)
class LockOutcome:
    """What an acquire did.

    Attributes:
        file: the normalised path.
        holder: the session holding the lock now.
        generation: the lock's generation (a takeover adds one).
        claimed_at: when the holder first took this generation.
        expires_at: the new expiry.
        ttl_min: the TTL asked for.
        action: `acquired` (was free), `extended` (re-entry by the holder),
            `taken_over` (expired lock of another session) or `reacquired`
            (the holder's own expired lock).
        path: the lock file, relative to the brain.
        previous_holder: the expired holder on a takeover, else None.
        previous_expires_at: when the taken-over lock expired, else None.
        replaced_legacy: legacy `.lock` files deleted by this acquire.
    """

    file: str
    holder: str
    generation: int
    claimed_at: str
    expires_at: str
    ttl_min: int
    action: str
    path: str
    previous_holder: str | None = None
    previous_expires_at: str | None = None
    replaced_legacy: tuple[str, ...] = ()

    @property
    def takeover(self) -> bool:
        """True when an expired lock of another session was taken over."""
        return self.action == "taken_over"

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: the lock fields plus `action`, `takeover`, `previous_holder`, …"""
        return {
            "file": self.file,
            "holder": self.holder,
            "generation": self.generation,
            "claimed_at": self.claimed_at,
            "expires_at": self.expires_at,
            "ttl_min": self.ttl_min,
            "path": self.path,
            "action": self.action,
            "takeover": self.takeover,
            "previous_holder": self.previous_holder,
            "previous_expires_at": self.previous_expires_at,
            "replaced_legacy": list(self.replaced_legacy),
        }


def stage_acquire(cs: ChangeSet, file: str, sess_id: str, ttl_min: int | None = None) -> LockOutcome:
    """Acquire (or extend, or take over) the lock of one file (SPEC 9).

    Args:
        cs: the change set (its snapshot was taken under the brain lock).
        file: the file to lock; normalised first.
        sess_id: the session asking.
        ttl_min: minutes until expiry (default 60).

    Returns:
        What was done.

    Raises:
        InvalidData: bad path, session ID, TTL, or a corrupt lock file (65).
        NotFound: no claim has this session ID (66).
        PreflightRefused: code 1, another session holds an unexpired lock (names holder and expiry).
    """
    norm = lock_file_path(file)
    _require_session(sess_id)
    ttl = parse_ttl_min(ttl_min)
    snapshot = cs.snapshot
    require_claim(snapshot, sess_id)  # a lock belongs to a claim: no claim, no lock (66)
    rel = lock_rel_path(norm)
    _refuse_corrupt(snapshot, rel)
    now = snapshot.now
    existing = locks_for(snapshot, norm)
    live = [lock for lock in existing if not is_expired(lock, now)]
    others = [lock for lock in live if lock.holder != sess_id]
    if others:
        held = max(others, key=lambda lock: lock.generation)
        until = cs.ts(held.expires_at) if held.expires_at else "unknown"
        raise PreflightRefused(
            LOCK_HELD,
            f"{norm} is locked by {held.holder} until {until} (generation {held.generation}): "
            f"wait for its release or expiry, or signal BLOCKED_ON the pilot",
            {"file": norm, "holder": held.holder, "expires_at": until, "generation": held.generation},
        )
    mine = [lock for lock in live if lock.holder == sess_id]
    previous_holder = previous_expiry = None
    if mine:
        current = max(mine, key=lambda lock: lock.generation)
        action = "extended"
        generation = current.generation
        claimed = current.claimed_at or now
        expires = max(now + timedelta(minutes=ttl), current.expires_at or now)
    elif existing:
        last = max(existing, key=lambda lock: (lock.generation, lock.expires_at or now))
        generation = max(lock.generation for lock in existing) + 1
        claimed = now
        expires = now + timedelta(minutes=ttl)
        if last.holder == sess_id:
            action = "reacquired"
        else:
            action = "taken_over"
            previous_holder = last.holder
            previous_expiry = cs.ts(last.expires_at) if last.expires_at else None
    else:
        action, generation, claimed, expires = "acquired", 1, now, now + timedelta(minutes=ttl)
    doc = CommentedMap()
    doc["file"] = norm
    doc["holder"] = sess_id
    doc["generation"] = generation
    doc["claimed_at"] = cs.ts(claimed)
    doc["expires_at"] = cs.ts(expires)
    doc["ttl_min"] = ttl
    cs.put(rel, doc)
    replaced = []
    for lock in existing:
        if lock.path != rel:
            cs.delete(lock.path)
            replaced.append(lock.path)
    cs.message = f"bsi: lock acquire {norm}"
    return LockOutcome(
        file=norm,
        holder=sess_id,
        generation=generation,
        claimed_at=doc["claimed_at"],
        expires_at=doc["expires_at"],
        ttl_min=ttl,
        action=action,
        path=rel,
        previous_holder=previous_holder,
        previous_expires_at=previous_expiry,
        replaced_legacy=tuple(replaced),
    )


def stage_release(cs: ChangeSet, file: str, sess_id: str) -> LockRelease:
    """Release the lock of one file: its holder deletes it (SPEC 9).

    Returns:
        The lock files deleted (empty when the file was not locked at all).

    Raises:
        InvalidData: bad path or session ID (65).
        PreflightRefused: code 2, the lock is held by another session.
    """
    norm = lock_file_path(file)
    _require_session(sess_id)
    existing = locks_for(cs.snapshot, norm)
    not_mine = [lock for lock in existing if lock.holder != sess_id]
    if not_mine:
        held = max(not_mine, key=lambda lock: lock.generation)
        state = "expired" if is_expired(held, cs.snapshot.now) else "held"
        until = cs.ts(held.expires_at) if held.expires_at else "unknown"
        raise PreflightRefused(
            NOT_HOLDER,
            f"{sess_id} does not hold the lock of {norm}: {held.holder} does ({state}, until {until}); "
            f"only the holder releases it (an expired lock is freed by `bsi lock cleanup`)",
            {"file": norm, "holder": held.holder, "expires_at": until},
        )
    for lock in existing:
        cs.delete(lock.path)
    cs.message = f"bsi: lock release {norm}"
    return LockRelease(norm, tuple(lock.path for lock in existing))


def stage_cleanup(cs: ChangeSet) -> list[LockInfo]:
    """Delete every expired lock file (corrupt lock files are left alone).

    Returns:
        The removed locks.
    """
    removed = [lock for lock in cs.snapshot.locks if is_expired(lock, cs.snapshot.now)]
    for lock in removed:
        cs.delete(lock.path)
    cs.message = "bsi: lock cleanup"
    return [lock_info(lock, cs.snapshot) for lock in removed]


# ---------------------------------------------------------------------------------------------
# Circuit breaker
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CircuitState:
    """A claim's circuit breaker.

    Attributes:
        sess_id: the claim.
        fails: consecutive failures recorded.
        max_fails: `max_consecutive_fails` from brain-compose.yml (default 3).
        tripped: True once `fails` reached `max_fails` (until a reset).
        last_fail_at: the last failure's timestamp as written, or None.
        signal: the CIRCUIT_BREAK signal this call wrote, if any.
    """

    sess_id: str
    fails: int
    max_fails: int
    tripped: bool
    last_fail_at: str | None
    signal: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: `{sess_id, fails, max, tripped, last_fail_at, signal}`."""
        return {
            "sess_id": self.sess_id,
            "fails": self.fails,
            "max": self.max_fails,
            "tripped": self.tripped,
            "last_fail_at": self.last_fail_at,
            "signal": self.signal,
        }


def circuit_state(claim: Claim, max_fails: int = DEFAULT_MAX_FAILS) -> CircuitState:
    """Read a claim's `circuit:` field leniently (absent or malformed = no failures)."""
    raw = claim.data.get("circuit")
    circuit: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    fails = circuit.get("fails")
    count = fails if isinstance(fails, int) and not isinstance(fails, bool) and fails > 0 else 0
    last = circuit.get("last_fail_at")
    tripped = circuit.get("tripped") is True or count >= max_fails
    return CircuitState(claim.sess_id, count, max_fails, tripped, str(last) if last else None)


def _breaker_destination(snapshot: BrainSnapshot, claim: Claim) -> str:
    """The parent, else the tree's root (for a root claim, the claim itself)."""
    return claim.parent or resolve_destination(snapshot, claim, "pilote")


def stage_fail(cs: ChangeSet, sess_id: str, max_fails: int = DEFAULT_MAX_FAILS) -> CircuitState:
    """Record one failure; at `max_fails` trip the breaker and send CIRCUIT_BREAK once (SPEC 9).

    Raises:
        InvalidData / NotFound: bad or unknown claim (65 / 66).
        TransitionRefused: the claim is terminal (12).
    """
    claim = require_claim(cs.snapshot, sess_id)
    if claim.is_terminal:
        raise TransitionRefused(f"cannot record a failure on {sess_id}: it is {claim.status}")
    before = circuit_state(claim, max_fails)
    raw = claim.data.get("circuit")
    was_tripped = isinstance(raw, Mapping) and raw.get("tripped") is True
    fails = before.fails + 1
    now = cs.ts()
    fields: dict[str, Any] = {"fails": fails, "last_fail_at": now}
    signal = None
    tripped = fails >= max_fails or was_tripped
    if tripped:
        fields["tripped"] = True
    if tripped and not was_tripped:
        dest = _breaker_destination(cs.snapshot, claim)
        signal = cs.add_signal(
            sess_id, dest, "CIRCUIT_BREAK",
            f"circuit breaker tripped: {fails} consecutive failures (max {max_fails}) — "
            f"{sess_id} stopped; `bsi preflight reset {sess_id}` after fixing the cause",
            claim.scope_text,
        )
    cs.update_claim(sess_id, {"circuit": flow_map(fields)})
    cs.message = f"bsi: circuit fail {sess_id}"
    return CircuitState(sess_id, fails, max_fails, tripped, now, signal)


def stage_reset(cs: ChangeSet, sess_id: str, max_fails: int = DEFAULT_MAX_FAILS) -> CircuitState:
    """Clear a claim's breaker: `circuit: {fails: 0, last_fail_at: null}`.

    Raises:
        InvalidData / NotFound: bad or unknown claim (65 / 66).
    """
    require_claim(cs.snapshot, sess_id)
    cs.update_claim(sess_id, {"circuit": flow_map({"fails": 0, "last_fail_at": None})})
    cs.message = f"bsi: circuit reset {sess_id}"
    return CircuitState(sess_id, 0, max_fails, False, None)


# ---------------------------------------------------------------------------------------------
# Preflight (SPEC 10)
# ---------------------------------------------------------------------------------------------
def in_zone(file: str, zone: Sequence[str]) -> bool:
    """True when a normalised file is in a zone: entries ending in `/` are folders, others files."""
    for raw in zone:
        try:
            entry = normalize_path(raw)
        except InvalidData:
            continue
        if entry.endswith("/"):
            if file.startswith(entry) or file == entry.rstrip("/"):
                return True
        elif file == entry:
            return True
    return False


_UNBLOCK = {
    "waiting_human": "a human approves the pending gate: `bsi gate approve {id}` (or rejects it)",
    "paused": "a human resumes it: `bsi gate resume {by}`",
    "stale": "a human releases it (`bsi claim release {id} --reason …`) and the session opens a new claim",
    "closed": "the claim is finished: open a new one with `bsi claim open`",
    "failed": "the claim failed: open a new one with `bsi claim open`",
    "released": "the claim was released: open a new one with `bsi claim open`",
}


def _refuse(code: int, message: str, sess_id: str, file: str, **extra: Any) -> PreflightRefused:
    payload = {"sess_id": sess_id, "file": file, "code": code, "check": CHECK_NAMES[code], **extra}
    return PreflightRefused(code, message, payload)


def _check_claim(snapshot: BrainSnapshot, sess_id: str, file: str) -> Claim:
    try:
        claim = require_claim(snapshot, sess_id)
    except NotFound:
        raise _refuse(CLAIM_NOT_OPEN, f"claim {sess_id} unknown: open one with `bsi claim open` first",
                      sess_id, file) from None
    current = effective_status(claim, snapshot.now)
    if current != "open":
        by = (claim.paused_by or sess_id) if current == "paused" else sess_id
        hint = _UNBLOCK.get(current, "only an open claim may write").format(id=sess_id, by=by)
        shown = current if current == claim.status else f"{current} (expired while {claim.status})"
        raise _refuse(CLAIM_NOT_OPEN, f"claim {sess_id} is {shown}, not open: {hint}",
                      sess_id, file, status=current)
    for ancestor in snapshot.ancestors(sess_id):
        if is_held_pause(ancestor, snapshot.now):
            raise _refuse(
                CLAIM_NOT_OPEN,
                f"{'parent' if ancestor.sess_id == claim.parent else 'ancestor'} {ancestor.sess_id} is paused: "
                f"a human resumes it with `bsi gate resume {ancestor.sess_id}`",
                sess_id, file, status=claim.status, blocked_by=ancestor.sess_id,
            )
        if ancestor.status == "failed":
            raise _refuse(
                CLAIM_NOT_OPEN,
                f"{'parent' if ancestor.sess_id == claim.parent else 'ancestor'} {ancestor.sess_id} failed: "
                f"stop and signal BLOCKED_ON the pilot (`bsi signal send --from {sess_id} --to pilote "
                f"--type BLOCKED_ON …`)",
                sess_id, file, status=claim.status, blocked_by=ancestor.sess_id,
            )
    return claim


def _check_search_write(snapshot: BrainSnapshot, claim: Claim, file: str) -> None:
    """A search claim is read-only "or nearly": it never writes a file another blocking claim holds.

    Its own open ancestors and its descendants are not "another" (delegation, SPEC 5.3).

    Raises:
        PreflightRefused: code 1, naming the holder.
    """
    exempt = {claim.sess_id, *delegating_chain(snapshot, claim.parent)}
    exempt.update(c.sess_id for c in snapshot.descendants(claim.sess_id))
    holders = [c for c in find_conflicts(snapshot, (ScopeEntry(FILE, file),)) if c.sess_id not in exempt]
    if holders:
        names = "; ".join(c.describe() for c in holders)
        raise _refuse(
            SCOPE_VIOLATION,
            f"scope violation: {claim.sess_id} is a search claim and {file} is held by {names}: "
            f"a search claim writes only files no other claim holds (signal the holder, or open a claim)",
            claim.sess_id, file, holders=[c.sess_id for c in holders],
        )


@dataclass(frozen=True)
class PreflightResult:
    """A preflight that let the write go (a refusal raises `PreflightRefused` instead)."""

    sess_id: str
    file: str
    code: int = GO

    @property
    def check(self) -> str:
        """The name of the check behind the code (``go``)."""
        return CHECK_NAMES[self.code]

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi preflight check`: ``{sess_id, file, code: 0, check: "go"}``."""
        return {"sess_id": self.sess_id, "file": self.file, "code": self.code, "check": self.check}


def check(
    snapshot: BrainSnapshot,
    config: BrainConfig,
    sess_id: str,
    file: str,
    current_branch: str | Callable[[], str] | None = None,
) -> int:
    """Run the preflight checks of SPEC 10 for one write by one session.

    Args:
        snapshot: the brain now.
        config: brain-compose.yml (kernel zone, kerneluser, max_consecutive_fails).
        sess_id: the session about to write.
        file: the file it will write (relative to the brain root).
        current_branch: the checked-out git branch, or a callable giving it (only
            called when the claim has a `theme_branch`); None counts as no branch.

    Returns:
        0 (go).

    Raises:
        InvalidData: the session ID is malformed or its claim file is corrupt (65).
        PreflightRefused: with code 4, 1, 5, 2, 3 or 6 — the first failing check in
            that order — and a message that says what unblocks it.
    """
    claim = _check_claim(snapshot, sess_id, file)
    try:
        norm = lock_file_path(file)
    except InvalidData as exc:
        raise _refuse(SCOPE_VIOLATION, f"scope violation: {exc.message} — never outside the claim's scope",
                      sess_id, file) from None
    if not covers_file(claim.scope, norm):
        scope = claim.scope_text or "(no readable scope)"
        raise _refuse(
            SCOPE_VIOLATION,
            f"scope violation: {norm} is outside the scope of {sess_id} ({scope}): "
            f"signal BLOCKED_ON the pilot, or work under a claim whose scope covers it",
            sess_id, norm, scope=scope,
        )
    if claim.satellite_type == "search":
        _check_search_write(snapshot, claim, norm)
    # Any claim in a tree (with a parent) is a satellite for the zone check, whatever its `type` says.
    satellite = claim.type == "satellite" or claim.parent is not None
    if satellite and not config.kerneluser and in_zone(norm, config.kernel_zone):
        raise _refuse(
            ZONE_VIOLATION,
            f"zone violation: {norm} is in the kernel zone and {sess_id} is a satellite: "
            f"a human writes it (human gate: `bsi gate request {sess_id} …`), or set `kerneluser: true`",
            sess_id, norm,
        )
    held = live_lock(snapshot, norm)
    if held is not None and held.holder != sess_id:
        until = format_timestamp(held.expires_at, snapshot.tz) if held.expires_at else "unknown"
        raise _refuse(
            FILE_LOCKED,
            f"{norm} is locked by {held.holder} until {until}: wait for `bsi lock release` or expiry, then retry",
            sess_id, norm, holder=held.holder, expires_at=until,
        )
    breaker = circuit_state(claim, config.max_consecutive_fails)
    if breaker.tripped:
        raise _refuse(
            CIRCUIT_TRIPPED,
            f"circuit breaker tripped for {sess_id} ({breaker.fails}/{breaker.max_fails} consecutive failures): "
            f"stop; after fixing the cause, `bsi preflight reset {sess_id}`",
            sess_id, norm, fails=breaker.fails, max=breaker.max_fails,
        )
    wanted = claim.theme_branch
    if wanted:
        branch = current_branch() if callable(current_branch) else (current_branch or "")
        if branch != wanted:
            raise _refuse(
                WRONG_BRANCH,
                f"wrong branch: {sess_id} works on {wanted}, the checkout is on {branch or '(no branch)'}: "
                f"`git checkout {wanted}`",
                sess_id, norm, branch=branch, theme_branch=wanted,
            )
    return GO
