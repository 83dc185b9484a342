"""The BSI rules: open, close (tiers), renew, release, watchdog, gates, exit triggers (SPEC 5.3, 6).

Every function here decides on a snapshot and stages its writes in a
`ChangeSet`; none writes a file or reads the clock. `Brain` runs them under the
brain lock and applies the result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import PurePosixPath
from typing import Any

from ruamel.yaml.comments import CommentedMap

from brain_tui.core import skew
from brain_tui.core.agents import valid_agent_session
from brain_tui.core.changes import ChangeSet, random_slug, yaml_safe
from brain_tui.core.clock import MAX_TTL, SKEW_TOLERANCE, format_duration
from brain_tui.core.errors import (
    ConflictError,
    InvalidData,
    NotFound,
    TierRefused,
    TransitionRefused,
)
from brain_tui.core.model import BrainSnapshot, Claim
from brain_tui.core.scope import ScopeEntry, ScopeIndex, format_scope
from brain_tui.core.store import valid_session_id
from brain_tui.core.yamlio import dump_round_trip

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
CLAIM_TYPES = ("pilote", "satellite", "solo")
SATELLITE_TYPES = ("code", "brain-write", "test", "deploy", "search", "domain")
TIER_NAMES = {1: "atomic", 2: "validated", 3: "orchestrated"}
RESULT_STATUSES = ("ok", "partial", "failed")
STALE_REASON = "TTL expired without close"
MAX_AGE_REASON = "8 h since opening without close"


#: Statuses a live (non-terminal, non-stale) claim has in the table of SPEC 6.3.
LIVE_STATUSES = ("open", "waiting_human", "paused")
#: Longest text kept per field of a claim (characters): the file must stay under 64 KiB (SPEC 13) for life.
TEXT_LIMITS = {"story": 8000, "on_done": 1000, "on_partial": 1000, "on_fail": 1000, "theme_branch": 200,
               "instance": 200, "message": 4000, "notes": 4000}
MAX_SCOPE_ENTRIES = 200
#: A new claim file may use at most this much: gate history and the result need the rest of the 64 KiB.
MAX_NEW_CLAIM_BYTES = 32 * 1024
NO_OPENING_REASON = "no readable opening time"


# ---------------------------------------------------------------------------------------------
# Effective status (SPEC 6.4: nothing is non-stale past its expiry or 8 h)
# ---------------------------------------------------------------------------------------------
def expiry_reason(claim: Claim, now: datetime) -> str | None:
    """Why a non-terminal, non-stale claim is expired at `now` (TTL, 8 h, or no opening time), or None."""
    if claim.is_terminal or claim.status == "stale":
        return None
    if claim.opened_at is None:
        return NO_OPENING_REASON
    now = now - SKEW_TOLERANCE  # the skew limit of SPEC 3: what the watchdog may mark is what is expired
    if now >= claim.opened_at + MAX_TTL:
        return MAX_AGE_REASON
    if claim.expires_at is not None and now >= claim.expires_at:
        return STALE_REASON
    return None


def effective_status(claim: Claim, now: datetime) -> str:
    """The status every decision uses: a live claim past its expiry (or 8 h, or with no opening time) is stale.

    The watchdog only writes down what this already says.
    """
    if expiry_reason(claim, now) is not None:
        return "stale"
    return claim.status


def stale_origin(claim: Claim, now: datetime) -> str | None:
    """For a claim that is (effectively) stale, what it was stale from: ``open``, ``waiting_human``, ``paused``.

    A pending gate or pause is never forgotten: a claim still carrying ``gate_origin``
    (a gate not yet decided) or ``paused_by`` counts as stale from that, whatever
    ``stale_from`` says; an unknown status counts as itself. None when not stale.
    """
    if effective_status(claim, now) != "stale":
        return None
    data = claim.data
    if claim.status != "stale":
        return claim.status
    if data.get("paused_by"):
        return "paused"
    if data.get("gate_origin"):
        return "waiting_human"
    origin = str(data.get("stale_from") or "open").strip()
    return origin if origin else "open"


def time_left(claim: Claim, now: datetime) -> timedelta | None:
    """How long a live claim has before it goes stale (negative once past); None when terminal or unknown.

    The cockpit shows it on every gate and paused row (issue 13): a gate waits
    inside its claim's TTL, within opened_at + 8 h.
    """
    if claim.is_terminal or claim.expires_at is None:
        return None
    deadline = claim.expires_at
    if claim.opened_at is not None:
        deadline = min(deadline, claim.opened_at + MAX_TTL)
    return deadline - now


def delegating_chain(snapshot: BrainSnapshot, parent: str | None) -> list[str]:
    """`parent` and its ancestors, nearest first, as long as each is effectively ``open`` (SPEC 5.3).

    Delegation goes only through an open ancestor: the chain stops at the first one
    that is stale (or expired), waiting, paused, terminal or unknown.
    """
    chain: list[str] = []
    current = snapshot.claim(parent) if parent else None
    seen: set[str] = set()
    while current is not None and current.sess_id not in seen:
        if effective_status(current, snapshot.now) != "open":
            break
        seen.add(current.sess_id)
        chain.append(current.sess_id)
        current = snapshot.claim(current.parent) if current.parent else None
    return chain


def paused_ancestor(snapshot: BrainSnapshot, claim: Claim) -> Claim | None:
    """The nearest ancestor that is paused (or stale from paused), or None: its tree is on hold."""
    for ancestor in snapshot.ancestors(claim.sess_id):
        if effective_status(ancestor, snapshot.now) == "paused" or stale_origin(ancestor, snapshot.now) == "paused":
            return ancestor
    return None


def check_text(name: str, value: str | None) -> None:
    """Refuse a text field longer than its limit (exit 65), so every claim file stays writable.

    Raises:
        InvalidData: the text is longer than `TEXT_LIMITS[name]` characters.
    """
    limit = TEXT_LIMITS[name]
    if value is not None and len(value) > limit:
        raise InvalidData(f"invalid {name.replace('_', '-')}: {len(value)} characters, at most {limit}")


# ---------------------------------------------------------------------------------------------
# Conflicts
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Conflict:
    """One blocking claim a new scope would meet."""

    sess_id: str
    instance: str
    scope: str
    status: str
    overlap: str

    def as_dict(self) -> dict[str, str]:
        """JSON shape of SPEC 19."""
        return {
            "sess_id": self.sess_id,
            "instance": self.instance,
            "scope": self.scope,
            "status": self.status,
            "overlap": self.overlap,
        }

    def describe(self) -> str:
        """One line for stderr."""
        holder = self.instance or "unknown instance"
        return f"{self.sess_id} ({holder}) holds {self.scope} [{self.status}, {self.overlap}]"


def blocking_index(snapshot: BrainSnapshot) -> ScopeIndex:
    """A ScopeIndex over every blocking claim of the snapshot (search claims never block)."""
    index = ScopeIndex()
    for claim in snapshot.claims:
        if claim.is_blocking and claim.scope:
            index.add(claim.sess_id, claim.scope)
    return index


def find_conflicts(
    snapshot: BrainSnapshot,
    entries: Sequence[ScopeEntry],
    *,
    parent: str | None = None,
    satellite_type: str | None = None,
    exclude: str | None = None,
    index: ScopeIndex | None = None,
) -> list[Conflict]:
    """The blocking claims a claim on `entries` would conflict with (SPEC 5.3).

    Args:
        entries: the scope of the would-be claim.
        parent: its parent; its ancestor chain is exempt (delegation) up to the first
            ancestor that is not effectively open (`delegating_chain`).
        satellite_type: ``search`` never conflicts.
        exclude: a claim ID to ignore (the claim itself, when re-checking).
        index: a prebuilt `blocking_index`; by default the snapshot's own, built once per snapshot.
    """
    if satellite_type == "search":
        return []
    if index is None:  # not `or`: an empty index is falsy
        # Memoised on the (immutable) snapshot like a cached_property, so repeated checks never rebuild it.
        index = snapshot.__dict__.get("_blocking_index")
        if index is None:
            index = snapshot.__dict__["_blocking_index"] = blocking_index(snapshot)
    exempt: set[str] = set()
    if exclude:
        exempt.add(exclude)
        exempt.update(c.sess_id for c in snapshot.descendants(exclude))
    if parent:
        exempt.update(delegating_chain(snapshot, parent))
    conflicts = []
    for owner, overlap in index.conflicts_with(entries):
        if owner in exempt:
            continue
        claim = snapshot.claim(owner)
        if claim is None:
            continue
        conflicts.append(Conflict(owner, claim.instance, claim.scope_text or "—", claim.status, overlap))
    return conflicts


# ---------------------------------------------------------------------------------------------
# Open / renew
# ---------------------------------------------------------------------------------------------
@dataclass
class OpenRequest:
    """What `bsi claim open` asks for."""

    scope: tuple[ScopeEntry, ...]
    ttl: timedelta
    instance: str
    type: str | None = None
    satellite_type: str | None = None
    level: str | None = None
    parent: str | None = None
    story: str = ""
    slug: str | None = None
    on_done: str | None = None
    on_partial: str | None = None
    on_fail: str | None = None
    theme_branch: str | None = None
    #: the agent session that opened it (SPEC 20.1), written as `agent_session:`.
    agent_session: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _new_session_id(snapshot: BrainSnapshot, slug: str | None) -> str:
    local = snapshot.now.astimezone(snapshot.tz)
    prefix = f"sess-{local:%Y%m%d-%H%M}-"
    # IDs in use, and file names in use (a corrupt claim file or `init.yml` must never be overwritten).
    taken = {c.sess_id for c in snapshot.claims}
    taken |= {PurePosixPath(c.path).stem for c in (*snapshot.claims, *snapshot.corrupt)}
    candidate = prefix + (slug or random_slug())
    while candidate in taken:
        candidate = prefix + random_slug()
    return candidate


def validate_open(snapshot: BrainSnapshot, req: OpenRequest) -> None:
    """Check the request's own fields (exit 65 on bad data, 66 on a missing parent)."""
    if req.slug is not None and not SLUG_RE.match(req.slug):
        raise InvalidData(f"invalid slug {req.slug!r}: use lowercase letters, digits and '-'")
    if req.type is not None and req.type not in CLAIM_TYPES:
        raise InvalidData(f"invalid type {req.type!r}: one of {', '.join(CLAIM_TYPES)}")
    if req.satellite_type is not None and req.satellite_type not in SATELLITE_TYPES:
        raise InvalidData(f"invalid satellite type {req.satellite_type!r}: one of {', '.join(SATELLITE_TYPES)}")
    if req.level is not None and req.level not in ("leaf", "domain"):
        raise InvalidData(f"invalid level {req.level!r}: leaf or domain")
    if req.parent is not None:
        if not valid_session_id(req.parent):
            raise InvalidData(f"invalid parent ID {req.parent!r}")
        parent = snapshot.claim(req.parent)
        if parent is None:
            raise NotFound(f"parent claim {req.parent} not found")
        if parent.is_terminal:
            raise TransitionRefused(f"parent claim {req.parent} is {parent.status}: open no satellite under it")
    check_text("story", req.story)
    for name in ("on_done", "on_partial", "on_fail", "theme_branch", "instance"):
        check_text(name, getattr(req, name))
    if len(req.scope) > MAX_SCOPE_ENTRIES:
        raise InvalidData(f"invalid scope: {len(req.scope)} entries, at most {MAX_SCOPE_ENTRIES} (claim a folder)")
    if req.agent_session is not None and not valid_agent_session(req.agent_session):
        raise InvalidData(f"invalid agent session {req.agent_session[:80]!r}: letters, digits, '.', '_', ':', '-'")
    for name in ("on_done", "on_partial", "on_fail"):
        value = getattr(req, name)
        if value is not None and parse_trigger(value) is None:
            raise InvalidData(
                f"invalid {name.replace('_', '-')} {value!r}: use 'signal → TYPE DEST', "
                "'notify → DEST', 'gate:human → \"message\"' or 'trigger → type:T scope:S'"
            )


