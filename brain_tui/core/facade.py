"""The typed areas of the `Brain` facade: gates, signals, locks, circuit, audit (breath: facade_breath.py).

Each class is a thin door: it picks the actor, runs one rule through `Brain.mutate` (lock → fresh snapshot → decision
staged in a ChangeSet → one commit) or reads the snapshot, and returns a typed, frozen result. No rule lives here; the
rules are in the modules named after them. `Brain` creates one of each (`brain.gates`, `brain.locks`, …), so a front-end
never reaches past the facade. `brain.remote` (git sync) is in core/facade_remote.py.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from datetime import timedelta

from brain_tui.core.ids import valid_session_id
from brain_tui.core.records.model import BLOCKING_STATUSES, BrainSnapshot, Claim
from brain_tui.core.rules.effective import effective_status, require_claim

# Each area's rules are imported by the methods that run them: a read of one area (`gate status`)
# never loads the rules of the others (start-up, issue 18).
TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from brain_tui.core.brain import Brain
    from brain_tui.core.records.changes import ChangeSet
    from brain_tui.core.records.history_page import HistoryIndex, HistoryPage
    from brain_tui.core.rules import circuit, gates, locks
    from brain_tui.core.rules.authority import Actor
    from brain_tui.core.rules.gate_review import GateReview
    from brain_tui.core.sync.audit import DriftReport, LogEntry
    T = TypeVar("T")



def mutate_for(brain: Brain, actor: Actor | None, sess_id: str, verb: str, decide: Callable[[ChangeSet], T]) -> T:
    """`brain.mutate(decide)` acting for claim `sess_id`: an agent only for its own (SPEC 21.4; `NotYours`, 77).

    The actor is `authority.acting_in` (the process's own unless an agent's is given); the check
    runs on the fresh snapshot under the writer lock, before the rule.
    """
    from brain_tui.core.rules import authority
    from brain_tui.core.rules.own_writes import writing_as

    acting = authority.acting_in(brain.root, actor)

    def owned(cs: ChangeSet) -> T:
        authority.check_owner(cs.snapshot, acting, sess_id, verb)
        return decide(cs)

    with writing_as(acting):  # the last door (`write_path.apply`) judges the write for the same actor
        return brain.mutate(owned)


def mutate_seen(brain: Brain, sess_id: str, seen: str | None, decide: Callable[[ChangeSet], T]) -> T:
    """`brain.mutate(decide)` for a human's decision on `sess_id`, refused when the claim changed since it was seen.

    `seen`: the claim's `rules.seen.claim_mark` as the front-end showed it (None: nothing to compare). The
    comparison runs on the fresh snapshot under the writer lock, before the rule (`ChangedMeanwhile`, 12).
    """
    def checked(cs: ChangeSet) -> T:
        if seen is not None:
            from brain_tui.core.rules.seen import check_seen

            check_seen(require_claim(cs.snapshot, sess_id), seen)
        return decide(cs)

    return brain.mutate(checked)


class Gates:
    """Human gates, pause/resume and abort (SPEC 6.3); a human acts unless `by` names someone.

    approve, reject, pause, resume and abort are a human's (SPEC 21.2): inside an agent's process
    they refuse (`HumanOnly`, 77) whatever spelling reached them. A request is the session's own.
    """

    def __init__(self, brain: Brain) -> None:
        self._brain = brain

    def request(self, sess_id: str, message: str = "", by: str | None = None, *,
                actor: Actor | None = None) -> gates.GateOutcome:
        """The session stops at a human gate (open → waiting_human; HUMAN_GATE to its pilot).

        An agent requests a gate only on its own claim (`NotYours`, 77).
        """
        from brain_tui.core.rules import gates

        del by  # the session itself requests its gate
        return mutate_for(self._brain, actor, sess_id, "request a gate on",
                                      lambda cs: gates.gate_request(cs, sess_id, message))

    def _human(self, verb: str, sess_id: str, by: str | None) -> str:
        """Refuse inside an agent's process (the process decides, never a parameter); else who acts."""
        from brain_tui.core.rules.authority import require_human

        require_human(verb, sess_id)
        return by or self._brain.human()

    def approve(self, sess_id: str, message: str = "", by: str | None = None,
                seen_tree: str | None = None, seen: str | None = None) -> gates.GateOutcome:
        """A human approves (waiting_human → open, or closed for a gate raised by a close).

        Records ``approved_tree`` (the scope's git tree now). `seen_tree`: the tree of the review the
        human saw (`show`); when the scope moved since, the approval is refused (`TreeChanged`, 12).
        `seen` (here and in reject, resume, abort): the claim's mark as the human saw it
        (`rules.seen`); a gate decided and raised again since is refused (`ChangedMeanwhile`, 12).
        """
        who = self._human("approve", sess_id, by)

        def decide(cs: ChangeSet) -> gates.GateOutcome:
            from brain_tui.core.rules import gate_review, gates  # git: not loaded by a read (`gate status`)

            claim = require_claim(cs.snapshot, sess_id)
            tree = gate_review.scope_tree(cs.root, claim)
            gate_review.check_tree(cs.root, claim, seen_tree, tree)
            return gates.gate_approve(cs, sess_id, who, message, tree=tree)

        return mutate_seen(self._brain, sess_id, seen, decide)

    def status(self, sess_id: str) -> tuple[BrainSnapshot, Claim, tuple[Claim, ...]]:
        """`gate status`: a snapshot, the claim of `sess_id` and its subtree, as a full read gives them.

        The finished claims outside the subtree are not read (`finished.with_subtree`); whatever the closed set
        cannot answer exactly is read from the whole brain. Raises InvalidData, NotFound as `require_claim`.
        """
        live = self._brain.snapshot(skip_vouched=True)
        # an ID that is no session ID is refused from the live read, as the whole brain's would refuse it
        found = self._brain.store.with_subtree(live, sess_id) if valid_session_id(sess_id) else live
        snap = found if found is not None else self._brain.snapshot()
        claim = require_claim(snap, sess_id)
        return snap, claim, snap.descendants(claim.sess_id)

    def show(self, sess_id: str) -> GateReview:
        """What the gate on `sess_id` asks to approve: changed files, bounded diff, tests, scope tree (read-only)."""
        snap = self._brain.snapshot()
        claim = require_claim(snap, sess_id)
        from brain_tui.core.rules import gate_review

        return gate_review.review(self._brain.root, claim, effective_status(claim, snap.now))

    def reject(self, sess_id: str, reason: str, by: str | None = None, seen: str | None = None) -> gates.GateOutcome:
        """A human rejects with a reason (waiting_human → failed; BLOCKED_ON upwards)."""
        from brain_tui.core.rules import gates

        who = self._human("reject", sess_id, by)
        return mutate_seen(self._brain, sess_id, seen, lambda cs: gates.gate_reject(cs, sess_id, who, reason))

    def pause(self, sess_id: str, message: str = "", by: str | None = None) -> gates.Cascade:
        """Pause a claim and every open/waiting descendant.

        No `seen`: a pause is the brake, and a brake that waits for a second look is worse than one that
        holds more than the dialog listed (the claims paused are listed in the result). For the same reason it is
        placed while git cannot commit (`records.held_back`): committed once git is idle again.
        """
        from brain_tui.core.rules import gates

        who = self._human("pause", sess_id, by)
        return self._brain.mutate(lambda cs: gates.gate_pause(cs, sess_id, who, message), brake=True)

    def resume(self, sess_id: str, message: str = "", by: str | None = None, seen: str | None = None) -> gates.Cascade:
        """Resume a paused claim and the descendants its pause reached (`seen`: as in `approve`)."""
        from brain_tui.core.rules import gates

        who = self._human("resume", sess_id, by)
        return mutate_seen(self._brain, sess_id, seen, lambda cs: gates.gate_resume(cs, sess_id, who, message))

    def abort(self, sess_id: str, reason: str, by: str | None = None, seen: str | None = None,
              seen_cascade: Sequence[str] | None = None) -> gates.Cascade:
        """Abort a claim and every open/waiting/paused descendant (reason required; `seen`: as in `approve`).

        `seen_cascade`: the descendants the front-end listed; one the abort would also take is refused
        (`ChangedMeanwhile`, 12): nothing is aborted that the human was not shown.
        """
        from brain_tui.core.rules import gates
        from brain_tui.core.rules.seen import check_cascade

        who = self._human("abort", sess_id, by)

        def decide(cs: ChangeSet) -> gates.Cascade:
            cascade = gates.gate_abort(cs, sess_id, who, reason)
            check_cascade(sess_id, cascade.touched, seen_cascade)
            return cascade

        return mutate_seen(self._brain, sess_id, seen, decide)


