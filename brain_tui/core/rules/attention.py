"""What needs a human, counted one way: the attention queue (issue 13).

One list, ranked, built from a snapshot (a pure read): every claim waiting at a
human gate, every stale or expired claim, every claim file that does not read or whose status the product does
not know (each blocks what it may hold until a human mends it), every lock or signal file that does not read (one
keeps its file locked, the other may hide a message: `unreadable_items`), every pending BLOCKED_ON of an unfinished
claim, every tripped circuit breaker, every paused tree close to its expiry, every bound
agent session waiting for input (with the client's kind and message), every open
claim whose agent session has under 10 % of its context window left (`context`,
from `core.transcript`), and the breath alerts of the newest sprint
(seed 003: over-loading, noise, retention, accumulation). The cockpit's header count, its queue screen,
its bell and `bsi attention` all read this list, so they always agree.

Ranking: what deciding an item unblocks comes first — the number of unfinished
claims that wait on it (the claim itself, its unfinished ancestors, which cannot
close before it, and its unfinished descendants, which live under it). Ties go
to an item close to expiry, then to the more urgent kind (held, unreadable, gate, blocked, circuit,
needs input, paused, stale, context, breath), then to the oldest.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo

from brain_tui.core.clock import humanize_countdown, try_parse_timestamp
from brain_tui.core.ids import party_session
from brain_tui.core.record import record, replace
from brain_tui.core.records.model import BrainSnapshot, Claim, Signal
from brain_tui.core.records.statuses import BLOCKING_STATUSES, SignalState, Status
from brain_tui.core.rules.circuit import circuit_state
from brain_tui.core.rules.conflicts import chain_complete

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, Protocol

    from brain_tui.core.brain import Brain

    class HasState(Protocol):
        """Anything with a liveness `state` (core/sessions/agents.py's `Liveness`)."""

        @property
        def state(self) -> str:
            """working | needs_input | idle | ended."""
            ...


    class HasRunway(Protocol):
        """A context runway (core/sessions/transcript.py's `Runway`)."""

        @property
        def low(self) -> bool:
            """Under 10 % of the window left."""
            ...

        def describe(self) -> str:
            """``ctx 93% · ~2 turns``."""
            ...

        def as_dict(self) -> dict[str, Any]:
            """JSON shape."""
            ...

#: Under this much time left, a gate or a paused tree is announced (header, bell, toast).
WARN_BEFORE = timedelta(minutes=15)

#: At most this many pauses held back from git are listed one by one (`_held_items`).
_HELD_SHOWN = 10
#: Kinds of items, most urgent first (the tie-break after what an item unblocks).
KINDS = ("held", "unreadable", "gate", "blocked", "circuit", "needs_input", "paused", "stale", "context", "breath")
_KIND_ORDER = {kind: index for index, kind in enumerate(KINDS)}
_EPOCH_KEY = ""


#: Why a session waits, in words, by the client's notification type.
INPUT_KINDS = {
    "permission_prompt": "permission prompt",
    "permission_request": "permission request",
    "elicitation_dialog": "a question",
    "ToolPermission": "permission prompt",
}


@record
class AttentionItem:
    """One thing waiting for a human.

    Attributes:
        kind: held, unreadable, gate, blocked, circuit, needs_input, paused, stale, context or breath (`KINDS`).
        key: a stable identity (a new key is a new item: the cockpit's bell).
        sess_id: the claim the decision is about (for a BLOCKED_ON: the blocked sender), or None.
        sig_id: the signal behind the item (BLOCKED_ON, HUMAN_GATE, CIRCUIT_BREAK), or None.
        since: when it started waiting (gate raised, expiry passed, signal sent), or None.
        time_left: before the claim expires (gates, paused trees, open claims); negative once past; None
            when it does not apply.
        unblocks: how many unfinished claims wait on it (itself included; at least 1; 0 for a breath alert,
            which holds nothing up and so ranks last).
        summary: one line in plain words (hostile text: render it through the cockpit's safe_text).
        warning: True for a gate or paused tree with less than `WARN_BEFORE` left (or already expired).
        runway: the context runway of the claim's agent session (`core.transcript.Runway`), or None.
        path: the claim file of an `unreadable` item (one that does not read, or whose status bsi does not
            know), or None.
    """

    kind: str
    key: str
    sess_id: str | None
    sig_id: str | None
    since: datetime | None
    time_left: timedelta | None
    unblocks: int
    summary: str
    warning: bool = False
    runway: HasRunway | None = None
    path: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi attention --json` (one element of `items`)."""
        return {
            "kind": self.kind,
            "sess_id": self.sess_id,
            "sig_id": self.sig_id,
            "since": self.since.isoformat() if self.since else None,
            "time_left_s": int(self.time_left.total_seconds()) if self.time_left is not None else None,
            "unblocks": self.unblocks,
            "warning": self.warning,
            "summary": self.summary,
            "runway": self.runway.as_dict() if self.runway is not None else None,
            "path": self.path,
        }


def time_left(claim: Claim, now: datetime) -> timedelta | None:
    """How long before the claim expires (negative once past; None when unknown): the store caps the expiry
    at opening + 8 h, so this is the watchdog's own deadline.
    """
    if claim.expires_at is None:
        return None
    return claim.expires_at - now


def describe_time_left(left: timedelta | None) -> str:
    """``1h20m left`` (``1m left`` in the last minute), ``expired 5m ago``, or "" when unknown."""
    if left is None:
        return ""
    if left <= timedelta(0):
        return f"expired {humanize_countdown(left).removeprefix('-')} ago"
    return f"{humanize_countdown(left)} left"


def unblocks(snapshot: BrainSnapshot, sess_id: str | None) -> int:
    """How many unfinished claims wait on `sess_id`: itself, its unfinished ancestors and descendants."""
    if not sess_id or snapshot.claim(sess_id) is None:
        return 1
    around = (*snapshot.ancestors(sess_id), *snapshot.descendants(sess_id))
    return 1 + sum(1 for c in around if c.status in BLOCKING_STATUSES)


def claim_of(snapshot: BrainSnapshot, party: str) -> Claim | None:
    """The claim a signal party names (``sess-…`` or ``sess-…@instance``, see `ids.party_session`), else None."""
    sess_id = party_session(party)
    return snapshot.claim(sess_id) if sess_id else None


def gate_raised_at(claim: Claim, tz: tzinfo) -> datetime | None:
    """When the claim's current gate was raised: its last HUMAN_GATE event, else the claim's opening."""
    for event in reversed(claim.gate_history):
        if event.event.upper() == "HUMAN_GATE":
            moment = try_parse_timestamp(event.ts, tz)
            if moment is not None:
                return moment
    return claim.opened_at


def gate_message(claim: Claim) -> str:
    """The message of the claim's current gate: `gate_message`, else its last HUMAN_GATE event's ("" if none)."""
    if claim.gate_message:
        return claim.gate_message
    for event in reversed(claim.gate_history):
        if event.event.upper() == "HUMAN_GATE":
            return event.message
    return ""


def _warn(left: timedelta | None) -> bool:
    return left is not None and left < WARN_BEFORE


def _claim_item(snapshot: BrainSnapshot, claim: Claim, liveness: Mapping[str, HasState],
                runways: Mapping[str, HasRunway]) -> AttentionItem | None:
    """The one item a claim gives (the most urgent reason), or None."""
    now = snapshot.now
    left = time_left(claim, now)
    count = unblocks(snapshot, claim.sess_id)
    if claim.status == Status.WAITING_HUMAN:
        since = gate_raised_at(claim, snapshot.tz)
        message = claim.gate_message or claim.story
        return AttentionItem("gate", f"gate:{claim.sess_id}:{since.isoformat() if since else _EPOCH_KEY}",
                             claim.sess_id, None, since, left, count,
                             f"gate: {message}".rstrip(": "), warning=_warn(left))
    if claim.status in (Status.OPEN, Status.WAITING_HUMAN, Status.PAUSED) and circuit_state(claim).tripped:
        state = circuit_state(claim)
        return AttentionItem("circuit", f"circuit:{claim.sess_id}", claim.sess_id, None, None, left, count,
                             f"circuit breaker tripped after {state.fails} failures")
    agent = liveness.get(claim.sess_id)
    if claim.status == Status.OPEN and agent is not None and agent.state == "needs_input":
        return AttentionItem("needs_input", f"needs_input:{claim.sess_id}", claim.sess_id, None, None, left,
                             count, needs_input_summary(agent))
    if claim.status == Status.STALE or (claim.status == Status.OPEN and left is not None and left <= timedelta(0)):
        since = claim.expires_at
        reason = claim.stale_reason or "TTL expired without close"
        if claim.status == Status.OPEN:
            reason = "expired, not yet marked stale (the watchdog marks it)"
        return AttentionItem("stale", f"stale:{claim.sess_id}", claim.sess_id, None, since, left, count,
                             f"stale: {reason}; release it or let its owner close it")
    if claim.status == Status.PAUSED and _warn(left):
        parent = snapshot.claim(claim.parent) if claim.parent else None
        if parent is not None and parent.status == Status.PAUSED and _warn(time_left(parent, now)):
            return None  # the paused tree is announced once, at its top
        return AttentionItem("paused", f"paused:{claim.sess_id}", claim.sess_id, None, None, left, count,
                             f"paused, {describe_time_left(left)}: resume or renew it", warning=True)
    runway = runways.get(claim.sess_id)
    if claim.status == Status.OPEN and runway is not None and runway.low and (agent is None or agent.state != "ended"):
        return AttentionItem("context", f"context:{claim.sess_id}", claim.sess_id, None, None, left, count,
                             f"{short_name(claim.sess_id)}: context nearly full ({runway.describe()}) "
                             "— close or hand off")
    return None


def short_name(sess_id: str) -> str:
    """``api-tests`` for ``sess-20261129-0820-api-tests`` (the ID itself when it has no such tail)."""
    parts = sess_id.split("-", 3)
    return parts[3] if len(parts) == 4 and parts[0] == "sess" and parts[3] else sess_id


def needs_input_summary(agent: object) -> str:
    """``its agent session waits for input: permission prompt — Claude needs your permission to use Bash``.

    The kind and message come from the client's event (hostile): both are made inert and cut.
    """
    from brain_tui.core.paths.text_safety import inert_line as inert

    kind = getattr(agent, "input_kind", None)
    message = getattr(agent, "input_message", None)
    text = "its agent session waits for input"
    if isinstance(kind, str) and kind:
        text += f": {INPUT_KINDS.get(kind) or inert(kind.replace('_', ' '), 40)}"
    if isinstance(message, str) and message.strip():
        text += f" — {inert(message, 200)}"
    return text


#: How a signal written by a human's decision names its sender (`human:<name>`, SPEC 7).
HUMAN_SENDER = "human:"


def _signal_item(snapshot: BrainSnapshot, sig: Signal, listed: set[str]) -> AttentionItem | None:
    """The item a pending signal gives, unless its claim is already listed for the same reason."""
    if sig.state != SignalState.PENDING:
        return None
    sender = claim_of(snapshot, sig.sender)
    sender_id = sender.sess_id if sender is not None else None
    if sig.type == "BLOCKED_ON" and sender is not None and sender.is_terminal:
        return None  # the blocked session ended (closed, aborted, released): nothing waits on an answer any more
    if sig.type == "BLOCKED_ON" and not sig.sender.startswith(HUMAN_SENDER):
        # a human's own rejection tells the parent session it is blocked; it never rings that human
        return AttentionItem("blocked", f"signal:{sig.sig_id}", sender_id, sig.sig_id, sig.created_at, None,
                             unblocks(snapshot, sender_id), f"blocked: {sig.payload}".rstrip(": "))
    if sig.type == "HUMAN_GATE" and sender is not None and (sender.is_terminal or sender.status == Status.PAUSED):
        return None  # decided (closed, failed, released), or held by a pause: resume brings the claim's gate back
    if sig.type == "HUMAN_GATE" and (sender_id is None or sender_id not in listed):
        return AttentionItem("gate", f"signal:{sig.sig_id}", sender_id, sig.sig_id, sig.created_at, None,
                             unblocks(snapshot, sender_id), f"gate: {sig.payload}".rstrip(": "))
    if sig.type == "CIRCUIT_BREAK" and (sender_id is None or sender_id not in listed):
        subject = claim_of(snapshot, sig.scope) or sender
        subject_id = subject.sess_id if subject is not None else sender_id
        if subject_id is not None and subject_id in listed:
            return None
        return AttentionItem("circuit", f"signal:{sig.sig_id}", subject_id, sig.sig_id, sig.created_at, None,
                             unblocks(snapshot, subject_id), f"circuit break: {sig.payload}".rstrip(": "))
    return None


def rank_key(item: AttentionItem) -> tuple[int, int, int, str, str]:
    """The queue's order: most unblocked first, then close to expiry, kind, oldest, identity."""
    return (-item.unblocks, 0 if item.warning else 1, _KIND_ORDER.get(item.kind, len(KINDS)),
            item.since.isoformat() if item.since else _EPOCH_KEY, item.key)


def attention(snapshot: BrainSnapshot, liveness: Mapping[str, HasState] | None = None,
              runways: Mapping[str, HasRunway] | None = None) -> list[AttentionItem]:
    """Everything waiting for a human in `snapshot`, ranked (see the module docstring); nothing is written.

    `liveness`: agent sessions by claim ID (None: unknown). `runways`: the context runway of each bound agent
    session by claim ID (`core.live.runways`); each claim item carries its claim's, and an open claim under 10 %
    left is a `context` item. One item per claim at most, plus one per pending BLOCKED_ON and per HUMAN_GATE /
    CIRCUIT_BREAK signal whose claim is not already listed.
    """
    agents: Mapping[str, HasState] = liveness or {}
    items: list[AttentionItem] = []
    listed: set[str] = set()
    for claim in snapshot.claims:
        if claim.status not in BLOCKING_STATUSES:
            if claim.is_blocking:  # a status the product does not know: it holds its scope as an open claim
                items.append(_unknown_status_item(snapshot, claim))
                listed.add(claim.sess_id)
            continue
        item = _claim_item(snapshot, claim, agents, runways or {})
        if item is not None and item.runway is None and runways and claim.sess_id in runways:
            item = replace(item, runway=runways[claim.sess_id])
        if item is not None:
            items.append(item)
            listed.add(claim.sess_id)
    for sig in snapshot.signals:
        item = _signal_item(snapshot, sig, listed)
        if item is not None:
            items.append(item)
    items.extend(_unreadable_items(snapshot))
    items.extend(_breath_items(snapshot))
    items.sort(key=rank_key)
    return items


def complete_for(snapshot: BrainSnapshot) -> bool:
    """True when `attention(snapshot)` reads the same as on the whole brain (a live-only read is enough).

    A snapshot of the blocking claims only (`only_statuses`) lacks the closed history. The queue needs no
    finished claim except to name a pending signal's party and to walk an unfinished claim's ancestors:
    when every unfinished claim's chain and every party a pending signal names are in `snapshot`, the
    queue is exact; else the caller reads the whole brain.
    """
    by_id = {c.sess_id for c in snapshot.claims}
    for claim in snapshot.claims:
        if claim.status in BLOCKING_STATUSES and claim.parent and not chain_complete(snapshot, claim.sess_id):
            return False
    for sig in snapshot.signals:
        if sig.state != SignalState.PENDING:
            continue
        for party in (sig.sender, sig.scope if sig.type == "CIRCUIT_BREAK" else ""):
            if party and party.startswith("sess-") and party.partition("@")[0] not in by_id:
                return False
    return True


def _unreadable_items(snapshot: BrainSnapshot) -> list[AttentionItem]:
    """One item per brain file that does not read and waits on a human (`unreadable_items`): a claim file that
    blocks what it may hold (SPEC 22), a lock file that keeps its file locked, a signal file whose message is lost."""
    from brain_tui.core.rules.unreadable_items import file_items

    return file_items(snapshot)


def _unknown_status_item(snapshot: BrainSnapshot, claim: Claim) -> AttentionItem:
    """A claim whose status the product does not know: it holds its scope as an open claim would, and no verb but a
    human's abort (or a hand edit of its status) ends it."""
    holds = " ".join(str(entry) for entry in claim.scope)
    return AttentionItem("unreadable", f"unreadable:{claim.sess_id}", claim.sess_id, None, None,
                         time_left(claim, snapshot.now), unblocks(snapshot, claim.sess_id),
                         f"status {claim.status!r} is none bsi knows: it holds {holds} as an open claim would; set "
                         f"its status by hand or abort it (`bsi gate abort {claim.sess_id} REASON`)", path=claim.path)


def _breath_items(snapshot: BrainSnapshot) -> list[AttentionItem]:
    """One item per settled alert of the newest sprint (`breath.settled_alerts`; older sprints are history)."""
    if not snapshot.breath:
        return []
    from brain_tui.core.environment.breath import settled_alerts
    from brain_tui.core.environment.breath_metrics import metrics

    newest = metrics(snapshot.breath)[-1]
    owner = next((r.session for r in snapshot.breath if r.sprint == newest.sprint), None)
    claim = claim_of(snapshot, owner) if owner else None
    return [AttentionItem("breath", f"breath:{newest.sprint}:{alert.get('metric')}:{alert.get('agent', '')}",
                          claim.sess_id if claim is not None else None, None, newest.opened_at, None, 0,
                          f"breath {newest.sprint}: {alert.get('message', '')}")
            for alert in settled_alerts(newest)]


def waiting_inside(snapshot: BrainSnapshot, items: list[AttentionItem]) -> dict[str, int]:
    """For each claim, how many items wait at it or below it (a collapsed tree node shows this)."""
    counts: dict[str, int] = {}
    for item in items:
        if not item.sess_id:
            continue
        for claim_id in (item.sess_id, *(c.sess_id for c in snapshot.ancestors(item.sess_id))):
            counts[claim_id] = counts.get(claim_id, 0) + 1
    return counts


def queue_of(brain: Brain, snapshot: BrainSnapshot | None, liveness: Mapping[str, HasState] | None,
             runways: Mapping[str, HasRunway] | None) -> list[AttentionItem]:
    """`Brain.attention`: read what the caller did not give, then rank (the arguments are the facade's)."""
    from brain_tui.core.sessions import live as live_rules

    if liveness is None:
        liveness = brain.read_liveness()
        if runways is None:
            runways = live_rules.runways(liveness, live_rules.context_window(brain.config.raw))
    if snapshot is None:  # the live claims suffice unless the queue must name a finished one
        snapshot = brain.snapshot(only_statuses=BLOCKING_STATUSES)
        if not complete_for(snapshot):
            snapshot = brain.snapshot()
    return sorted([*_held_items(brain), *attention(snapshot, liveness, runways)], key=rank_key)


def _held_items(brain: Brain) -> list[AttentionItem]:
    """One item per pause written while git could not commit it (`records.held_back`), until it is committed: on
    this clone alone, and not pushed, while git stays mid-operation. It waits on git, not on a clock: never a warning
    (the header's "expiring", a renewal offered), which a renewal could not end."""
    from brain_tui.core.records import held_back

    if not held_back.held_back(brain.root):
        return []
    from brain_tui.core.ids import valid_session_id
    from brain_tui.core.sync.git_state import stall

    found = stall(brain.root, commits=True)
    state = (f"{found.what}: {found.remedy} and the next bsi write or sync commits it" if found is not None
             else "no git operation is under way: the next bsi write or `bsi sync` commits it, or says why git "
                  "could not (a commit that fails while git is idle, as a signing setting makes it)")
    subjects = held_back.subjects(brain.root)
    items = []
    for subject in subjects[:_HELD_SHOWN]:  # (bsi's record holds a few; one written by hand or a program, any number)
        last = subject.rsplit(" ", 1)[-1]
        items.append(AttentionItem("held", f"held:{subject[:200]}", last if valid_session_id(last) else None, None,
                                   None, None, 1, f"not committed yet: `{subject[:200]}`; {state}"))
    if len(subjects) > _HELD_SHOWN:
        items.append(AttentionItem("held", "held:more", None, None, None, None, 1,
                                   f"and {len(subjects) - _HELD_SHOWN} more writes not committed yet; {state}"))
    return items
