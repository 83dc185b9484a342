"""Brain: the one typed facade every front-end calls (CLI, cockpit, hooks, MCP server).

Read this file as "what a brain can do". It finds the brain, owns the clock, the store and the local writer lock, and
runs every mutating action as: lock → fresh snapshot → rule decision (staged in a ChangeSet) → atomic writes → index
regenerated → one commit of exactly the files changed. Reads are pure: a snapshot never fetches, writes or commits
(except the one explicit pull that `--sync` asks for before the first read).

Claims live on `Brain` itself (what an open would meet, asked without opening: core/facade_check.py); the other
areas are typed sub-objects (core/facade.py): `brain.gates`, `brain.signals`, `brain.locks`, `brain.circuit`,
`brain.audit` (the log, drift, the closed history a page at a time), `brain.remote` (core/facade_remote.py),
`brain.breath` (core/facade_breath.py) and `brain.launches` (core/facade_launch.py). Every result is a typed record
whose `--json` shape comes from its fields (core/json_shape.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from functools import cached_property
from pathlib import Path

from brain_tui.core.clock import Clock, make_clock, zone_from_name
from brain_tui.core.config import BrainConfig, ConfigFile, default_instance, write_mode
from brain_tui.core.errors import BsiError, InvalidData, NotFound
from brain_tui.core.ids import require_instance
from brain_tui.core.last_write import LastWrite
from brain_tui.core.paths.layout import DATA_DIRS, INDEX_FILE, STATE_DIR, find_root, journal_pending
from brain_tui.core.record import replace
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.records.store import BrainStore

# The write path (ruamel, git, the journal, each verb's rules) and `typing` are imported where needed (start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from brain_tui.core import facade, facade_breath, facade_launch
    from brain_tui.core.bootstrap import init_brain, make_folder
    from brain_tui.core.environment.env import EnvState
    from brain_tui.core.facade_remote import BrainRemote
    from brain_tui.core.paths.scope import ScopeEntry
    from brain_tui.core.records.changes import ChangeSet
    from brain_tui.core.records.headers import Finding
    from brain_tui.core.rules import preflight as preflight_rules
    from brain_tui.core.rules.attention import AttentionItem
    from brain_tui.core.rules.authority import Actor
    from brain_tui.core.rules.blocking_claims import BlockingClaims
    from brain_tui.core.rules.claims import CloseOutcome, CloseRequest, OpenRequest
    from brain_tui.core.rules.conflicts import Conflict
    from brain_tui.core.rules.preview import Preview
    from brain_tui.core.rules.reconcile import SyncReport
    from brain_tui.core.rules.repair import Repair
    from brain_tui.core.rules.watchdog import WatchdogReport
    from brain_tui.core.rules.write_request import ShellCommand, TypedText, WriteDecision, WriteSession
    from brain_tui.core.sessions.agents import Agents, Liveness
    from brain_tui.core.sessions.live import LiveSession
    from brain_tui.core.sessions.notify import Notifier
    from brain_tui.core.sessions.transcript import Peek, Runway
    from brain_tui.core.write_path import Applied
    T = TypeVar("T")

#: Names this module re-exports, loaded on first use (PEP 562): {name: module}.
_LAZY = {
    "Applied": "brain_tui.core.write_path",
    "CloseOutcome": "brain_tui.core.rules.claims",
    "CloseRequest": "brain_tui.core.rules.claims",
    "OpenRequest": "brain_tui.core.rules.claims",
    "Conflict": "brain_tui.core.rules.conflicts",
    "Preview": "brain_tui.core.rules.preview",
    "WatchdogReport": "brain_tui.core.rules.watchdog",
    "init_brain": "brain_tui.core.bootstrap",
    "make_folder": "brain_tui.core.bootstrap",
}


def __getattr__(name: str) -> Any:
    """The re-exported names of the write path, imported when first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DATA_DIRS", "INDEX_FILE", "STATE_DIR", "Applied", "Brain", "CloseOutcome", "CloseRequest", "Conflict",
    "OpenRequest", "Preview", "WatchdogReport", "find_root", "init_brain", "make_folder",
]