class Signals:
    """The signal bus (SPEC 7): one file per signal."""

    def __init__(self, brain: Brain) -> None:
        self._brain = brain

    def send(self, sender: str, to: str, sig_type: str, payload: str, scope: str = "", *,
             actor: Actor | None = None) -> str | None:
        """Write one pending signal; None when an identical one is already pending.

        An agent sends only from its own claim (`NotYours`, 77) and never a type the product
        writes (HUMAN_GATE, PAUSED, CIRCUIT_BREAK, UNBLOCK: `ProductOnly`, 77).
        """
        from brain_tui.core.rules import authority
        from brain_tui.core.rules import signals as signal_rules

        acting = authority.acting_in(self._brain.root, actor)

        def decide(cs: ChangeSet) -> str | None:
            if acting.is_agent:
                signal_rules.check_agent_send(cs.snapshot, acting, sender, sig_type)
            return signal_rules.send_signal(cs, sender, to, sig_type, payload, scope)

        return self._brain.mutate(decide)

    def ack(self, sig_id: str, by: str | None = None, *, actor: Actor | None = None) -> bool:
        """pending → delivered; False when it was no longer pending.

        An agent acknowledges only signals addressed to its own claims (`NotYours`, 77): another's
        BLOCKED_ON would otherwise leave the cockpit's attention queue unseen. An agent signs with that claim's ID
        (a `by` naming anyone else: `NotYours`, 77); a human with `by`, else their identity.
        """
        from brain_tui.core.rules import authority
        from brain_tui.core.rules import signals as signal_rules

        acting = authority.acting_in(self._brain.root, actor)

        def decide(cs: ChangeSet) -> bool:
            who = by
            if acting.is_agent:  # signed by the claim it acknowledges for, never in another's name
                who = signal_rules.check_agent_ack(cs.snapshot, acting, sig_id, by)
            return signal_rules.ack_signal(cs, sig_id, who or self._brain.human())

        return self._brain.mutate(decide)

    def archive(self) -> list[str]:
        """Archive signals delivered 24 h ago or more; returns their IDs."""
        from brain_tui.core.rules.signals import archive_signals

        return self._brain.mutate(archive_signals)