def validate_check(snapshot: BrainSnapshot, parent: str | None, satellite_type: str | None) -> None:
    """Check `check-scope`'s options as `claim open` checks them (65 bad data, 66 unknown parent)."""
    if satellite_type is not None and satellite_type not in SATELLITE_TYPES:
        raise InvalidData(f"invalid satellite type {satellite_type!r}: one of {', '.join(SATELLITE_TYPES)}")
    if parent is not None:
        if not valid_session_id(parent):
            raise InvalidData(f"invalid parent ID {parent!r}")
        if snapshot.claim(parent) is None:
            raise NotFound(f"parent claim {parent} not found")


def open_claim(cs: ChangeSet, req: OpenRequest) -> str:
    """Open a claim: conflict check first, then the new file (SPEC 6.3 row 1).

    Returns:
        The new session ID.

    Raises:
        ConflictError: the scope intersects blocking claims (payload: conflicts).
    """
    snapshot = cs.snapshot
    validate_open(snapshot, req)
    conflicts = find_conflicts(snapshot, req.scope, parent=req.parent, satellite_type=req.satellite_type)
    if conflicts:
        lines = "; ".join(c.describe() for c in conflicts)
        raise ConflictError(
            f"claim refused: {format_scope_text(req.scope)} conflicts with {lines}",
            {"conflicts": [c.as_dict() for c in conflicts]},
        )
    sess_id = _new_session_id(snapshot, req.slug)
    ctype = req.type or ("satellite" if req.parent else "solo")
    doc = CommentedMap()
    doc["sess_id"] = sess_id
    doc["type"] = ctype
    doc["instance"] = req.instance
    doc["scope"] = format_scope(req.scope)
    doc["story_angle"] = req.story
    doc["status"] = "open"
    doc["opened_at"] = cs.ts()
    doc["ttl"] = format_duration(req.ttl)
    doc["expires_at"] = cs.ts(snapshot.now + min(req.ttl, MAX_TTL))
    if req.satellite_type:
        doc["satellite_type"] = req.satellite_type
    if req.level or ctype == "satellite":
        doc["satellite_level"] = req.level or ("domain" if req.satellite_type == "domain" else "leaf")
    if req.parent:
        doc["parent_satellite"] = req.parent
    for key in ("on_done", "on_partial", "on_fail", "theme_branch", "agent_session"):
        value = getattr(req, key)
        if value:
            doc[key] = value
    for key, value in req.extra.items():
        doc[key] = value
    size = len(dump_round_trip(yaml_safe(doc)).encode("utf-8"))
    if size > MAX_NEW_CLAIM_BYTES:
        raise InvalidData(f"invalid claim: {size // 1024} KiB written, at most {MAX_NEW_CLAIM_BYTES // 1024} KiB "
                          "(shorten the scope list or the texts)")
    cs.new_claim(f"claims/{sess_id}.yml", doc)
    kind = "satellite" if ctype == "satellite" else "claim"
    cs.message = f"bsi: open {kind} {sess_id}"
    return sess_id