class Brain:
    """A brain folder (see `find_root`) with its clock, configuration, store and write lock.

    The clock is `clock` when given (the cockpit's tests), else the ISO time `now` (tests, demos), else `$BRAIN_NOW`,
    else the system clock. `commit` is False for `--no-commit`; `instance` defaults to `brain_name@hostname` (one given
    that is not `brain_name@machine` raises InvalidData, 65). `sync` is "sync" (`--sync`: every write goes through the
    remote), "offline" (`--offline`: commit locally, pushed at the next sync), "local", or None to follow
    brain-compose.yml (`sync: auto` → "sync").
    """

    last_applied = LastWrite()  #: the write this thread applied last (paths, commit, snapshot, warnings)

    def __init__(self, root: str | os.PathLike[str], *, now: str | None = None, clock: Clock | None = None,
                 commit: bool = True, instance: str | None = None, sync: str | None = None) -> None:
        self.root = Path(root).resolve()
        self.config_file = ConfigFile(self.root)
        self.config: BrainConfig = self.config_file.config
        self.tz = zone_from_name(self.config.timezone)
        self.display_tz = zone_from_name(self.config.timezone) if self.config.timezone else UTC
        self.clock: Clock = clock or make_clock(now, self.tz)
        self.commit_enabled = commit
        self.store = BrainStore(self.root, self.tz, self.config)
        self.brain_name = self.config.brain_name or self.root.name
        self.instance = require_instance(instance) if instance is not None else \
            default_instance(self.brain_name, os.uname().nodename)
        self._lock_depth = 0
        #: told once when a write waits on the writer lock more than a moment (`records.lock_holders`: who holds it)
        self.on_lock_wait: Callable[[str], None] | None = None
        #: seconds a write waits on the writer lock before it refuses, retryable (75); None: as long as it takes
        self.lock_patience: float | None = None
        if sync is not None and sync not in ("sync", "offline", "local"):
            raise ValueError(f"unknown sync mode {sync!r}")
        #: the mode the command line gave (`--sync`, `--offline`), None: brain-compose.yml's, as it is at each write
        self._sync_given = sync
        self.sync_mode = sync or write_mode(self.config)

    # -- the areas (core/facade.py), built on first use: a read loads only the rules it asks --------
    @cached_property
    def remote(self) -> BrainRemote:
        """The git remote: pull, sync, the synced write (`core.facade_remote`)."""
        from brain_tui.core.facade_remote import BrainRemote

        return BrainRemote(self)

    @cached_property
    def gates(self) -> facade.Gates:
        """Gates (SPEC 7)."""
        from brain_tui.core import facade

        return facade.Gates(self)

    @cached_property
    def signals(self) -> facade.Signals:
        """Signals (SPEC 8)."""
        from brain_tui.core import facade

        return facade.Signals(self)

    @cached_property
    def locks(self) -> facade.Locks:
        """File locks (SPEC 9)."""
        from brain_tui.core import facade

        return facade.Locks(self)

    @cached_property
    def circuit(self) -> facade.Circuit:
        """The circuit breaker."""
        from brain_tui.core import facade

        return facade.Circuit(self)

    @cached_property
    def breath(self) -> facade_breath.Breath:
        """Breath records (sprints, `core.facade_breath`)."""
        from brain_tui.core import facade_breath

        return facade_breath.Breath(self)

    @cached_property
    def audit(self) -> facade.Audit:
        """The audit of the brain's history."""
        from brain_tui.core import facade

        return facade.Audit(self)

    @cached_property
    def launches(self) -> facade_launch.Launches:
        """Launching satellites (`core.facade_launch`)."""
        from brain_tui.core import facade_launch

        return facade_launch.Launches(self)

    # -- reading ------------------------------------------------------------------------------
    def now(self) -> datetime:
        """The clock's answer."""
        return self.clock()

    def require_present(self) -> None:
        """Raise NotFound (66) when the brain folder is gone (deleted or moved since this Brain was opened)."""
        if not self.root.is_dir():
            raise NotFound(f"the brain folder {self.root} is gone (deleted or moved): nothing can be read or written")

    def snapshot(self, only_statuses: Collection[str] | None = None, *, closed_since: datetime | None = None,
                 skip_vouched: bool = False) -> BrainSnapshot:
        """The brain as it is on disk now: a pure read (no fetch; `pull()` is the explicit step). `only_statuses`,
        `closed_since` and `skip_vouched` say which claims to keep (see `BrainStore.snapshot`; None: all).

        Raises NotFound when the brain folder is gone (deleted or moved since this Brain was opened): an empty read
        would say "no claim" where nobody knows.
        """
        self.require_present()
        if not self._lock_depth and journal_pending(self.root):
            from brain_tui.core.records.journal import recover_if_idle

            recover_if_idle(self.root)  # a write a kill cut short is settled first (SPEC 22)
        return self.store.snapshot(self.now(), only_statuses=only_statuses, closed_since=closed_since,
                                   skip_vouched=skip_vouched)

    def pull(self) -> SyncReport:
        """Fetch and bring the work tree to the remote tip (the reads of `--sync` call it first)."""
        return self.remote.pull()

    def is_git(self) -> bool:
        """True when the brain is a git work tree."""
        from brain_tui.core.sync import gitops

        return (self.root / ".git").exists() or gitops.is_repository(self.root)

    # -- the write path (core/write_path.py) --------------------------------------------------
    def locked(self, reentrant: bool = True) -> AbstractContextManager[None]:
        """Hold the local writer lock (`flock` on `.brain/lock`), re-entrant within this Brain object."""
        from brain_tui.core import write_path

        return write_path.locked(self, reentrant)

    def mutate(self, decide: Callable[[ChangeSet], T], brake: bool = False) -> T:
        """Run one mutating action, through the git remote when syncing (SPEC 11).

        Local mode: see `mutate_local`. Sync mode: fetch → re-check on the fetched tree → commit on the remote tip →
        non-forced push, retried (`core.remote`). Offline mode: local commit, remembered as pending for the next sync.
        A `brake` (a human's pause) waits for nothing: see `write_path.mutate`.
        """
        from brain_tui.core import write_path

        return write_path.mutate(self, decide, brake)

    def refuse_unsafe_write(self) -> None:
        """No write while brain-compose.yml does not parse (its sync, zones, breaker would be guessed); the file is
        read again when it changed since (`ConfigFile`), nor by an agent whose clock runs ahead of the machine's
        (`authority.require_true_clock`). Raises InvalidData: naming the file and line (exit 65); HumanOnly (77).
        """
        from brain_tui.core.rules.authority import require_true_clock

        require_true_clock(self.now())
        self.config = self.store.config = self.config_file.current()
        if self.config.problem:
            raise InvalidData(f"{self.config.problem}; nothing was written. Fix the file first "
                              "(its sync mode, zones and breaker limit would otherwise be guessed)")
        # a long-lived process (`bsi mcp`, the cockpit) follows a human's `sync:` change at its next write
        self.sync_mode = self._sync_given or write_mode(self.config)

    def mutate_local(self, decide: Callable[[ChangeSet], T], brake: bool | str = False) -> T:
        """Run one mutating action under the local lock and apply what it staged (`write_path.mutate_local`)."""
        from brain_tui.core import write_path

        return write_path.mutate_local(self, decide, brake)

    # -- commands -----------------------------------------------------------------------------
    def regenerate_index(self) -> Applied:
        """`bsi index`: import legacy rows and regenerate BRAIN-INDEX.md (one commit)."""
        from brain_tui.core import write_path

        return write_path.regenerate_index(self, self.mutate, "bsi: regenerate index")

    def regenerate_index_local(self, message: str = "bsi: regenerate index") -> Applied:
        """Regenerate the index without going through the remote (used inside a sync)."""
        from brain_tui.core import write_path

        return write_path.regenerate_index(self, self.mutate_local, message)

    def human(self) -> str:
        """Who a human actor is, for gate_history `by`."""
        from brain_tui.core.sync import gitops

        return gitops.human_identity(self.root)

    @property
    def agents(self) -> Agents:
        """Agent sessions bound to claims and their liveness (`core.agents`, local only)."""
        from brain_tui.core.sessions.agents import Agents

        return Agents(self.root, self.now)

    # -- claims (SPEC 6) ----------------------------------------------------------------------
    def open_claim(self, req: OpenRequest, *, actor: Actor | None = None, mcp_client: str | None = None) -> str:
        """Open a claim after the conflict check; returns the new session ID (exit 10 on a conflict).

        Under a parent only its holder or a human delegates (SPEC 21.4). An `agent_session` is also recorded
        locally for the hooks; `mcp_client` (opened through `bsi mcp` started by that agent process, "" unknown)
        lets that client's next hook event bind it, as an agent's own process that names no session (Gemini CLI's
        shell) lets its agent process's. Both are written before the commit (`core.facade_open`).
        """
        from brain_tui.core import facade_open
        from brain_tui.core.rules import authority as who_acts
        from brain_tui.core.rules.own_writes import writing_as

        acting = who_acts.acting_in(self.root, actor)
        if req.agent_session:
            who_acts.require_own_session(self.root, acting, req.agent_session)
        if mcp_client is None and actor is None and acting.is_agent and not req.agent_session:
            from brain_tui.core.sessions.agent_process import agent_process

            mcp_client = agent_process()  # a shell given no session ID (Gemini CLI's): its agent's next hook binds it
        with writing_as(acting):  # the last door judges the open for the same actor
            if req.agent_session or mcp_client:
                return facade_open.open_bound(self, req, acting, mcp_client or "")
            return facade_open.open_plain(self, req, acting)

    def close_claim(self, sess_id: str, req: CloseRequest, *, actor: Actor | None = None) -> CloseOutcome:
        """Close a claim under its tier's rules, then run its exit trigger.

        A red Tier 2 close is refused (exit 11) but still commits the BLOCKED_ON it sends. Without `files`, the
        files its bound agent session wrote are `files_modified`. An agent closes only its own claims (77)."""
        from brain_tui.core import facade
        from brain_tui.core.rules import claims

        if not req.files:
            live = self.agents.liveness().get(sess_id)
            if live is not None and live.touched:
                req = replace(req, files=list(live.touched))

        def decide(cs: ChangeSet) -> CloseOutcome:
            try:
                return claims.close_claim(cs, sess_id, req)
            except BsiError as exc:
                if cs.signals:
                    exc.commit_staged = True
                    cs.message = f"bsi: signal {cs.signals[0]} pending"
                raise

        return facade.mutate_for(self, actor, sess_id, "close", decide)

    def renew_claim(self, sess_id: str, ttl: timedelta | None = None, *, actor: Actor | None = None) -> str:
        """Extend an open claim (never past opened_at + 8 h); returns the new expiry (an agent: its own claim)."""
        from brain_tui.core import facade
        from brain_tui.core.rules import claims

        return facade.mutate_for(self, actor, sess_id, "renew", lambda cs: claims.renew_claim(cs, sess_id, ttl))

    def release_claim(self, sess_id: str, reason: str, by: str | None = None, *, seen: str | None = None,
                      actor: Actor | None = None) -> None:  # noqa: ARG002 - every verb takes it; a human's ignores it
        """A human releases a stale claim (reason; `seen`: `rules.seen`); refused in an agent's process (77)."""
        from brain_tui.core.rules import authority as who_acts
        from brain_tui.core.rules import claims

        who_acts.require_human("release", sess_id)  # the process decides, never `actor`
        who = by or self.human()
        self.mutate(lambda cs: claims.release_claim(cs, sess_id, reason, who, seen))

    def repair_claim(self, target: str) -> Repair:
        """Restore a corrupt claim file (ID or path) to its last committed version that reads (`core.repair`).

        A human's verb (an older version may lift a gate or a pause): refused in an agent's process (77).
        """
        from brain_tui.core.rules import authority as who_acts
        from brain_tui.core.rules.repair import stage_repair

        who_acts.require_human("repair", target)
        return self.mutate(lambda cs: stage_repair(cs, target))

    def watchdog(self) -> WatchdogReport:
        """Mark expired claims stale and archive old delivered signals."""
        from brain_tui.core.rules import watchdog

        return self.mutate(watchdog.watchdog)

    @cached_property
    def blocking(self) -> BlockingClaims:
        """The blocking claims and their scope index kept in memory, revalidated per call (`rules.blocking_claims`)."""
        from brain_tui.core.rules.blocking_claims import BlockingClaims

        return BlockingClaims(self)

    def check_scope(self, entries: Sequence[ScopeEntry], parent: str | None = None,
                    satellite_type: str | None = None, *, memo: bool = False,
                    ttl: timedelta | None = None) -> list[Conflict]:
        """Conflicts a claim on `entries` would meet, judged as `open_claim` judges them (an agent's at the machine's
        clock when its own runs behind, for a claim of `ttl`: None the brain's default); opens nothing. `memo`: from
        `blocking` (a long-lived process: `bsi mcp`). See `core.facade_check`."""
        from brain_tui.core import facade_check

        return facade_check.check_scope(self, entries, parent, satellite_type, ttl, memo=memo)

    def attention(self, snapshot: BrainSnapshot | None = None, liveness: Mapping[str, Liveness] | None = None,
                  runways: Mapping[str, Runway] | None = None) -> list[AttentionItem]:
        """Everything waiting for a human, ranked by what each unblocks (`core.attention`).

        Each argument is what the caller already read (the cockpit's picture in memory); None reads it now: the
        snapshot; the bound agent sessions from `.brain/agents/` (an unreadable folder counts as no agent session);
        the context runways (`live.runways_of` the live sessions) from the transcripts, but only when `liveness` is
        None too, else none (no file read on a caller's thread).
        """
        from brain_tui.core.rules import attention

        return attention.queue_of(self, snapshot, liveness, runways)

    def read_liveness(self) -> dict[str, Liveness]:
        """The agents' liveness by claim (local files), or {} when they cannot be read."""
        try:
            return self.agents.liveness()
        except (OSError, ValueError):
            return {}

    def preview_open(self, req: OpenRequest, snapshot: BrainSnapshot | None = None) -> list[Conflict]:
        """Dry run of `open_claim`: the request's own checks, then the conflicts it would meet; writes nothing.

        `snapshot` is the one already in memory (the cockpit's); None reads the brain now (`core.facade_check`).
        Raises InvalidData / NotFound / TransitionRefused when the request itself is refused (as the open would).
        """
        from brain_tui.core import facade_check

        return facade_check.preview_open(self, req, snapshot)

    def preview(self, action: str, sess_id: str, snapshot: BrainSnapshot | None = None) -> Preview:
        """Dry run of pause | resume | abort | approve | reject | release | close (its transition only) on
        `snapshot` (default: now)."""
        from brain_tui.core.rules.preview import preview as dry_run

        return dry_run(snapshot if snapshot is not None else self.snapshot(), action, sess_id)

    # -- preflight, environment, lint ---------------------------------------------------------
    def preflight(self, sess_id: str, file: str, *, actor: Actor | None = None) -> preflight_rules.PreflightResult:
        """May `sess_id` write `file` (a path, or a `##` section: `plan.md#Alpha`) now? (SPEC 10; read-only):
        `decide_write`, the hook's own decision, with SPEC 5's sections (`rules.preflight_answer`). Raises
        PreflightRefused with code 4, 1, 5, 2, 3 or 6 (the first failing check), with what unblocks it; first,
        NotYours (77) when an agent (`authority.acting_in`) asks for another session's claim (SPEC 21.4)."""
        from brain_tui.core.rules.authority import acting_in, check_owner, require_true_clock
        from brain_tui.core.rules.preflight_answer import preflight

        require_true_clock(self.now())  # an agent's clock ahead is refused first, as every door refuses it
        if (acting := acting_in(self.root, actor)).is_agent:
            check_owner(self.snapshot(), acting, sess_id, "preflight")
        return preflight(self, sess_id, file)

    def decide_write(self, path: str | Sequence[str] | ShellCommand | TypedText,
                     session: WriteSession) -> WriteDecision:
        """May `session` write `path` (a file, one tool call's files, a shell command's targets, or the text typed
        into a running program) now?

        The one seat of the write decision (`core.write_decision`): the hooks and `bsi preflight check` both
        ask it; the brain is read once, brain-compose.yml as it is now (`bsi mcp` too). Read-only (but the hook index).
        Raises HumanOnly: an agent's clock runs ahead of the machine's (`authority.require_true_clock`, exit 77).
        """
        from brain_tui.core.rules.authority import require_true_clock
        from brain_tui.core.rules.write_decision import decide_write

        require_true_clock(self.now())  # an agent's answer at a time ahead would let it past others' locks
        self.config = self.store.config = self.config_file.current()
        return decide_write(self, path, session)

    def env(self, timeout_s: float = 2.0) -> EnvState:
        """The environment derived live (git, pm2, ports, system; SPEC 16); never raises for a failing probe."""
        from brain_tui.core.environment.env import collect_env

        return collect_env(self.root, self.config, self.instance, timeout_s, now=self.now())

    def notifier(self) -> Notifier:
        """Who tells the pilot of new attention items: the `notify:` command and desktop notices (core.notify)."""
        from brain_tui.core.sessions.notify import Notifier

        return Notifier(self.root, self.config.notify, self.brain_name)

    def lint(self, paths: Sequence[str] | None = None) -> list[Finding]:
        """Brain-language header findings (ADR-010) of `paths` (as given on a command line) or of the brain."""
        from brain_tui.core.records.headers import lint_given

        return lint_given(self.root, paths)

    # -- launching satellites (SPEC 20.5; the rules are in core/sessions/launch.py) ----------------------
    def live_sessions(self, snapshot: BrainSnapshot | None = None) -> dict[str, LiveSession]:
        """Each live claim's agent: state, last tool activity, last commit by it, its launch (SPEC 20.4), as
        ``{sess_id: LiveSession}`` for the non-terminal claims with a bound agent or a running launch.

        `snapshot` holds the claims to look at (default: a fresh read of the blocking ones); given one, nothing here
        touches the store, so a thread may call it.
        """
        from brain_tui.core.sessions import live as live_rules

        return live_rules.live_sessions_of(self, snapshot)

    def peek(self, sess_id: str) -> Peek | None:
        """What `sess_id`'s bound agent session last said and did, and its runway (`core.live.peek_claim`)."""
        from brain_tui.core.sessions import live as live_rules

        return live_rules.peek_claim(sess_id, self.read_liveness(), self.config.raw)
