"""File locks (SPEC 9): `locks/<percent-encoded path>.yml` mutexes with a TTL and a generation counter.

`stage_acquire` and `stage_release` (and `lock_cleanup.stage_cleanup`) stage their writes in a
`ChangeSet`; run inside `Brain.mutate` (which holds the brain's flock) the
check-then-write is atomic across local processes. Legacy `locks/*.lock`
files (original scripts) count as the lock of the path named by their
`file:` field; a re-entry or takeover rewrites them in the new format and
deletes the legacy file.

One lock per file whatever its spelling: locks of paths whose
`path_keys.path_key` is equal (``README.md`` and ``readme.md``, NFC and NFD)
are one lock, as they are one file on macOS. A lock file is still named
after the spelling written (`encode_lock_name`), so every existing lock file
loads unchanged; a re-entry or takeover keeps the spelling of the lock file
already there.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from brain_tui.core.clock import format_timestamp
from brain_tui.core.errors import InvalidData, PreflightRefused
from brain_tui.core.ids import valid_session_id
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.layout import LOCKS_DIR
from brain_tui.core.paths.path_keys import path_key, resolve_in_brain
from brain_tui.core.record import record
from brain_tui.core.records import formats
from brain_tui.core.records.formats import encode_lock_name
from brain_tui.core.records.model import BrainSnapshot, Claim, CorruptFile, Lock
from brain_tui.core.records.unreadable import BY_HAND
from brain_tui.core.rules.conflicts import unreadable_holders
from brain_tui.core.rules.effective import require_claim, require_may_work
from brain_tui.core.rules.lock_names import lock_file_path, lock_paths, lock_rel_path, name_path
from brain_tui.core.rules.lock_names import lock_key as _lock_key

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:  # the write path: `preflight check` and `lock check` load no change set
    from typing import Any, ClassVar

    from brain_tui.core.records.changes import ChangeSet

DEFAULT_LOCK_TTL_MIN = formats.DEFAULT_LOCK_TTL_MIN

MAX_LOCK_TTL_MIN = formats.MAX_LOCK_TTL_MIN

#: Lock exit codes (SPEC 9): acquire refused while another session holds it, release by a non-holder.
LOCK_HELD = 1

NOT_HOLDER = 2

#: The longest lock file name (bytes): a file name holds 255, and the atomic write's temporary name adds
#: `.bsi-tmp-` before it and `.<pid>.<8 hex>` after it (`records.yamlio.atomic_write_text`).
MAX_LOCK_NAME_BYTES = 255 - len(".bsi-tmp-") - len(".4194304.") - 8

def is_expired(lock: Lock, now: datetime) -> bool:
    """True when the lock's expiry has passed (a lock file without a readable expiry is a corrupt row, not a
    `Lock`: `formats.lock_from_mapping`; None here is still read as expired)."""
    return lock.expires_at is None or now >= lock.expires_at

def is_legacy(lock: Lock) -> bool:
    """True for a lock file in the original scripts' `.lock` format."""
    return lock.path.endswith(".lock")

def locks_for(snapshot: BrainSnapshot, file: str, tree: bool = False) -> list[Lock]:
    """Every lock file of one normalised path in any spelling (same `path_key`): `.yml` ones and legacy `.lock` ones.
    `tree`: `file` is a folder written whole (`rm -r`): the locks of every file below it too."""
    canonical = lock_rel_path(file)
    key = _file_key(snapshot, file)
    return [lock for lock in snapshot.locks
            if lock.path == canonical or any(_at_or_below(_file_key(snapshot, held), key, tree)
                                             for held in lock_paths(lock))]


def _at_or_below(named: str, key: str, tree: bool) -> bool:
    """True when a lock's path key `named` is `key`, or (`tree`) a path below that folder."""
    return named == key or tree and (not key or named.startswith(key + "/"))


def _file_key(snapshot: BrainSnapshot, file: str) -> str:
    """The key one locked path compares by: links inside the brain followed, then folded (``alias/x.md`` is
    ``real/x.md`` when ``alias -> real``: one file, one lock)."""
    return path_key(resolve_in_brain(snapshot.root, file) or file)

def holder_ended(snapshot: BrainSnapshot, lock: Lock) -> str | None:
    """The terminal status of the claim holding `lock` (closed, failed, released), or None while it may write.

    A terminal claim never writes again (SPEC 6.3), so its lock holds nothing. The claim is read as git holds it
    (SPEC 22): an uncommitted edit of a live claim to a terminal status, or a close made in git alone while the
    work tree holds it live, still reads live; a holder with no readable claim holds its lock.
    """
    claim = snapshot.claim(lock.holder)
    return str(claim.status) if claim is not None and claim.is_terminal else None