def format_scope_text(entries: Sequence[ScopeEntry]) -> str:
    """Scope entries as one display string."""
    return " ".join(str(e) for e in entries)


def require_claim(snapshot: BrainSnapshot, sess_id: str) -> Claim:
    """The claim with this ID.

    Raises:
        InvalidData: the ID is not a session ID (65).
        NotFound: no such claim (66); or the file is corrupt (65).
    """
    if not valid_session_id(sess_id):
        raise InvalidData(f"invalid session ID {sess_id!r}: expected sess-…")
    claim = snapshot.claim(sess_id)
    if claim is None:
        for bad in snapshot.corrupt:
            if bad.path in (f"claims/{sess_id}.yml", f"claims/{sess_id}.yaml"):
                raise InvalidData(f"claim {sess_id} is corrupt: {bad.path} line {bad.line}: {bad.reason}")
        raise NotFound(f"claim {sess_id} not found")
    return claim


def _refuse(claim: Claim, action: str, allowed: Sequence[str], status: str | None = None) -> TransitionRefused:
    shown = status or claim.status
    if shown != claim.status:
        shown = f"{shown} (expired while {claim.status})"
    return TransitionRefused(
        f"cannot {action} {claim.sess_id}: it is {shown} (allowed from {', '.join(allowed)})"
    )


#: Renew is allowed while a claim is live: a gate or a pause keeps counting its TTL (issue 13).
RENEWABLE = ("open", "waiting_human", "paused")


def renew_claim(cs: ChangeSet, sess_id: str, ttl: timedelta | None) -> str:
    """Extend a live claim's expiry, never past opened_at + 8 h (SPEC 6.3 last row).

    Allowed from ``open``, ``waiting_human`` and ``paused`` (by the owner or a
    human: a gate waiting for a human must not die unseen); never once stale.

    Returns:
        The new expiry, formatted.
    """
    claim = require_claim(cs.snapshot, sess_id)
    now = cs.snapshot.now
    revived = skew.revive(cs, claim, sess_id)  # a stale mark from a clock ahead
    current = revived or effective_status(claim, now)
    if current not in RENEWABLE:
        raise _refuse(claim, "renew", RENEWABLE, current)
    duration = ttl
    if duration is None:
        raw = claim.data.get("ttl")
        from brain_tui.core.clock import parse_duration  # local: rarely used path

        try:
            duration = parse_duration(str(raw)) if raw else timedelta(hours=2)
        except InvalidData:
            duration = timedelta(hours=2)
    new_expiry = now + duration
    if claim.opened_at is not None:
        new_expiry = min(new_expiry, claim.opened_at + MAX_TTL)
    if claim.expires_at is not None and new_expiry < claim.expires_at:
        new_expiry = claim.expires_at
    formatted = cs.ts(new_expiry)
    cs.update_claim(sess_id, {"expires_at": formatted})
    cs.message = f"bsi: renew claim {sess_id}"
    return formatted


