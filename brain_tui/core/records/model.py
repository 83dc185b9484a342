"""The data the product reads: claims, signals, locks, corrupt rows, snapshots.

All frozen: a snapshot is an immutable picture of the brain at one "now". The raw mapping of each file is kept in
`data` so unknown fields survive and can be shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo
from functools import cached_property

from brain_tui.core.clock import DEFAULT_TTL
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.scope import ScopeEntry
from brain_tui.core.record import field, record
from brain_tui.core.records.statuses import BLOCKING_STATUSES as BLOCKING_STATUSES  # re-exported
from brain_tui.core.records.statuses import TERMINAL_STATUSES, SignalState
from brain_tui.core.records.statuses import Status as Status  # re-exported

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, ClassVar

SIGNAL_TYPES = (
    "READY_FOR_REVIEW",
    "REVIEWED",
    "BLOCKED_ON",
    "HANDOFF",
    "CHECKPOINT",
    "INFO",
    "HUMAN_GATE",
    "PAUSED",
    "CIRCUIT_BREAK",
    "UNBLOCK",
)


@record
class GateEvent:
    """One `gate_history` entry: ``{ts, event, by, message}`` (texts as written; `ts` parsed by readers)."""

    ts: Any
    event: str
    by: str
    message: str

    @classmethod
    def from_mapping(cls, entry: Mapping[str, Any]) -> GateEvent:
        """Read one entry leniently (missing keys are empty)."""
        return cls(entry.get("ts"), str(entry.get("event") or ""), str(entry.get("by") or ""),
                   str(entry.get("message") or ""))


@record
class ClaimResult:
    """The `result:` mapping a close writes (SPEC 6.5).

    Attributes:
        status: ``ok``/``partial``/``failed`` ("" when absent).
        files_modified: the files the close named (non-list values read as none).
        signal_id: the signal the close sent, if recorded.
        data: the whole mapping (tests, children, commit, notes…).
    """

    status: str
    files_modified: tuple[str, ...]
    signal_id: str | None
    data: Mapping[str, Any]

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> ClaimResult:
        """Read a `result:` mapping leniently."""
        files = raw.get("files_modified")
        signal = raw.get("signal_id")
        return cls(str(raw.get("status") or ""),
                   tuple(str(f) for f in files) if isinstance(files, list) else (),
                   str(signal) if signal else None, raw)

    @property
    def commit_text(self) -> str | None:
        """``commit`` as one line (a list joined with commas); None when absent."""
        commit = self.data.get("commit")
        if commit is None:
            return None
        if isinstance(commit, (list, tuple)):
            return ", ".join(str(item) for item in commit if item is not None)
        return str(commit)


@record
class Claim:
    """One claim file, read leniently (v1, v2/v3 and current formats).

    Attributes:
        sess_id: the session ID.
        path: file path relative to the brain root (``claims/<id>.yml``).
        data: the whole parsed mapping, unknown keys included.
        scope: parsed scope entries (empty when the scope did not parse).
        scope_text: the scope as written, for display.
        status: a `Status` member (equal to its string); an unknown legacy status is kept as the plain
            string written (it blocks, and is flagged ``status-unknown``).
        type: ``pilote``/``satellite``/``solo`` or a legacy value.
        instance: ``brain_name@machine`` or "" when unknown.
        story: the story angle, "" when absent.
        opened_at: when it was opened (None if unreadable).
        expires_at: effective expiry: the written one, else opened + default TTL,
            never later than opened + 8 h.
        closed_at: when it reached a terminal status, if written.
        parent: ``parent_satellite`` or None.
        satellite_type: ``code``/``test``/… or None.
        level: ``leaf`` or ``domain``.
        flags: display flags such as ``clock-skew``, ``scope-invalid``.
    """

    sess_id: str
    path: str
    data: Mapping[str, Any]
    scope: tuple[ScopeEntry, ...]
    scope_text: str
    status: Status | str
    type: str
    instance: str
    story: str
    opened_at: datetime | None
    expires_at: datetime | None
    closed_at: datetime | None
    parent: str | None
    satellite_type: str | None
    level: str
    flags: tuple[str, ...] = ()

    # -- typed views of the protocol fields (read from `data`, so legacy files need no migration) ---
    def _text_field(self, key: str) -> str:
        value = self.data.get(key)
        return "" if value is None else str(value)

    @property
    def gate_origin(self) -> str | None:
        """``request`` or ``close`` (a `gate:human` exit trigger) while waiting for a human; else None."""
        return self._text_field("gate_origin") or None

    @property
    def gate_message(self) -> str:
        """The message of the current human gate, as written ("" when none)."""
        return self._text_field("gate_message")

    @property
    def stale_reason(self) -> str:
        """Why the watchdog marked the claim stale ("" when it never did)."""
        return self._text_field("stale_reason")

    @property
    def stale_since(self) -> str | None:
        """When the watchdog marked the claim stale, as written, or None."""
        return self._text_field("stale_since") or None

    @property
    def paused_by(self) -> str | None:
        """The claim whose pause cascaded here (itself when paused directly), or None."""
        return self._text_field("paused_by") or None

    @property
    def agent_session(self) -> str | None:
        """The coding agent's session bound at open (SPEC 20.1), when written as text; else None."""
        value = self.data.get("agent_session")
        return value if isinstance(value, str) else None

    @property
    def exit_triggers(self) -> dict[str, str]:
        """The exit triggers as written (``on_done``, ``on_partial``, ``on_fail``: only those set)."""
        return {key: str(self.data[key]) for key in ("on_done", "on_partial", "on_fail") if self.data.get(key)}

    @property
    def theme_branch(self) -> str:
        """The git branch the claim works on ("" when it names none)."""
        return self._text_field("theme_branch").strip()

    @cached_property
    def result(self) -> ClaimResult | None:
        """The `result:` mapping written at close, typed; None when absent or not a mapping."""
        raw = self.data.get("result")
        return ClaimResult.from_mapping(raw) if isinstance(raw, Mapping) else None

    @cached_property
    def gate_history(self) -> tuple[GateEvent, ...]:
        """The `gate_history` entries that are mappings, oldest first (others are skipped)."""
        raw = self.data.get("gate_history")
        if not isinstance(raw, list):
            return ()
        return tuple(GateEvent.from_mapping(entry) for entry in raw if isinstance(entry, Mapping))

    @property
    def is_blocking(self) -> bool:
        """True when the claim blocks overlapping claims: every non-terminal status, unknown ones included.

        open/waiting_human/paused/stale block (SPEC 5.3); a status the product does not
        know blocks too (conservative, flagged ``status-unknown``). Search claims never block.
        """
        return self.status not in TERMINAL_STATUSES and self.satellite_type != "search"

    @property
    def is_terminal(self) -> bool:
        """True for closed, failed and released claims."""
        return self.status in TERMINAL_STATUSES

    @property
    def slug(self) -> str:
        """The part of the ID after ``sess-YYYYMMDD-HHMM-`` (what a human types to confirm)."""
        parts = self.sess_id.split("-", 3)
        return parts[3] if len(parts) == 4 else self.sess_id