def holds(snapshot: BrainSnapshot, lock: Lock) -> bool:
    """True when `lock` holds its file now: unexpired, and its holder's claim has not ended."""
    return not is_expired(lock, snapshot.now) and holder_ended(snapshot, lock) is None


def live_lock(snapshot: BrainSnapshot, file: str) -> Lock | None:
    """The lock that holds a normalised path now (`holds`; highest generation first), or None."""
    live = [lock for lock in locks_for(snapshot, file) if holds(snapshot, lock)]
    live.sort(key=lambda lock: (lock.generation, lock.path.endswith(".yml")), reverse=True)
    return live[0] if live else None

def live_lock_of_other(snapshot: BrainSnapshot, file: str, sess_id: str, tree: bool = False) -> Lock | None:
    """A lock that holds a normalised path (`holds`) for another session than `sess_id` (highest generation
    first), or None: when two copies of a lock file are in force (HEAD's and the work tree's), either one holding
    it for another session locks the file. `tree`: any file below the folder `file` too (`locks_for`)."""
    live = [lock for lock in locks_for(snapshot, file, tree) if lock.holder != sess_id and holds(snapshot, lock)]
    return max(live, key=lambda lock: lock.generation) if live else None

@record
class LockInfo(JsonShaped):
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
        holder_ended: the terminal status of its holder's claim (closed, failed, released), or None while that
            claim may write: a lock of an ended claim holds nothing (`holds`).
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
    holder_ended: str | None = None


def lock_info(lock: Lock, snapshot: BrainSnapshot) -> LockInfo:
    """A lock as a front-end shows it (see `LockInfo`)."""

    def when(moment: datetime | None) -> str | None:
        return format_timestamp(moment, snapshot.tz) if moment is not None else None

    return LockInfo(_lock_key(lock), lock.holder, lock.generation, when(lock.claimed_at), when(lock.expires_at),
                    lock.ttl_min, is_expired(lock, snapshot.now), is_legacy(lock), lock.path,
                    holder_ended(snapshot, lock))

@record
class LockRelease(JsonShaped):
    """What a release did: the lock files deleted (none when the file was not locked); JSON shape of
    `bsi lock release`: ``{file, removed, released}``."""

    _json_extra = ("released",)

    file: str
    removed: tuple[str, ...]

    @property
    def released(self) -> bool:
        """True when a lock file was deleted."""
        return bool(self.removed)

@record
class LockCheck(JsonShaped):
    """Who holds a file now.

    Attributes:
        file: the normalised path.
        locked: True when an unexpired lock exists, or a lock file of the path does not read (another session
            could not acquire it now).
        lock: the live lock, else the newest lock file of the path (expired), else None.
    """

    file: str
    locked: bool
    lock: LockInfo | None
    #: A lock file of the path that does not load: it may hold the lock (SPEC 22), so the path is not free.
    corrupt: CorruptFile | None = None

    _json_if_set: ClassVar[frozenset[str]] = frozenset({"corrupt"})

    @property
    def exit_code(self) -> int:
        """`bsi lock check` exits 1 when locked, else 0."""
        return LOCK_HELD if self.locked else 0


@record
class LockList(JsonShaped):
    """Every lock file (sorted by path locked) and the lock files that did not load."""

    locks: tuple[LockInfo, ...]
    corrupt: tuple[CorruptFile, ...]


def check_lock(snapshot: BrainSnapshot, file: str) -> LockCheck:
    """Who holds `file` now (`bsi lock check`); a bad path is refused (InvalidData, 65)."""
    norm = lock_file_path(file)
    live = live_lock(snapshot, norm)
    shown = live
    if shown is None:
        every = locks_for(snapshot, norm)
        shown = max(every, key=lambda lock: lock.generation) if every else None
    bad = corrupt_lock_of(snapshot, norm) if live is None else None
    info = lock_info(shown, snapshot) if shown is not None else None
    return LockCheck(norm, live is not None or bad is not None, info, bad)