# ---------------------------------------------------------------------------------------------
# Watchdog / release
# ---------------------------------------------------------------------------------------------
def expired(claim: Claim, snapshot: BrainSnapshot) -> str | None:
    """Why a non-terminal claim is now stale, or None (see `expiry_reason`)."""
    return expiry_reason(claim, snapshot.now)


@dataclass(frozen=True)
class WatchdogReport:
    """What one watchdog run found and did.

    Attributes:
        active: claims still open, waiting or paused after the run.
        stale: claims stale after the run.
        marked: claims this run marked stale.
        archived: signals this run archived.
        unwritable: expired claims whose file could not take the change (left as they are;
            stale for every decision all the same).
    """

    active: int
    stale: int
    marked: tuple[str, ...]
    archived: tuple[str, ...]
    unwritable: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: ``{"active": N, "stale": M, "marked": [ids], "archived": [signal ids]}``,
        plus ``"unwritable": [ids]`` when there are any."""
        out: dict[str, Any] = {"active": self.active, "stale": self.stale, "marked": list(self.marked),
                               "archived": list(self.archived)}
        if self.unwritable:
            out["unwritable"] = list(self.unwritable)
        return out

    def summary(self) -> str:
        """The one-line report of `bsi watchdog` (the words the original scripts print)."""
        return f"{self.active} claims actifs, {self.stale} stale détectés"


def watchdog(cs: ChangeSet) -> WatchdogReport:
    """Mark every expired claim stale (never releases anything); archive signals delivered 24 h ago (SPEC 7).

    A claim whose file cannot take the change (it would pass 64 KiB, or does not
    parse for editing) is left as it is and reported: it is stale for every
    decision anyway (`effective_status`), and it never stops the others.

    Returns:
        The counts after the run, the claims marked, the signals archived and the claims
        that could not be marked (`unwritable`).
    """
    from brain_tui.core.signals import archive_signals  # signals imports this module

    marked: list[str] = []
    unwritable: list[str] = []
    for claim in cs.snapshot.claims:
        reason = expired(claim, cs.snapshot)
        if reason is None or (reason != NO_OPENING_REASON and not skew.past_deadline(claim, cs.snapshot.now)):
            continue  # a clock ahead by less than the skew limit never marks a live claim
        fields = {"status": "stale", "stale_since": cs.ts(), "stale_from": claim.status, "stale_reason": reason}
        trial = ChangeSet(cs.snapshot)
        try:
            trial.update_claim(claim.sess_id, fields)
            trial.add_history(claim.sess_id, "STALE", "watchdog", reason)
            trial.render()
        except InvalidData:
            unwritable.append(claim.sess_id)
            continue
        cs.update_claim(claim.sess_id, fields)
        _history(cs, claim.sess_id, "STALE", "watchdog", reason)
        marked.append(claim.sess_id)
    active = sum(1 for c in cs.snapshot.claims if not c.is_terminal and c.status != "stale") - len(marked)
    stale = sum(1 for c in cs.snapshot.claims if c.status == "stale") + len(marked)
    archived = archive_signals(cs)
    if marked:
        cs.message = f"bsi: mark stale {' '.join(marked)}"
    elif not archived:
        cs.message = "bsi: watchdog"
    return WatchdogReport(active, stale, tuple(marked), tuple(archived), tuple(unwritable))


def release_claim(cs: ChangeSet, sess_id: str, reason: str, by: str) -> None:
    """A human releases a stale claim (reason required; never automatic)."""
    if not reason.strip():  # before the lookup: a missing reason is bad input whatever the ID
        raise InvalidData("release needs a reason: --reason TEXT")
    check_text("message", reason)
    claim = require_claim(cs.snapshot, sess_id)
    current = effective_status(claim, cs.snapshot.now)
    if current != "stale":
        raise _refuse(claim, "release", ["stale"], current)
    cs.update_claim(sess_id, {"status": "released", "closed_at": cs.ts(), "release_reason": reason})
    _history(cs, sess_id, "RELEASED", by, reason)
    cs.message = f"bsi: release {sess_id}"


# ---------------------------------------------------------------------------------------------
# Exit triggers (SPEC 6.6)
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Trigger:
    """A parsed exit trigger."""

    kind: str  # signal | notify | gate | trigger
    sig_type: str = ""
    dest: str = ""
    message: str = ""
    task_type: str = ""
    task_scope: str = ""


_TRIGGER_RE = re.compile(r"^\s*(signal|notify|gate\s*:\s*human|trigger)\s*(?:→|->)\s*(.*)$", re.IGNORECASE)


def _strip_comment(text: str) -> str:
    quote: str | None = None
    escaped = False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].strip()
    return text.strip()


def parse_trigger(text: str) -> Trigger | None:
    """Parse an exit trigger in any spelling of the fixtures (`→`/`->`, spacing, `# comment`)."""
    match = _TRIGGER_RE.match(str(text))
    if not match:
        return None
    kind = re.sub(r"\s+", "", match.group(1).lower())
    rest = _strip_comment(match.group(2))
    if kind == "signal":
        parts = rest.split()
        if len(parts) != 2:
            return None
        return Trigger("signal", sig_type=parts[0].upper(), dest=parts[1])
    if kind == "notify":
        parts = rest.split(None, 1)
        if not parts:
            return None
        return Trigger("notify", dest=parts[0], message=parts[1] if len(parts) > 1 else "")
    if kind == "gate:human":
        message = rest
        if len(message) >= 2 and message[0] == message[-1] == '"':
            message = re.sub(r'\\(["\\])', r"\1", message[1:-1])
        elif len(message) >= 2 and message[0] == message[-1] == "'":
            message = message[1:-1].replace("''", "'")
        return Trigger("gate", message=message)
    fields = dict(re.findall(r"(type|scope)\s*:\s*(\S+)", rest))
    if "type" not in fields or "scope" not in fields:
        return None
    return Trigger("trigger", task_type=fields["type"], task_scope=fields["scope"])


def resolve_destination(snapshot: BrainSnapshot, claim: Claim, dest: str) -> str:
    """`pilote`/`pilot` → root of the claim's tree; `parent` → its parent; anything else as is."""
    lowered = dest.lower()
    if lowered in ("pilote", "pilot"):
        root = snapshot.root_of(claim.sess_id)
        return root.sess_id if root else claim.sess_id
    if lowered == "parent":
        return claim.parent or claim.sess_id
    return dest


