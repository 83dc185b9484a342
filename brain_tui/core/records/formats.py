"""The brain's file formats, read leniently: claims, signals and locks (SPEC 6, 7, 9).

Each reader turns the mapping the safe YAML loader gave (`yamlio`) into a typed `Claim`, `Signal` or `Lock` — or a
`CorruptFile` saying why the file cannot be used — and never raises. Current, v2/v3 and v1 (legacy) spellings are
read here and nowhere else; `store.BrainStore` only decides which files to read and when. The parse cache
fingerprints this module: a change here empties it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from urllib.parse import quote

from brain_tui.core.clock import DEFAULT_TTL, MAX_TTL, claim_ttl, try_parse_timestamp
from brain_tui.core.errors import InvalidData
from brain_tui.core.ids import SIGNAL_ID_RE, SIGNAL_TYPE_RE, opened_minute, valid_session_id
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.scope import ScopeEntry, joined, parse_scope
from brain_tui.core.records.model import Claim, CorruptFile, Lock, Signal
from brain_tui.core.records.statuses import KNOWN_STATUSES as KNOWN_STATUSES  # re-exported
from brain_tui.core.records.statuses import TERMINAL_STATUSES, SignalState, Status
from brain_tui.core.records.yamlio import safe_load_bytes

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

#: The suffixes of claim and signal files (locks also read the legacy `.lock`).
YAML_SUFFIXES = (".yml", ".yaml")


#: A lock's default TTL and the longest one (minutes, SPEC 9): `bsi lock acquire` refuses more, and a lock file
#: written with more reads as this cap.
DEFAULT_LOCK_TTL_MIN = 60

MAX_LOCK_TTL_MIN = 8 * 60


def encode_lock_name(file: str) -> str:
    """Reversible, collision-free lock file name for a normalised path (SPEC 9)."""
    return quote(file, safe="") + ".yml"


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return str(value)


_LEGACY_SECTION_RE = LazyPattern(
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


def _opened_from_id(sess_id: str, tz: tzinfo) -> datetime | None:
    """The opening time a canonical ID carries (local time of the brain's zone, SPEC 4), else None."""
    minute = opened_minute(sess_id)
    if minute is None:
        return None
    year, month, day, hour, mins = minute
    return try_parse_timestamp(f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{mins:02d}", tz)


#: Spellings of the live status in older formats (the seeds' BSI v1 writes `status: active`).
_OPEN_SPELLINGS = frozenset({"active"})
#: Spellings of a clean close in older formats (seed 000 closes with `status: completed`).
_CLOSED_SPELLINGS = frozenset({"completed"})


def normalize_status(raw: str) -> Status | str:
    """A status as the rules read it: case-insensitive, ``active`` is ``open``, ``completed`` is ``closed``;
    a known one as its `Status` member, an unknown one kept as written (a plain str, "" when empty)."""
    lowered = raw.strip().lower()
    if lowered in _OPEN_SPELLINGS:
        return Status.OPEN
    if lowered in _CLOSED_SPELLINGS:
        return Status.CLOSED
    return Status.of(lowered) or raw.strip()


#: Keys only a claim carries (SPEC 6): a mapping holding none of them is not a claim (SPEC 2: ignored); one holding
#: any of them is a claim, read or failing closed (SPEC 22), even with its ID and scope edited away.
CLAIM_KEYS = frozenset({"sess_id", "name", "scope", "status", "opened_at", "opened", "expires_at", "ttl",
                        "parent_satellite", "satellite_type", "gate_history", "gate_origin", "paused_by",
                        "stale_since", "closed_at", "closed"})


def is_claim_mapping(data: Mapping[str, Any]) -> bool:
    """True when a file's top-level mapping is a claim's: it holds any of `CLAIM_KEYS`, in any case or with spaces
    around it (`Status:`, `SCOPE:` left by a hand edit read as a claim that does not read, never as no claim)."""
    return any(str(key).strip().lower() in CLAIM_KEYS for key in data)


def claim_identity(data: Any, rel_path: str, tz: tzinfo) -> tuple[str, Status | str] | CorruptFile | None:
    """``(sess_id, status)`` of a claim, without building it (enough for a snapshot filtered by status); else the
    CorruptFile or None that `claim_from_mapping` returns for this data."""
    if not isinstance(data, Mapping):
        return CorruptFile(rel_path, 1, "top level is not a mapping")
    if not is_claim_mapping(data):
        return None
    raw_id = data.get("sess_id") if data.get("sess_id") is not None else data.get("name")
    sess_id = _text(raw_id).strip() if raw_id is not None else Path(rel_path).stem
    if not valid_session_id(sess_id):
        return CorruptFile(rel_path, 1, f"invalid session ID {sess_id!r}")
    status = normalize_status(_text(data.get("status")))
    if not status:
        status = Status.CLOSED if try_parse_timestamp(data.get("closed_at", data.get("closed")), tz) else Status.OPEN
    return sess_id, held_status(data, status)


#: gate_history events that put a claim on hold, lift that hold, and decide its own gate (SPEC 6.3).
_PAUSE_EVENTS = frozenset({"PAUSED", "PAUSED_CASCADE"})
_RESUME_EVENTS = frozenset({"RESUMED", "RESUMED_CASCADE"})
_DECISION_EVENTS = frozenset({"APPROVED", "REJECTED", "ABORTED", "ABORTED_CASCADE", "RELEASED"})


def held_status(data: Mapping[str, Any], status: Status | str) -> Status | str:
    """The live status a claim file holds: never nearer ``open`` than a hold no human lifted (SPEC 6.3, 21.2).

    Only a human lifts a pause or decides a gate, and each of those verbs leaves its trace: a resume removes
    ``paused_by`` and records RESUMED (or RESUMED_CASCADE), an approval removes ``gate_origin`` and records
    APPROVED. A file that reads ``open`` (or ``waiting_human``) while a pause is still marked (``paused_by``, or a
    PAUSED event no resume followed) was never resumed; one that reads ``open`` while a gate is still marked
    (``gate_origin``, or the claim's own HUMAN_GATE no decision followed; the old scripts wrote it with no ``by``,
    and a cascade pause and resume then set the status back to ``open``: SPEC 14.2's bypass) was never approved.
    An edit of the status line (by hand, in git alone, on another machine) lifts nothing: the claim holds as
    ``paused`` or ``waiting_human``, and a human's verb acts on it as on any such claim. So does an edit to a word
    bsi does not know (``weird``, ``[open]``): with a hold still marked it reads as that hold, else as written.
    """
    if status not in (Status.OPEN, Status.WAITING_HUMAN) and status in KNOWN_STATUSES:
        return status
    paused = gated = False
    history = data.get("gate_history")
    own = _text(data.get("sess_id") if data.get("sess_id") is not None else data.get("name")).strip()
    for entry in history if isinstance(history, list) else ():
        event = _text(entry.get("event")).strip() if isinstance(entry, Mapping) else ""
        if event in _PAUSE_EVENTS or event in _RESUME_EVENTS:
            paused = event in _PAUSE_EVENTS
        elif event == "HUMAN_GATE" and own and _text(entry.get("by")).strip() in ("", own):  # the old scripts: no by
            gated = True
        elif event in _DECISION_EVENTS:
            gated = False
    paused = paused or bool(_text(data.get("paused_by")).strip())
    gated = gated or bool(_text(data.get("gate_origin")).strip())
    if paused:
        return Status.PAUSED
    if status != Status.WAITING_HUMAN and gated:
        return Status.WAITING_HUMAN
    return status


def claim_from_mapping(
    data: Any, rel_path: str, root: str | Path, tz: tzinfo, default_ttl: timedelta = DEFAULT_TTL,
    scope_parser: Callable[[Any], tuple[ScopeEntry, ...]] | None = None,
) -> Claim | CorruptFile | None:
    """Read one claim leniently (current, v2/v3 and v1 formats, SPEC 6.2): a Claim; a CorruptFile when it is a claim
    that cannot be used; None when the file is not a claim at all (e.g. ``gate-ack-*.yml``). `scope_parser`
    replaces ``parse_scope(value, root)`` (the store passes a memoised one)."""
    identity = claim_identity(data, rel_path, tz)
    if not isinstance(identity, tuple):
        return identity
    sess_id, status = identity
    live = status not in TERMINAL_STATUSES
    flags: list[str] = []
    if status not in KNOWN_STATUSES:
        flags.append("status-unknown")
    scope: tuple[ScopeEntry, ...] = ()
    raw_scope = data.get("scope")
    scope_text = joined([_text(s) for s in raw_scope]) if isinstance(raw_scope, list) else _text(raw_scope)
    try:
        scope = parse_scope(raw_scope, root, typed=False) if scope_parser is None else scope_parser(raw_scope)
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
        opened_at = _opened_from_id(sess_id, tz)  # seed 002's claims carry only the ID's minute
        if opened_at is None:
            flags.append("no-opened-at")  # no expiry can be computed: stale (and blocking) at once
        else:
            flags.append("opened-from-id")
    closed_at = try_parse_timestamp(data.get("closed_at", data.get("closed")), tz)
    expires_at = try_parse_timestamp(data.get("expires_at"), tz)
    if opened_at is not None:
        if expires_at is None:
            expires_at = opened_at + claim_ttl(data.get("ttl"), default_ttl)
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


def _signal_type(value: Any) -> str:
    """The signal's type: upper-cased when that makes it a type word (``checkpoint`` in an old file), else
    the text as written (hostile text is shown inert, never rewritten: SPEC 15); INFO when there is none."""
    written = _text(value).strip()
    upper = written.upper()
    return upper if SIGNAL_TYPE_RE.match(upper) else written or "INFO"


def signal_from_mapping(data: Any, rel_path: str, tz: tzinfo) -> Signal | CorruptFile:
    """Read one signal file (SPEC 7)."""
    if not isinstance(data, Mapping):
        return CorruptFile(rel_path, 1, "top level is not a mapping")
    sig_id = _text(data.get("sig_id")).strip() or Path(rel_path).stem
    if not SIGNAL_ID_RE.match(sig_id):
        return CorruptFile(rel_path, 1, f"invalid signal ID {sig_id!r}")
    written = _text(data.get("state")).strip().lower()
    state = SignalState.of(written) or written or SignalState.PENDING
    return Signal(
        sig_id=sig_id,
        path=rel_path,
        data=data,
        sender=_text(data.get("from")),
        to=_text(data.get("to")),
        type=_signal_type(data.get("type")),
        scope=_text(data.get("scope")),
        payload=_text(data.get("payload")),
        state=state,
        created_at=try_parse_timestamp(data.get("created_at"), tz),
        delivered_at=try_parse_timestamp(data.get("delivered_at"), tz),
    )


def lock_from_mapping(data: Any, rel_path: str, tz: tzinfo) -> Lock | CorruptFile:
    """Read one lock file, current (`.yml`) or legacy (`.lock`) format.

    A lock whose holder or expiry does not read is a `CorruptFile` (SPEC 22: it holds its file until repaired),
    never a lock already expired: no holder, an expiry that does not parse, or no time to compute one from. A
    `ttl_min` above `MAX_LOCK_TTL_MIN` reads as that cap (an expiry computed from it stays a date).
    """
    if not isinstance(data, Mapping) or not data.get("file"):
        return CorruptFile(rel_path, 1, "not a lock (no file:)")
    holder = data.get("holder")
    if not isinstance(holder, str) or not holder.strip():
        return CorruptFile(rel_path, 1, f"no holder (holder: {str(holder)[:60]!r})")
    raw_claimed, raw_expires = data.get("claimed_at"), data.get("expires_at")
    claimed = try_parse_timestamp(raw_claimed, tz)
    expires = try_parse_timestamp(raw_expires, tz)
    if expires is None and raw_expires not in (None, ""):
        return CorruptFile(rel_path, 1, f"unreadable expiry {str(raw_expires)[:60]!r}")
    ttl = data.get("ttl_min")
    ttl_min = min(ttl, MAX_LOCK_TTL_MIN) if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl > 0 \
        else DEFAULT_LOCK_TTL_MIN
    if expires is None:
        if claimed is None:
            shown = f"unreadable claimed_at {str(raw_claimed)[:60]!r}" if raw_claimed not in (None, "") else \
                "no claimed_at"
            return CorruptFile(rel_path, 1, f"no expiry: no expires_at and {shown}")
        expires = claimed + timedelta(minutes=ttl_min)
    generation = data.get("generation")
    return Lock(
        file=_text(data.get("file")),
        path=rel_path,
        holder=holder,
        generation=generation if isinstance(generation, int) and not isinstance(generation, bool) else 1,
        claimed_at=claimed,
        expires_at=expires,
        ttl_min=ttl_min,
    )


def parse_claim_bytes(raw: bytes) -> Any:
    """A claim file's data: the safe load, plus the legacy section scope YAML read as a comment."""
    data = safe_load_bytes(raw)
    if isinstance(data, Mapping) and "expires_at" not in data and isinstance(data.get("scope"), str):
        recovered = recover_legacy_section(raw.decode("utf-8", errors="replace"), data["scope"])
        if recovered:
            data = {**data, "scope": recovered}
    return data