#: The tiers of a close (SPEC 6.5), by number.
TIER_NAMES = {1: "atomic", 2: "validated", 3: "orchestrated"}


def tier_of(claim: Claim) -> int:
    """The claim's tier (SPEC 6.5): 1 Atomic, 2 Validated, 3 Orchestrated; what a close must show follows it
    (core/rules/tiers.py)."""
    if claim.level in ("domain", "pilote"):
        return 3
    if claim.level == "solo":
        return 1
    if claim.satellite_type in ("code", "test"):
        return 2
    return 1


@record
class Signal:
    """One signal file (SPEC 7)."""

    sig_id: str
    path: str
    data: Mapping[str, Any]
    sender: str
    to: str
    type: str
    scope: str
    payload: str
    state: SignalState | str
    created_at: datetime | None
    delivered_at: datetime | None


@record
class Lock:
    """One file mutex (SPEC 9)."""

    file: str
    path: str
    holder: str
    generation: int
    claimed_at: datetime | None
    expires_at: datetime | None
    ttl_min: int


@record
class CorruptFile(JsonShaped):
    """A file that could not be read: shown as one row, never hides the others.

    Attributes:
        path: the file, relative to the brain.
        line: the line of the fault (0 when not a line's).
        reason: why it does not read.
        holds: for a claim file, what it may hold (SPEC 22: it fails closed and blocks as an open claim
            would; ``core.unreadable`` says what): the scopes read from it, ``*`` when none can be;
            empty for every other file.
    """

    path: str
    line: int
    reason: str
    holds: tuple[ScopeEntry, ...] = ()

    _json_omit: ClassVar[frozenset[str]] = frozenset({"holds"})  # SPEC 19: ``{path, line, reason}``


@record
class BreathRecord:
    """One sprint's breath record, read leniently.

    Attributes:
        sprint: the sprint ID (the file's name).
        path: ``breath/<sprint>.yml``.
        session: the session that ran the sprint, or None.
        opened_at / closed_at: parsed times (None when absent or unreadable).
        inhale: agent → files loaded for it.
        referenced: files the sprint referenced.
        released: files released at expire.
        kept: file → reason it was kept.
    """

    sprint: str
    path: str = ""
    session: str | None = None
    opened_at: datetime | None = None
    closed_at: datetime | None = None
    inhale: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    referenced: tuple[str, ...] = ()
    released: tuple[str, ...] = ()
    kept: Mapping[str, str] = field(default_factory=dict)

    @property
    def loaded(self) -> tuple[str, ...]:
        """Distinct files inhaled by all agents, in first-seen order."""
        return tuple(dict.fromkeys(f for files in self.inhale.values() for f in files))

    @property
    def is_closed(self) -> bool:
        """True once the sprint was expired (closed_at set)."""
        return self.closed_at is not None