# ---------------------------------------------------------------------------------------------
# Close (SPEC 6.5)
# ---------------------------------------------------------------------------------------------
def tier_of(claim: Claim) -> int:
    """1 Atomic, 2 Validated, 3 Orchestrated (SPEC 6.5)."""
    if claim.level in ("domain", "pilote"):
        return 3
    if claim.level == "solo":
        return 1
    if claim.satellite_type in ("code", "test"):
        return 2
    return 1


@dataclass
class CloseRequest:
    """What `bsi claim close` gives."""

    status: str | None = None
    files: list[str] = field(default_factory=list)
    commit: str | None = None
    tests_total: int | None = None
    tests_passed: int | None = None
    tests_failed: int | None = None
    notes: str | None = None
    #: A refused Tier 2 close sends BLOCKED_ON to the parent (SPEC 6.5); False when a human asked for the
    #: close in the cockpit (the refusal is shown there: a human's own action never notifies that human).
    notify_parent: bool = True


@dataclass
class CloseOutcome:
    """What a close did: closed, or turned into a gate by a `gate:human` trigger."""

    sess_id: str
    status: str
    tier: int
    result: dict[str, Any]
    signals: list[str]


def _tests_given(req: CloseRequest) -> bool:
    return any(v is not None for v in (req.tests_total, req.tests_passed, req.tests_failed))


def close_claim(cs: ChangeSet, sess_id: str, req: CloseRequest) -> CloseOutcome:
    """Close a claim under its tier's rules, then run its exit trigger.

    Raises:
        TransitionRefused: not open or stale (12).
        TierRefused: the tier requirement is not met (11); a red Tier 2 close
            still stages the BLOCKED_ON signal to the parent.
    """
    snapshot = cs.snapshot
    claim = require_claim(snapshot, sess_id)
    _check_closable(snapshot, claim)
    check_text("notes", req.notes)
    if req.status is not None and req.status not in RESULT_STATUSES:
        raise InvalidData(f"invalid status {req.status!r}: ok, partial or failed")
    tier = tier_of(claim)
    result: dict[str, Any] = {}
    files = list(dict.fromkeys(req.files))
    if tier == 1:
        if req.status is None:
            raise TierRefused(
                f"close refused: {sess_id} is Tier 1 (atomic) and needs a result: --status ok|partial|failed"
            )
        result["status"] = req.status
    elif tier == 2:
        if not _tests_given(req):
            raise TierRefused(
                f"close refused: {sess_id} is Tier 2 (validated) and needs green tests: "
                "--tests-total N --tests-passed N --tests-failed 0"
            )
        total, passed, failed = req.tests_total or 0, req.tests_passed or 0, req.tests_failed or 0
        if passed + failed > total:
            raise InvalidData(f"invalid test counts: {passed} passed + {failed} failed is more than {total} in total")
        if total == 0:
            raise TierRefused(
                f"close refused: {sess_id} is Tier 2 (validated) and no test ran: "
                "--tests-total N --tests-passed N --tests-failed 0 with N > 0"
            )
        if not (failed == 0 and passed == total):
            message = f"tests red on close: {passed}/{total} passed, {failed} failed"
            if claim.parent and req.notify_parent:
                cs.add_signal(sess_id, claim.parent, "BLOCKED_ON", message, claim.scope_text)
            raise TierRefused(f"close refused: {sess_id} is Tier 2 (validated): {message}; the claim stays open")
        result["status"] = req.status or "ok"
        result["tests"] = {"total": total, "passed": passed, "failed": failed}
    else:
        descendants = snapshot.descendants(sess_id)
        unfinished = [c for c in descendants if not c.is_terminal]
        if unfinished:
            names = ", ".join(f"{c.sess_id} ({c.status})" for c in unfinished)
            raise TierRefused(
                f"close refused: {sess_id} is Tier 3 (orchestrated) and has unfinished satellites: {names}"
            )
        children: list[str] = []
        detail = []
        any_short = False
        for child in snapshot.children(sess_id):
            child_result = child.data.get("result") if isinstance(child.data.get("result"), dict) else {}
            child_status = str(child_result.get("status") or child.data.get("result_status") or child.status)
            if child.status in ("failed", "released") or child_status in ("failed", "partial"):
                any_short = True
            children.append(child.sess_id)
            detail.append({"sess_id": child.sess_id, "status": child.status, "result": child_status})
        for child in descendants:
            child_result = child.data.get("result")
            if isinstance(child_result, dict) and isinstance(child_result.get("files_modified"), list):
                files.extend(str(f) for f in child_result["files_modified"])
        files = list(dict.fromkeys(files))
        result["status"] = req.status or ("partial" if any_short else "ok")
        result["children"] = children  # the seeds' contract (BSI-v3-2): a list of session IDs
        result["children_detail"] = detail
    if files:
        result["files_modified"] = files
    if tier == 2 and "files_modified" not in result:
        result["files_modified"] = []
    if req.commit:
        result["commit"] = req.commit
    if req.notes:
        result["notes"] = req.notes
    # exit trigger
    trigger = _trigger_for(claim, result["status"])
    signals_before = len(cs.signals)
    to_gate = trigger is not None and trigger.kind == "gate"
    if to_gate:
        assert trigger is not None
        pilot = resolve_destination(snapshot, claim, "pilote")
        cs.update_claim(
            sess_id,
            {"status": "waiting_human", "result": result, "gate_origin": "close", "gate_message": trigger.message},
        )
        _history(cs, sess_id, "HUMAN_GATE", sess_id, trigger.message)
        sig = cs.add_signal(
            sess_id, pilot, "HUMAN_GATE", trigger.message or f"gate on close of {sess_id}", claim.scope_text
        )
        if sig:
            cs.update_claim(sess_id, {"result": {**result, "signal_id": sig}})
        final_status = "waiting_human"
    else:
        fields: dict[str, Any] = {"status": "closed", "closed_at": cs.ts(), "result": result}
        cs.update_claim(sess_id, fields)
        _run_trigger(cs, claim, trigger, result)
        new = cs.signals[signals_before:]
        if new:
            cs.update_claim(sess_id, {"result": {**result, "signal_id": new[0]}})
        final_status = "closed"
    if tier == 3:
        cs.message = f"bsi: close {claim.type} {sess_id} [orchestrated]"
    elif tier == 2:
        cs.message = f"bsi: close satellite {sess_id} [validated]"
    elif claim.type == "satellite":
        cs.message = f"bsi: close satellite {sess_id} [atomic]"
    else:
        cs.message = f"bsi: close claim {sess_id}"
    return CloseOutcome(sess_id, final_status, tier, result, list(cs.signals[signals_before:]))