class Locks:
    """File mutexes (SPEC 9)."""

    def __init__(self, brain: Brain) -> None:
        self._brain = brain

    def acquire(self, file: str, sess_id: str, ttl_min: Any = None, *,
                actor: Actor | None = None) -> locks.LockOutcome:
        """Acquire, extend or take over the lock of `file` (refused with code 1 while another holds it).

        Only for a claim effectively open (a gate or a pause holds its work: 12); an agent only
        for its own claim (`NotYours`, 77) and only a file that claim may write (code 1): inside its
        scope, and neither a protocol file, a file naming programs run outside its sandbox (git's
        config and hooks, the agents' settings) nor, for a satellite, the kernel zone (code 5).
        """
        from brain_tui.core.rules import authority, locks

        acting = authority.acting_in(self._brain.root, actor)
        if acting.is_agent:
            self._require_writable(file, sess_id)

        def decide(cs: ChangeSet) -> locks.LockOutcome:
            authority.require_own_file(acting, cs.snapshot, sess_id, file)
            return locks.stage_acquire(cs, file, sess_id, ttl_min)

        return mutate_for(self._brain, acting, sess_id, "lock a file for", decide)

    def _require_writable(self, file: str, sess_id: str) -> None:
        """Refuse an agent's lock of a file its claim may never write, wherever its scope reaches (SPEC 21.4).

        The write decision's own refusals of such files: `protocol` (code 1) and the kernel zone (5). A claim
        that may not act now, a path that does not normalise, or a file outside the scope is left to the lock
        rules, which say so themselves (12, 65, 1).
        """
        from brain_tui.core.rules.preflight_codes import ZONE_VIOLATION
        from brain_tui.core.rules.write_request import PROTOCOL, WriteSession

        if self._brain.snapshot().claim(sess_id) is None:
            return
        decision = self._brain.decide_write(file, WriteSession(claims=(sess_id,)))
        if not decision.allowed and (decision.check == PROTOCOL or decision.code == ZONE_VIOLATION):
            raise decision.refusal()

    def release(self, file: str, sess_id: str, *, actor: Actor | None = None) -> locks.LockRelease:
        """The holder releases the lock of `file` (refused with code 2 for anyone else; 77 for another agent's)."""
        from brain_tui.core.rules import locks

        return mutate_for(self._brain, actor, sess_id, "release a lock for",
                                      lambda cs: locks.stage_release(cs, file, sess_id))

    def check(self, file: str) -> locks.LockCheck:
        """Who holds `file` now (read-only)."""
        from brain_tui.core.rules.locks import check_lock

        return check_lock(self._brain.snapshot(), file)

    def list(self) -> locks.LockList:
        """Every lock and every corrupt lock file (read-only)."""
        from brain_tui.core.rules.locks import list_locks

        return list_locks(self._brain.snapshot())

    def cleanup(self) -> builtins.list[locks.LockInfo]:
        """Delete every lock that holds nothing (expired, or its holder's claim ended); returns what was removed."""
        from brain_tui.core.rules.lock_cleanup import stage_cleanup

        return self._brain.mutate(stage_cleanup)