def list_locks(snapshot: BrainSnapshot) -> LockList:
    """Every lock of the snapshot, sorted by the file locked, with the corrupt lock files."""
    locks = sorted((lock_info(lock, snapshot) for lock in snapshot.locks), key=lambda info: info.file)
    corrupt = tuple(c for c in snapshot.corrupt if c.path.startswith(f"{LOCKS_DIR}/"))
    return LockList(tuple(locks), corrupt)

def _require_nameable(norm: str) -> None:
    """A lock file can be named for `norm` (SPEC 9: the percent-encoded path is the file name).

    Raises:
        InvalidData: the name would pass what a file name may hold (65), where the write was an OSError (70).
    """
    size = len(encode_lock_name(norm).encode("utf-8"))
    if size > MAX_LOCK_NAME_BYTES:
        shown = norm if len(norm) <= 80 else norm[:79] + "…"
        raise InvalidData(f"cannot lock {shown!r}: its lock file name would take {size} bytes, at most "
                          f"{MAX_LOCK_NAME_BYTES} (a path this long cannot be locked; lock the files of a "
                          "shorter path)")


def _require_file(root: str, file: str, norm: str) -> None:
    """A lock names one file: a path written as a folder (trailing slash) or naming one is refused.

    Raises:
        InvalidData: a folder (65); locked as a file, it would lock none of the files below it.
    """
    import os

    if file.rstrip().endswith("/") or os.path.isdir(os.path.join(root, norm)):
        raise InvalidData(f"cannot lock {norm!r}: it is a folder, and a lock names one file "
                          "(lock each file written below it)")


def _require_session(sess_id: str) -> None:
    if not valid_session_id(sess_id):
        raise InvalidData(f"invalid session ID {sess_id!r}: expected sess-…")

def parse_ttl_min(value: Any) -> int:
    """Validate a lock TTL in minutes (1…480; default 60 when None); else InvalidData (65)."""
    if value is None:
        return DEFAULT_LOCK_TTL_MIN
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) <= MAX_LOCK_TTL_MIN:
        raise InvalidData(f"invalid lock TTL {text!r}: a whole number of minutes from 1 to {MAX_LOCK_TTL_MIN}")
    return int(text)

def corrupt_lock_of(snapshot: BrainSnapshot, file: str, tree: bool = False) -> CorruptFile | None:
    """A lock file of `file` (normalised), in any spelling, that does not load, or None (`tree`: of any file below
    the folder `file` too).

    Such a file may hold the lock (SPEC 22: what does not parse fails closed), so no reader calls the file free.
    """
    prefix = f"{LOCKS_DIR}/"
    key = _file_key(snapshot, file)
    for bad in snapshot.corrupt:
        if not bad.path.startswith(prefix) or not bad.path.endswith(".yml"):
            continue
        named = name_path(bad.path)
        if bad.path == lock_rel_path(file) or named is not None and (
                path_key(named) == path_key(file) or _at_or_below(_file_key(snapshot, named), key, tree)):
            return bad
    return None


def _refuse_corrupt(snapshot: BrainSnapshot, file: str) -> None:
    """Refuse to lock a file while a lock file of it, in any spelling, does not load (it may hold the lock)."""
    bad = corrupt_lock_of(snapshot, file)
    if bad is not None:
        raise InvalidData(f"lock file {bad.path} is corrupt (line {bad.line}: {bad.reason}): {BY_HAND}")