def _who_must_act(claim: Claim, origin: str | None) -> str:
    """The human action that takes a stale claim out of a gate or a pause."""
    sess_id = claim.sess_id
    if origin == "waiting_human":
        return (f"its gate is still pending: a human approves or rejects it (`bsi gate approve {sess_id}` / "
                f"`bsi gate reject {sess_id} REASON`) or releases it")
    if origin == "paused":
        by = str(claim.data.get("paused_by") or sess_id)
        return f"it is paused: a human resumes it (`bsi gate resume {by}`) or releases it"
    return f"a human releases it (`bsi claim release {sess_id} --reason TEXT`)"


def _check_closable(snapshot: BrainSnapshot, claim: Claim) -> None:
    """An owner's close: from ``open``, or late from a stale claim that was ``open`` (never past a gate or pause).

    Raises:
        TransitionRefused: any other status, a stale claim whose gate or pause is pending
            (the message says who must act), or an ancestor holding the tree paused (12).
    """
    now = snapshot.now
    current = effective_status(claim, now)
    if current == "stale":
        origin = stale_origin(claim, now)
        if origin != "open":
            raise TransitionRefused(
                f"cannot close {claim.sess_id}: it is stale from {origin}; {_who_must_act(claim, origin)}"
            )
    elif current != "open":
        raise _refuse(claim, "close", ["open", "stale (from open)"], current)
    held = paused_ancestor(snapshot, claim)
    if held is not None:
        raise TransitionRefused(
            f"cannot close {claim.sess_id}: its ancestor {held.sess_id} is paused; "
            f"a human resumes it first (`bsi gate resume {held.sess_id}`)"
        )


def _trigger_for(claim: Claim, status: str) -> Trigger | None:
    data = claim.data
    if status == "ok":
        raw = data.get("on_done")
    elif status == "partial":
        raw = data.get("on_partial") or data.get("on_done")
    else:
        raw = data.get("on_fail")
        if not raw:
            return Trigger("signal", sig_type="BLOCKED_ON", dest="parent") if claim.parent else None
    return parse_trigger(str(raw)) if raw else None


def _summary(claim: Claim, result: dict[str, Any]) -> str:
    files = ", ".join(result.get("files_modified", [])[:5]) or "—"
    story = claim.story or claim.sess_id
    return f"{story} — {files} — {result.get('status', '')}"


def _run_trigger(cs: ChangeSet, claim: Claim, trigger: Trigger | None, result: dict[str, Any]) -> None:
    snapshot = cs.snapshot
    scope = claim.scope_text
    if trigger is None:
        if claim.parent:
            cs.add_signal(claim.sess_id, claim.parent, "CHECKPOINT", _summary(claim, result), scope)
        return
    if trigger.kind == "signal":
        cs.add_signal(
            claim.sess_id,
            resolve_destination(snapshot, claim, trigger.dest),
            trigger.sig_type,
            _summary(claim, result),
            scope,
        )
    elif trigger.kind == "notify":
        cs.add_signal(
            claim.sess_id,
            resolve_destination(snapshot, claim, trigger.dest),
            "INFO",
            trigger.message or _summary(claim, result),
            scope,
        )
    elif trigger.kind == "trigger":
        pilot = resolve_destination(snapshot, claim, "pilote")
        cs.add_signal(
            claim.sess_id,
            pilot,
            "HANDOFF",
            f"launch type:{trigger.task_type} scope:{trigger.task_scope} — after {claim.sess_id}",
            trigger.task_scope,
        )