@record
class BrainSnapshot:
    """An immutable picture of the brain at one "now".

    Attributes:
        root: absolute path of the brain.
        now: the clock's answer when the snapshot was taken.
        tz: the brain's timezone (for legacy naive times and display).
        claims: every claim, sorted by opening time then ID.
        signals: every signal, sorted by creation time then ID.
        locks: every lock file.
        corrupt: files that did not load.
        config: the parsed brain-compose.yml (empty mapping when absent).
        default_ttl: the brain's `ttl_default`: the TTL of a claim whose file has no `ttl:`.
        breath: the context-broker's sprint records (``breath/*.yml``), ordered by opening time then ID.
        breath_corrupt: breath files that did not load (kept apart: they block nothing).
        older_children: per claim, ``(finished, failed)`` counts of its terminal children this read leaves
            out (ended before its window: the cockpit's read, `Audit.recent`); empty for other reads.
    """

    root: str
    now: datetime
    tz: tzinfo
    claims: tuple[Claim, ...]
    signals: tuple[Signal, ...]
    locks: tuple[Lock, ...] = ()
    corrupt: tuple[CorruptFile, ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)
    default_ttl: timedelta = DEFAULT_TTL
    breath: tuple[BreathRecord, ...] = ()
    breath_corrupt: tuple[CorruptFile, ...] = ()
    older_children: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    @cached_property
    def _by_id(self) -> dict[str, Claim]:
        """Claims by ID (the first one when IDs repeat), built once per snapshot: lookups are O(1)."""
        by_id: dict[str, Claim] = {}
        for claim in self.claims:
            by_id.setdefault(claim.sess_id, claim)
        return by_id

    @cached_property
    def _by_parent(self) -> dict[str, list[Claim]]:
        """Claims by ``parent_satellite``, in snapshot order, built once per snapshot."""
        by_parent: dict[str, list[Claim]] = {}
        for claim in self.claims:
            if claim.parent:
                by_parent.setdefault(claim.parent, []).append(claim)
        return by_parent

    @cached_property
    def unreadable_claims(self) -> tuple[CorruptFile, ...]:
        """The corrupt claim files that may hold something (they block as open claims would, SPEC 22)."""
        return tuple(bad for bad in self.corrupt if bad.holds)

    def claim(self, sess_id: str) -> Claim | None:
        """The claim with this ID, or None."""
        return self._by_id.get(sess_id)

    def children(self, sess_id: str) -> tuple[Claim, ...]:
        """Claims whose ``parent_satellite`` is exactly `sess_id`."""
        return tuple(self._by_parent.get(sess_id, ()))

    def descendants(self, sess_id: str) -> tuple[Claim, ...]:
        """Every claim below `sess_id` in the satellite tree (exact parent links)."""
        by_parent = self._by_parent
        found: list[Claim] = []
        seen = {sess_id}
        stack = [sess_id]
        while stack:
            for child in by_parent.get(stack.pop(), []):
                if child.sess_id not in seen:
                    seen.add(child.sess_id)
                    found.append(child)
                    stack.append(child.sess_id)
        return tuple(found)

    def ancestors(self, sess_id: str) -> tuple[Claim, ...]:
        """The parent chain of `sess_id`, nearest first (cycles cut)."""
        found: list[Claim] = []
        seen = {sess_id}
        current = self.claim(sess_id)
        while current is not None and current.parent and current.parent not in seen:
            seen.add(current.parent)
            parent = self.claim(current.parent)
            if parent is None:
                break
            found.append(parent)
            current = parent
        return tuple(found)

    def root_of(self, sess_id: str) -> Claim | None:
        """The root (pilot) of the tree holding `sess_id`."""
        chain = self.ancestors(sess_id)
        return chain[-1] if chain else self.claim(sess_id)

    def resolve_destination(self, claim: Claim, dest: str) -> str:
        """Where a signal from `claim` to `dest` goes: `pilote`/`pilot` → the root of its tree,
        `parent` → its parent (itself for a root), anything else as written."""
        lowered = dest.lower()
        if lowered in ("pilote", "pilot"):
            root = self.root_of(claim.sess_id)
            return root.sess_id if root else claim.sess_id
        if lowered == "parent":
            return claim.parent or claim.sess_id
        return dest