@record
class LockOutcome(JsonShaped):
    """What an acquire did; its JSON shape is its fields and `takeover`.

    Attributes:
        file: the normalised path.
        holder: the session holding the lock now.
        generation: the lock's generation (a takeover adds one).
        claimed_at: when the holder first took this generation.
        expires_at: the new expiry.
        ttl_min: the TTL written beside it: the one asked for, or on a re-entry that kept a later expiry the one
            that set that expiry (so `expires_at` is always the end of `ttl_min` from one acquire).
        action: `acquired` (was free), `extended` (re-entry by the holder),
            `taken_over` (another session's lock, expired or of an ended claim) or `reacquired`
            (the holder's own expired lock).
        path: the lock file, relative to the brain.
        previous_holder: the expired holder on a takeover, else None.
        previous_expires_at: when the taken-over lock expired (or would have), else None.
        previous_status: on the takeover of an unexpired lock, the terminal status of its holder's claim.
        replaced_legacy: legacy `.lock` files deleted by this acquire.
        asked_ttl_min: on a re-entry whose TTL would have ended the lock sooner (kept as it was), the TTL asked.
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
    previous_status: str | None = None
    replaced_legacy: tuple[str, ...] = ()
    asked_ttl_min: int | None = None
    _json_extra = ("takeover",)
    _json_if_set: ClassVar[frozenset[str]] = frozenset({"previous_status", "asked_ttl_min"})

    @property
    def takeover(self) -> bool:
        """True when an expired lock of another session was taken over."""
        return self.action == "taken_over"


def stage_acquire(cs: ChangeSet, file: str, sess_id: str, ttl_min: int | None = None) -> LockOutcome:
    """Acquire (or extend, or take over) the lock of one file (SPEC 9); `cs` was read under the brain lock.

    Raises:
        InvalidData: bad path, session ID, TTL, or a corrupt lock file (65).
        NotFound: no claim has this session ID (66).
        PreflightRefused: code 1, another session holds an unexpired lock (names holder and expiry).
    """
    norm = lock_file_path(file)
    _require_nameable(norm)
    _require_session(sess_id)
    ttl = parse_ttl_min(ttl_min)
    snapshot = cs.snapshot
    _require_file(snapshot.root, file, norm)
    claim = require_claim(snapshot, sess_id)  # a lock belongs to a claim: no claim, no lock (66)
    _require_working(snapshot, claim)
    _refuse_corrupt(snapshot, norm)
    unreadable = unreadable_holders(snapshot, norm, exclude=sess_id)
    if unreadable:  # a claim file that does not read may hold it (SPEC 22): fail closed
        raise PreflightRefused(
            LOCK_HELD, f"{norm} may be held by a claim file that does not read: "
                       f"{'; '.join(c.describe() for c in unreadable)}",
            {"file": norm, "holders": [c.path for c in unreadable]},
        )
    now = snapshot.now
    existing = locks_for(snapshot, norm)
    norm = _kept_spelling(existing, norm)
    rel = lock_rel_path(norm)
    live = [lock for lock in existing if not is_expired(lock, now)]
    others = [lock for lock in live if lock.holder != sess_id and holder_ended(snapshot, lock) is None]
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
    previous_holder = previous_expiry = previous_status = asked = None
    if mine:  # a re-entry never shortens the lock: a later expiry stays, with the TTL that set it
        current = max(mine, key=lambda lock: lock.generation)
        action = "extended"
        generation = current.generation
        claimed = current.claimed_at or now
        expires = now + timedelta(minutes=ttl)
        if current.expires_at is not None and current.expires_at > expires:
            expires, asked, ttl = current.expires_at, ttl, current.ttl_min
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
            previous_status = holder_ended(snapshot, last) if not is_expired(last, now) else None
    else:
        action, generation, claimed, expires = "acquired", 1, now, now + timedelta(minutes=ttl)
    from ruamel.yaml.comments import CommentedMap  # the write path's only

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
        previous_status=previous_status,
        replaced_legacy=tuple(replaced),
        asked_ttl_min=asked,
    )


def _require_working(snapshot: BrainSnapshot, claim: Claim) -> None:
    """Only a claim that may write now takes or extends a lock (issue 17): as preflight's check 4 reads it.

    A claim held at a gate or a pause (its own or an ancestor's), stale, finished, under a failed ancestor or
    under one that does not read may not write (SPEC 10, code 4), so it locks nothing either; its owner may
    still close a stale claim late, which needs no lock.

    Raises:
        TransitionRefused: not effectively open, or its tree held (12, README: such a claim takes no lock).
    """
    require_may_work(snapshot, claim, "lock a file for")


def _kept_spelling(existing: list[Lock], norm: str) -> str:
    """The spelling a lock keeps: that of its current-format lock file when one exists, else the one asked.

    So a re-entry or takeover under ``readme.md`` rewrites ``locks/README.md.yml`` in place (one file, one
    lock) instead of adding a second spelling beside it.
    """
    for lock in sorted(existing, key=lambda lock: lock.generation, reverse=True):
        if not is_legacy(lock):
            kept = _lock_key(lock)
            if lock.path == lock_rel_path(kept):
                return kept
    return norm


def stage_release(cs: ChangeSet, file: str, sess_id: str) -> LockRelease:
    """Release the lock of one file by its holder (SPEC 9); the lock files deleted (none when it was not locked).

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
            {"file": norm, "holder": held.holder, "expires_at": until}, retryable=False,  # never, however long
        )
    for lock in existing:
        cs.delete(lock.path)
    cs.message = f"bsi: lock release {norm}"
    return LockRelease(norm, tuple(lock.path for lock in existing))