# ---------------------------------------------------------------------------------------------
# Gates, pause/resume, abort (SPEC 6.3)
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GateOutcome:
    """What a gate request, approve or reject did.

    Attributes:
        sess_id: the claim.
        action: ``request``, ``approve`` or ``reject``.
        status: the claim's status after the action.
        signal_id: the HUMAN_GATE signal a request sent (None for a duplicate, and for other actions).
    """

    sess_id: str
    action: str
    status: str
    signal_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi gate ACTION`: ``{sess_id, action, status[, signal_id]}``."""
        out: dict[str, Any] = {"sess_id": self.sess_id, "action": self.action, "status": self.status}
        if self.signal_id:
            out["signal_id"] = self.signal_id
        return out


@dataclass(frozen=True)
class Cascade:
    """What a pause, resume or abort did to a claim and its subtree.

    Attributes:
        sess_id: the claim acted on.
        action: ``pause``, ``resume`` or ``abort``.
        status: the claim's status after the action.
        touched: the descendants the cascade changed, in tree order.
    """

    sess_id: str
    action: str
    status: str
    touched: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi gate ACTION`: ``{sess_id, action, status, cascade: [ids]}``."""
        return {"sess_id": self.sess_id, "action": self.action, "status": self.status,
                "cascade": list(self.touched)}


#: Past this size a claim file takes no new gate: what is left of the 64 KiB is kept for its close.
GATE_ROOM_BYTES = 48 * 1024
#: gate_history keeps at most this much of each message (the full text stays in its own field).
HISTORY_TEXT = 500


def _history(cs: ChangeSet, sess_id: str, event: str, by: str, message: str = "") -> None:
    """Append one gate_history event, its message cut so the history cannot outgrow the file."""
    text = message if len(message) <= HISTORY_TEXT else message[: HISTORY_TEXT - 1] + "…"
    cs.add_history(sess_id, event, by, text)


def gate_request(cs: ChangeSet, sess_id: str, message: str) -> GateOutcome:
    """A session stops at a human gate: open → waiting_human, HUMAN_GATE to the pilot."""
    claim = require_claim(cs.snapshot, sess_id)
    check_text("message", message)
    current = effective_status(claim, cs.snapshot.now)
    if current != "open":
        raise _refuse(claim, "request a gate on", ["open"], current)
    try:
        size = (cs.root / claim.path).stat().st_size
    except OSError:
        size = 0
    if size > GATE_ROOM_BYTES:
        raise InvalidData(f"cannot request a gate on {sess_id}: its file is {size // 1024} KiB; "
                          "close it and open a new claim")
    cs.update_claim(sess_id, {"status": "waiting_human", "gate_origin": "request", "gate_message": message})
    _history(cs, sess_id, "HUMAN_GATE", sess_id, message)
    pilot = resolve_destination(cs.snapshot, claim, "pilote")
    cs.message = f"bsi: gate HUMAN_GATE {sess_id}"
    sig = cs.add_signal(sess_id, pilot, "HUMAN_GATE", message or f"gate requested by {sess_id}", claim.scope_text)
    return GateOutcome(sess_id, "request", "waiting_human", sig)


def _pending_gate(cs: ChangeSet, claim: Claim, action: str) -> bool:
    """Whether `claim` has a gate a human may decide; True when it expired meanwhile (it is stale).

    Raises:
        TransitionRefused: no pending gate (12).
    """
    now = cs.snapshot.now
    current = effective_status(claim, now)
    if current == "waiting_human":
        return False
    if current == "stale" and stale_origin(claim, now) == "waiting_human":
        return True
    raise _refuse(claim, action, ["waiting_human", "stale (from waiting_human)"], current)


def gate_approve(cs: ChangeSet, sess_id: str, by: str, message: str = "") -> GateOutcome:
    """A human approves: waiting_human → open, or closed when the gate came from a close trigger.

    An expired gate (stale from waiting_human) can still be approved by a human:
    a close gate closes; a requested gate leaves the claim stale from ``open`` (its
    owner may then close it late, a human may release it).

    Returns:
        The outcome (status ``open``, ``closed``, or ``stale`` for an expired requested gate).
    """
    claim = require_claim(cs.snapshot, sess_id)
    check_text("message", message)
    _pending_gate(cs, claim, "approve")
    if claim.gate_origin == "close":
        cs.update_claim(sess_id, {"status": "closed", "closed_at": cs.ts()}, remove=("gate_origin",))
        new_status = "closed"
    elif claim.status == "stale":
        cs.update_claim(sess_id, {"stale_from": "open"}, remove=("gate_origin",))
        new_status = "stale"
    else:
        cs.update_claim(sess_id, {"status": "open"}, remove=("gate_origin",))
        new_status = "open"  # an expired gate: open as written, stale for every decision (effective status)
    _history(cs, sess_id, "APPROVED", by, message)
    if claim.gate_origin == "close":
        result = claim.result.data if claim.result is not None else {}
        if claim.parent:
            cs.add_signal(sess_id, claim.parent, "CHECKPOINT", _summary(claim, dict(result)), claim.scope_text)
    _deliver_gate_signals(cs, sess_id, by)
    cs.message = f"bsi: gate APPROVED {sess_id}"
    return GateOutcome(sess_id, "approve", new_status)


def _deliver_gate_signals(cs: ChangeSet, sess_id: str, by: str) -> None:
    """Mark the claim's pending HUMAN_GATE signals delivered once the gate is decided."""
    for sig in cs.snapshot.signals:
        if sig.state == "pending" and sig.type == "HUMAN_GATE" and sig.sender == sess_id:
            cs.update_signal(sig.path, {"state": "delivered", "delivered_at": cs.ts(), "delivered_by": by})


def _tell_parent(cs: ChangeSet, claim: Claim, by: str, text: str) -> None:
    """A human decided about `claim`: its parent session learns it as INFO (nothing blocks).

    Never BLOCKED_ON: that means "a human is needed", and the human is the one who acted
    (a human's own decision never notifies that human).
    """
    if claim.parent:
        cs.add_signal(f"human:{by}", claim.parent, "INFO", text, claim.scope_text)


def gate_reject(cs: ChangeSet, sess_id: str, by: str, reason: str) -> GateOutcome:
    """A human rejects (reason required): waiting_human (or an expired gate) → failed; INFO to the parent."""
    claim = require_claim(cs.snapshot, sess_id)
    if not reason.strip():
        raise InvalidData("reject needs a reason")
    check_text("message", reason)
    _pending_gate(cs, claim, "reject")
    cs.update_claim(
        sess_id, {"status": "failed", "closed_at": cs.ts(), "reject_reason": reason}, remove=("gate_origin",)
    )
    _history(cs, sess_id, "REJECTED", by, reason)
    _tell_parent(cs, claim, by, f"gate rejected for {sess_id} by {by}: {reason}")
    _deliver_gate_signals(cs, sess_id, by)
    cs.message = f"bsi: gate REJECTED {sess_id}"
    return GateOutcome(sess_id, "reject", "failed")


def cascade_targets(snapshot: BrainSnapshot, sess_id: str, statuses: frozenset[str]) -> list[Claim]:
    """Descendants (exact parent links, recursive) whose effective status is in `statuses`."""
    return [c for c in snapshot.descendants(sess_id) if effective_status(c, snapshot.now) in statuses]


PAUSABLE = frozenset({"open", "waiting_human"})
#: Abort takes every non-terminal status except `stale`: nothing leaves stale but a release or the owner's close.
ABORTABLE = frozenset({"open", "waiting_human", "paused"})