class Circuit:
    """The circuit breaker of each claim (SPEC 9)."""

    def __init__(self, brain: Brain) -> None:
        self._brain = brain

    def fail(self, sess_id: str, *, actor: Actor | None = None) -> circuit.CircuitState:
        """Record one failure; trips the breaker (one CIRCUIT_BREAK signal) at the maximum.

        An agent records failures only on its own claim (`NotYours`, 77).
        """
        from brain_tui.core.rules import circuit

        limit = self._brain.config.max_consecutive_fails
        return mutate_for(self._brain, actor, sess_id, "record a failure on",
                                      lambda cs: circuit.stage_fail(cs, sess_id, limit))

    def reset(self, sess_id: str, *, actor: Actor | None = None) -> circuit.CircuitState:
        """Clear the breaker (an agent: only its own claim's, `NotYours`, 77)."""
        from brain_tui.core.rules import circuit

        limit = self._brain.config.max_consecutive_fails
        return mutate_for(self._brain, actor, sess_id, "reset the breaker of",
                                      lambda cs: circuit.stage_reset(cs, sess_id, limit))

    def status(self, sess_id: str) -> circuit.CircuitState:
        """The breaker of one claim (read-only)."""
        from brain_tui.core.rules.circuit import circuit_state

        claim = require_claim(self._brain.snapshot(), sess_id)
        return circuit_state(claim, self._brain.config.max_consecutive_fails)


class Audit:
    """Who changed what: the claim's git history and scope drift (SPEC 12)."""

    def __init__(self, brain: Brain) -> None:
        self._brain = brain
        self._history: HistoryIndex | None = None

    def history_page(self, page: int, size: int = 50, needle: str = "",
                     snapshot: BrainSnapshot | None = None) -> HistoryPage:
        """Page `page` (from 0, clamped to the last page) of `size` finished claims, newest opening first, reading
        only that page's files; with `needle`, only the names (session IDs) holding it, case-insensitively.

        `snapshot` is a read that holds the unfinished claims (the cockpit's own); None: a read of the unfinished claims
        is made. Its unfinished claims and corrupt rows are left out by path.
        """
        return self._index().page(self._held(snapshot), page, size, needle)

    def history_page_of(self, sess_id: str, size: int = 50, needle: str = "",
                        snapshot: BrainSnapshot | None = None) -> int | None:
        """The history page (from 0) that lists the finished claim `sess_id`, or None."""
        return self._index().page_of(self._held(snapshot), sess_id, size, needle)

    def recent(self, window: timedelta) -> BrainSnapshot:
        """The unfinished claims, those finished within `window`, and the finished claims they name.

        What a screen that follows the brain holds (the cockpit): older finished claims are not built;
        `history_page` lists them a page at a time, and `older_children` counts those below each claim.
        """
        from brain_tui.core.record import replace
        from brain_tui.core.records.finished import older_children

        brain = self._brain
        snapshot = self._index().with_named(brain.snapshot(BLOCKING_STATUSES, closed_since=brain.now() - window))
        # the children finished before the window still count in a tree's done/total (from the rows, no file read)
        return replace(snapshot, older_children=older_children(brain.store.closed_last, snapshot))

    def _index(self) -> HistoryIndex:
        from brain_tui.core.records.history_page import HistoryIndex

        if self._history is None:
            self._history = HistoryIndex(self._brain.store)
        return self._history

    def _held(self, snapshot: BrainSnapshot | None) -> set[str]:
        read = snapshot if snapshot is not None else self._brain.snapshot(only_statuses=BLOCKING_STATUSES)
        return {c.path for c in read.claims if not c.is_terminal} | {c.path for c in read.corrupt}

    def log(self, sess_id: str | None = None, limit: int = 50) -> list[LogEntry]:
        """Commits touching one claim (or every claim), newest first. Raises InvalidData for a malformed ID (65),
        NotFound for an unknown claim with no history (66)."""
        from brain_tui.core.sync.audit import claim_log

        if sess_id is not None and not valid_session_id(sess_id):
            require_claim(self._brain.snapshot(), sess_id)
        entries = claim_log(self._brain.root, sess_id, limit=max(1, limit))
        if sess_id is not None and not entries and self._brain.snapshot().claim(sess_id) is None:
            require_claim(self._brain.snapshot(), sess_id)
        return entries[:limit]

    def verify(self, sess_id: str) -> DriftReport:
        """Files the session changed outside its scope (`outside` non-empty: exit 13)."""
        from brain_tui.core.sync.audit import verify_scope

        snapshot = self._brain.snapshot()
        claim = require_claim(snapshot, sess_id)
        return verify_scope(self._brain.root, snapshot, claim)