def _abortable(claim: Claim, now: datetime) -> bool:
    """Open, waiting or paused, or a live status the product does not know (a human may stop it)."""
    current = effective_status(claim, now)
    return current in ABORTABLE or (current != "stale" and not claim.is_terminal and current not in LIVE_STATUSES)


def gate_pause(cs: ChangeSet, sess_id: str, by: str, message: str = "") -> Cascade:
    """Pause a claim and, recursively, every open/waiting descendant (SPEC 6.3).

    Returns:
        The cascade (`touched`: the descendants it paused).
    """
    claim = require_claim(cs.snapshot, sess_id)
    check_text("message", message)
    current = effective_status(claim, cs.snapshot.now)
    if current not in PAUSABLE:
        raise _refuse(claim, "pause", sorted(PAUSABLE), current)
    cs.update_claim(sess_id, {"status": "paused", "paused_by": sess_id, "paused_from": claim.status})
    _history(cs, sess_id, "PAUSED", by, message)
    touched = []
    for child in cascade_targets(cs.snapshot, sess_id, PAUSABLE):
        cs.update_claim(child.sess_id, {"status": "paused", "paused_by": sess_id, "paused_from": child.status})
        _history(cs, child.sess_id, "PAUSED_CASCADE", by, f"ancestor {sess_id} paused")
        touched.append(child.sess_id)
    cs.add_signal(f"human:{by}", sess_id, "PAUSED", message or f"{sess_id} paused", claim.scope_text)
    cs.message = f"bsi: gate PAUSED {sess_id}"
    return Cascade(sess_id, "pause", "paused", tuple(touched))


def _previous_status(claim: Claim) -> str:
    previous = claim.paused_from or "open"
    return previous if previous in PAUSABLE else "open"


def is_held_pause(claim: Claim, now: datetime) -> bool:
    """Paused, or stale while paused (an expired pause a human may still lift)."""
    current = effective_status(claim, now)
    return current == "paused" or (current == "stale" and stale_origin(claim, now) == "paused")


def _lift_pause(cs: ChangeSet, claim: Claim) -> None:
    """Restore a paused claim's previous status; a stale one stays stale, now from that status."""
    previous = _previous_status(claim)
    if claim.status == "stale":
        cs.update_claim(claim.sess_id, {"stale_from": previous}, remove=("paused_by", "paused_from"))
    else:
        cs.update_claim(claim.sess_id, {"status": previous}, remove=("paused_by", "paused_from"))


def gate_resume(cs: ChangeSet, sess_id: str, by: str, message: str = "") -> Cascade:
    """Resume a paused claim to its previous status, and the descendants paused by it.

    An expired pause (stale from paused) can still be lifted by a human: the claim
    stays stale, from its previous status. A claim paused by an ancestor that is
    still paused cannot be resumed on its own (resume the ancestor).

    Returns:
        The cascade (`touched`: the descendants it resumed).
    """
    claim = require_claim(cs.snapshot, sess_id)
    check_text("message", message)
    now = cs.snapshot.now
    if not is_held_pause(claim, now):
        raise _refuse(claim, "resume", ["paused", "stale (from paused)"], effective_status(claim, now))
    held = paused_ancestor(cs.snapshot, claim)
    if held is not None:
        raise TransitionRefused(
            f"cannot resume {sess_id}: its ancestor {held.sess_id} is still paused; "
            f"resume it instead (`bsi gate resume {held.sess_id}`)"
        )
    _lift_pause(cs, claim)
    _history(cs, sess_id, "RESUMED", by, message)
    touched = []
    for child in cs.snapshot.descendants(sess_id):
        if not is_held_pause(child, now) or str(child.data.get("paused_by") or "") != sess_id:
            continue
        _lift_pause(cs, child)
        _history(cs, child.sess_id, "RESUMED_CASCADE", by, f"ancestor {sess_id} resumed")
        touched.append(child.sess_id)
    cs.message = f"bsi: gate RESUMED {sess_id}"
    after = "stale" if claim.status == "stale" else _previous_status(claim)
    return Cascade(sess_id, "resume", after, tuple(touched))


def gate_abort(cs: ChangeSet, sess_id: str, by: str, reason: str) -> Cascade:
    """Abort an open, waiting or paused claim and every such descendant (reason required).

    Stale claims are left alone (refused when aimed at directly): they leave
    `stale` only by a human release or their owner's close. The parent learns it
    as INFO (a human's own decision never rings that human as "needs you").

    Returns:
        The cascade (`touched`: the descendants it aborted).
    """
    claim = require_claim(cs.snapshot, sess_id)
    if not reason.strip():
        raise InvalidData("abort needs a reason")
    check_text("message", reason)
    now_dt = cs.snapshot.now
    if effective_status(claim, now_dt) == "stale":
        raise TransitionRefused(
            f"cannot abort {sess_id}: it is stale, and a stale claim only leaves stale by a human release "
            f"(bsi claim release {sess_id} --reason TEXT) or its owner's close"
        )
    if not _abortable(claim, now_dt):
        raise _refuse(claim, "abort", sorted(ABORTABLE), effective_status(claim, now_dt))
    now = cs.ts()
    cs.update_claim(sess_id, {"status": "failed", "closed_at": now, "abort_reason": reason})
    _history(cs, sess_id, "ABORTED", by, reason)
    touched = []
    for child in cs.snapshot.descendants(sess_id):
        if not _abortable(child, now_dt):
            continue
        cs.update_claim(child.sess_id, {"status": "failed", "closed_at": now, "abort_reason": reason})
        _history(cs, child.sess_id, "ABORTED_CASCADE", by, f"ancestor {sess_id} aborted: {reason}")
        touched.append(child.sess_id)
    _tell_parent(cs, claim, by, f"{sess_id} aborted by {by}: {reason}")
    cs.message = f"bsi: gate ABORTED {sess_id}"
    return Cascade(sess_id, "abort", "failed", tuple(touched))
