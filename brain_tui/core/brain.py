"""Brain: the one facade the CLI and the cockpit call.

It finds the brain, owns the clock, the store and the local writer lock, and
runs every mutating action as: lock → fresh snapshot → protocol decision
(staged in a ChangeSet) → atomic writes → index regenerated → one commit of
exactly the files changed.
"""

from __future__ import annotations

import fcntl
import os
import socket
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ruamel.yaml.comments import CommentedMap

from brain_tui.core import gitops, index, protocol, reconcile, remote, signals
from brain_tui.core import launch as launching
from brain_tui.core.agents import Agents
from brain_tui.core.changes import ChangeSet, yaml_safe
from brain_tui.core.clock import Clock, make_clock, zone_from_name
from brain_tui.core.config import BrainConfig, load_config
from brain_tui.core.errors import BsiError, InvalidData, NotFound
from brain_tui.core.live import LiveSession, live_sessions
from brain_tui.core.model import BLOCKING_STATUSES, BrainSnapshot
from brain_tui.core.reconcile import SyncReport
from brain_tui.core.store import SIGNAL_ID_RE, BrainStore
from brain_tui.core.yamlio import atomic_write_text, dump_round_trip, sweep_temp_files

if TYPE_CHECKING:
    from brain_tui.core.agents import Liveness
    from brain_tui.core.attention import AttentionItem

T = TypeVar("T")

INDEX_FILE = "BRAIN-INDEX.md"
STATE_DIR = ".brain"
DATA_DIRS = ("claims", "signals", "locks", "breath")


def find_root(explicit: str | os.PathLike[str] | None = None, cwd: str | os.PathLike[str] | None = None) -> Path:
    """Find the brain: `--brain PATH`, else `$BRAIN_ROOT`, else walk up from the current folder.

    Raises:
        NotFound: no brain found (exit 66), with the commands that make one.
    """
    hint = ("run `bsi init [PATH]` to create one, or try the demo (`bsi demo PATH`, `brain-tui --demo`), "
            "or pass --brain PATH")
    given = explicit or os.environ.get("BRAIN_ROOT")
    if given:
        path = Path(given).expanduser()
        if not path.is_dir() or not ((path / "claims").is_dir() or (path / INDEX_FILE).is_file()):
            raise NotFound(f"no brain at {path} (no claims/ nor {INDEX_FILE}): {hint}")
        return path.resolve()
    start = Path(cwd or os.getcwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / "claims").is_dir() or (folder / INDEX_FILE).is_file():
            return folder
    raise NotFound(f"no brain found from {start} upwards: {hint}")


@dataclass
class Applied:
    """What `Brain.apply` did."""

    paths: list[str] = field(default_factory=list)
    commit: str | None = None
    imported_signals: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class Brain:
    """A brain folder with its clock, configuration, store and write lock.

    Args:
        root: the brain folder (see `find_root`).
        now: an ISO time for the clock (tests, demos); else `$BRAIN_NOW`, else the system clock.
        clock: an explicit clock (overrides `now`; used by the cockpit's tests).
        commit: False for `--no-commit`.
        instance: the instance name (default `brain_name@hostname`).
        sync: "sync" (`--sync`: every write goes through the remote), "offline"
            (`--offline`: commit locally, pushed at the next sync), "local", or
            None to follow brain-compose.yml (`sync: auto` → "sync").
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        now: str | None = None,
        clock: Clock | None = None,
        commit: bool = True,
        instance: str | None = None,
        sync: str | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.config: BrainConfig = load_config(self.root)
        self.tz = zone_from_name(self.config.timezone)
        self.display_tz = zone_from_name(self.config.timezone) if self.config.timezone else UTC
        self.clock: Clock = clock or make_clock(now, self.tz)
        self.commit_enabled = commit
        self.store = BrainStore(self.root, self.tz, self.config)
        self.brain_name = self.config.brain_name or self.root.name
        self.instance = instance or f"{self.brain_name}@{socket.gethostname()}"
        self.last_applied: Applied | None = None
        self._lock_depth = 0
        self.remote = BrainRemote(self)
        if sync is None:
            sync = "sync" if self.config.sync == "auto" else "local"
        if sync not in ("sync", "offline", "local"):
            raise ValueError(f"unknown sync mode {sync!r}")
        self.sync_mode = sync

    # -- reading ------------------------------------------------------------------------------
    def now(self) -> datetime:
        """The clock's answer."""
        return self.clock()

    def snapshot(self, only_statuses: Collection[str] | None = None) -> BrainSnapshot:
        """The brain as it is on disk now: a pure read (no fetch; `pull()` is the explicit step).

        Args:
            only_statuses: keep only claims with these statuses (see `BrainStore.snapshot`); None: all.
        """
        return self.store.snapshot(self.now(), only_statuses=only_statuses)

    def pull(self) -> SyncReport:
        """Fetch and bring the work tree to the remote tip (the reads of `--sync` call it first)."""
        return self.remote.pull()

    def is_git(self) -> bool:
        """True when the brain is a git work tree."""
        return (self.root / ".git").exists() or gitops.is_repository(self.root)

    # -- the write path -----------------------------------------------------------------------
    @contextmanager
    def locked(self, reentrant: bool = True) -> Iterator[None]:
        """Hold the local writer lock (`flock` on `.brain/lock`; the kernel frees it if we die).

        Re-entrant within this Brain object (a synced write holds it across the
        whole fetch → decide → push cycle and writes inside it).
        """
        if reentrant and self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        state = self.root / STATE_DIR
        state.mkdir(exist_ok=True)
        with open(state / "lock", "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def mutate(self, decide: Callable[[ChangeSet], T]) -> T:
        """Run one mutating action, through the git remote when syncing (SPEC 11).

        Local mode: see `mutate_local`. Sync mode: fetch → re-check on the fetched
        tree → commit on the remote tip → non-forced push, retried (`core.remote`).
        Offline mode: local commit, remembered as pending for the next sync.
        """
        self.refuse_broken_config()
        if self.sync_mode == "sync" and self.commit_enabled:
            return self.remote.write(decide)
        result = self.mutate_local(decide)
        if self.sync_mode == "offline" and self.last_applied is not None and self.last_applied.commit:
            remote.record(self.root, self.now().isoformat(), pending=True)
        return result

    def refuse_broken_config(self) -> None:
        """No write while brain-compose.yml does not parse (its sync, zones, breaker would be guessed).

        Raises:
            InvalidData: naming the file and the line (exit 65); reads only warn (`config.problem`).
        """
        if self.config.problem:
            raise InvalidData(f"{self.config.problem}; nothing was written. Fix the file first "
                              "(its sync mode, zones and breaker limit would otherwise be guessed)")

    def mutate_local(self, decide: Callable[[ChangeSet], T]) -> T:
        """Run one mutating action under the local lock and apply what it staged.

        `decide` gets a ChangeSet over a fresh snapshot and stages writes. If it
        raises a BsiError marked `commit_staged`, what it staged (e.g. a signal)
        is still applied before the error propagates; any other error writes nothing.
        """
        self.refuse_broken_config()
        with self.locked():
            remote.recover(self.root)
            gitops.refuse_mid_operation(self.root)
            sweep_temp_files([self.root / d for d in DATA_DIRS] + [self.root])
            cs = ChangeSet(self.store.snapshot(self.now()))
            try:
                result = decide(cs)
            except BsiError as exc:
                if getattr(exc, "commit_staged", False) and not cs.empty:
                    self.last_applied = self._apply(cs)
                raise
            self.last_applied = self._apply(cs)
            return result

    def _apply(self, cs: ChangeSet) -> Applied:
        applied = Applied()
        rendered = cs.render()
        before = _texts_before(self.root, [*rendered, INDEX_FILE])
        try:
            return self._write_and_commit(cs, rendered, applied)
        except gitops.CommitFailed:
            _restore(self.root, before)
            raise

    def _write_and_commit(self, cs: ChangeSet, rendered: dict[str, str | None], applied: Applied) -> Applied:
        for rel, text in rendered.items():
            target = self.root / rel
            if text is None:
                if target.exists():
                    target.unlink()
                    applied.paths.append(rel)
            else:
                atomic_write_text(target, text)
                applied.paths.append(rel)
        applied.imported_signals, index_paths = self._refresh_index()
        applied.paths.extend(index_paths)
        if not cs.message:
            cs.message = "bsi: update"
        if self.commit_enabled and applied.paths:
            if self.is_git():
                applied.commit = gitops.commit_paths(self.root, applied.paths, cs.message, self.now())
            else:
                applied.warnings.append(f"{self.root} is not a git repository: change not committed")
        return applied

    def _refresh_index(self) -> tuple[list[str], list[str]]:
        """Import legacy signal rows once, then regenerate the generated block of BRAIN-INDEX.md."""
        path = self.root / INDEX_FILE
        existing = path.read_text(encoding="utf-8") if path.is_file() else None
        written: list[str] = []
        imported: list[str] = []
        snapshot = self.store.snapshot(self.now())
        if existing:
            known = {s.sig_id for s in snapshot.signals}
            for row in index.parse_legacy_signal_rows(existing):
                sig_id = row["sig_id"]
                if sig_id in known or not SIGNAL_ID_RE.match(sig_id):
                    continue
                known.add(sig_id)
                doc = CommentedMap()
                doc["sig_id"] = sig_id
                doc["from"] = row["from"]
                doc["to"] = row["to"]
                doc["type"] = row["type"]
                doc["scope"] = row["scope"]
                doc["payload"] = row["payload"]
                doc["state"] = row["state"]
                created = _legacy_signal_time(sig_id)
                if created:
                    doc["created_at"] = created
                doc["imported_from"] = INDEX_FILE
                rel = f"signals/{sig_id}.yml"
                atomic_write_text(self.root / rel, dump_round_trip(yaml_safe(doc)))
                written.append(rel)
                imported.append(sig_id)
            if imported:
                snapshot = self.store.snapshot(self.now())
        new_text = index.apply_block(existing, index.render_block(snapshot, self.display_tz))
        if new_text != existing:
            atomic_write_text(path, new_text)
            written.append(INDEX_FILE)
        return imported, written

    # -- commands -----------------------------------------------------------------------------
    def regenerate_index(self) -> Applied:
        """`bsi index`: import legacy rows and regenerate BRAIN-INDEX.md (one commit)."""

        def decide(cs: ChangeSet) -> None:
            cs.message = "bsi: regenerate index"

        self.mutate(decide)
        assert self.last_applied is not None
        return self.last_applied

    def regenerate_index_local(self, message: str = "bsi: regenerate index") -> Applied:
        """Regenerate the index without going through the remote (used inside a sync)."""

        def decide(cs: ChangeSet) -> None:
            cs.message = message

        self.mutate_local(decide)
        assert self.last_applied is not None
        return self.last_applied

    def human(self) -> str:
        """Who a human actor is, for gate_history `by`."""
        return gitops.human_identity(self.root)

    def open_claim(self, req: protocol.OpenRequest) -> str:
        """Open a claim (see `protocol.open_claim`); an `agent_session` is also recorded locally for the hooks."""
        sess_id = self.mutate(lambda cs: protocol.open_claim(cs, req))
        if req.agent_session:
            self.agents.bind(sess_id, req.agent_session)
        return sess_id

    @property
    def agents(self) -> Agents:
        """Agent sessions bound to claims and their liveness (`core.agents`, local only)."""
        return Agents(self.root, self.now)

    def close_claim(self, sess_id: str, req: protocol.CloseRequest) -> protocol.CloseOutcome:
        """Close a claim under its tier's rules (see `protocol.close_claim`).

        Without `files`, the files its bound agent session wrote (recorded by the hooks) are `files_modified`.
        """
        if not req.files:
            live = self.agents.liveness().get(sess_id)
            if live is not None and live.touched:
                req = replace(req, files=list(live.touched))

        def decide(cs: ChangeSet) -> protocol.CloseOutcome:
            try:
                return protocol.close_claim(cs, sess_id, req)
            except BsiError as exc:
                if cs.signals:
                    exc.commit_staged = True  # type: ignore[attr-defined]
                    cs.message = f"bsi: signal {cs.signals[0]} pending"
                raise

        return self.mutate(decide)

    def renew_claim(self, sess_id: str, ttl: Any = None) -> str:
        """Extend an open claim."""
        return self.mutate(lambda cs: protocol.renew_claim(cs, sess_id, ttl))

    def release_claim(self, sess_id: str, reason: str, by: str | None = None) -> None:
        """A human releases a stale claim."""
        actor = by or self.human()
        self.mutate(lambda cs: protocol.release_claim(cs, sess_id, reason, actor))

    def watchdog(self) -> dict[str, Any]:
        """Mark expired claims stale."""
        return self.mutate(protocol.watchdog)

    def check_scope(self, entries: Any, parent: str | None = None,
                    satellite_type: str | None = None) -> list[protocol.Conflict]:
        """Conflicts a claim on `entries` would meet; opens nothing.

        Reads only the claims that can block (closed history is skipped through the
        parse cache), unless the parent's chain passes through a claim that cannot
        block: then the whole brain, so the delegation exemption is exact.
        """
        snapshot = self.snapshot(only_statuses=BLOCKING_STATUSES)
        if parent is not None and not _chain_complete(snapshot, parent):
            snapshot = self.snapshot()
        protocol.validate_check(snapshot, parent, satellite_type)
        return protocol.find_conflicts(snapshot, entries, parent=parent, satellite_type=satellite_type)

    def preview_open(self, req: protocol.OpenRequest,
                     snapshot: BrainSnapshot | None = None) -> list[protocol.Conflict]:
        """A dry run of `open_claim` on a snapshot already read: its refusal, or the conflicts it would meet.

        Args:
            req: the request as the form describes it.
            snapshot: the brain as already read (the cockpit's picture in memory); None reads the claims that
                can block now.

        Raises:
            BsiError: the request itself is invalid (unknown parent, bad type…), in the core's words.
        """
        if snapshot is None:
            snapshot = self.snapshot(only_statuses=BLOCKING_STATUSES)
        protocol.validate_open(snapshot, req)
        return protocol.find_conflicts(snapshot, req.scope, parent=req.parent, satellite_type=req.satellite_type)

    def attention(self, snapshot: BrainSnapshot | None = None,
                  liveness: Mapping[str, Liveness] | None = None) -> list[AttentionItem]:
        """Everything waiting for a human, ranked by what each unblocks (`core.attention`).

        Args:
            snapshot: the brain as already read (the cockpit's picture in memory); None reads it now.
            liveness: the bound agent sessions as already read; None reads `.brain/agents/` now (an
                unreadable folder counts as no agent session).
        """
        from brain_tui.core import attention

        if liveness is None:
            liveness = self.read_liveness()
        return attention.attention(snapshot if snapshot is not None else self.snapshot(), liveness)

    def read_liveness(self) -> dict[str, Liveness]:
        """The agents' liveness by claim (local files), or {} when they cannot be read."""
        try:
            return self.agents.liveness()
        except (OSError, ValueError):
            return {}

    def gate(self, action: str, sess_id: str, message: str = "", by: str | None = None) -> Any:
        """Run one gate action: request | approve | reject | pause | resume | abort."""
        actor = by or (sess_id if action == "request" else self.human())
        actions: dict[str, Callable[[ChangeSet], Any]] = {
            "request": lambda cs: protocol.gate_request(cs, sess_id, message),
            "approve": lambda cs: protocol.gate_approve(cs, sess_id, actor, message),
            "reject": lambda cs: protocol.gate_reject(cs, sess_id, actor, message),
            "pause": lambda cs: protocol.gate_pause(cs, sess_id, actor, message),
            "resume": lambda cs: protocol.gate_resume(cs, sess_id, actor, message),
            "abort": lambda cs: protocol.gate_abort(cs, sess_id, actor, message),
        }
        return self.mutate(actions[action])

    def send_signal(self, sender: str, to: str, sig_type: str, payload: str, scope: str = "") -> str | None:
        """Write one pending signal (None when an identical one is pending)."""
        return self.mutate(lambda cs: signals.send_signal(cs, sender, to, sig_type, payload, scope))

    def ack_signal(self, sig_id: str, by: str | None = None) -> bool:
        """Acknowledge a signal (pending → delivered)."""
        actor = by or self.human()
        return self.mutate(lambda cs: signals.ack_signal(cs, sig_id, actor))

    def archive_signals(self) -> list[str]:
        """Archive signals delivered 24 h ago or more."""
        return self.mutate(signals.archive_signals)

    # -- launching satellites (SPEC 20.5; the rules are in core/launch.py) ----------------------
    def launch_plan(self, sess_id: str, *, tmux: bool | None = None) -> launching.LaunchPlan:
        """What `launch` would start for `sess_id` (the argv, env, window), starting nothing."""
        settings = launching.launch_settings(self.config.raw)
        return launching.plan_launch(self.snapshot(), settings, self.root, sess_id, tmux=tmux,
                                     liveness=self.agents.liveness())

    def launch(self, sess_id: str, *, tmux: bool | None = None) -> launching.LaunchRecord:
        """Start an agent for an open claim: a new tmux window, or (no tmux) this very process.

        Under the writer lock, so two launchers never both take the last of the `MAX_RUNNING` slots.
        Without tmux the current process becomes the agent and this never returns.
        """
        with self.locked():
            plan = self.launch_plan(sess_id, tmux=tmux)
            started_at = self.now().isoformat(timespec="seconds")
            if plan.tmux:
                record = launching.start_tmux(plan, brain_name=self.brain_name, started_at=started_at)
                launching.write_record(self.root, record)
                return record
        launching.exec_here(plan, self.root, started_at)

    def running_launches(self) -> list[launching.LaunchRecord]:
        """The launched agents still running from this brain on this machine."""
        return launching.running(self.root)

    def live_sessions(self, snapshot: BrainSnapshot | None = None) -> dict[str, LiveSession]:
        """Each live claim's agent: state, last tool activity, last commit by it, its launch (SPEC 20.4).

        Args:
            snapshot: the claims to look at (default: a fresh read of the blocking ones). Given one,
                nothing here touches the store, so a thread may call it.

        Returns:
            ``{sess_id: LiveSession}`` for the non-terminal claims with a bound agent or a running launch.
        """
        if snapshot is None:
            snapshot = self.snapshot(only_statuses=BLOCKING_STATUSES)
        return live_sessions(self.root, snapshot, self.agents.liveness(), launching.running(self.root))

    def check_launch_settings(self) -> None:
        """Raise NoLaunchCommand (64) or InvalidData (65) unless `launch.command` is configured and usable."""
        launching.check_settings(launching.launch_settings(self.config.raw))

    def attach_command(self, sess_id: str, *, current_tmux: str | None) -> launching.AttachCommand:
        """The tmux command that shows the window of `sess_id`'s launched agent (`current_tmux`: the caller's $TMUX)."""
        return launching.attach_command(launching.find_running(self.root, sess_id), current_tmux=current_tmux)

    def open_handoff(self, sig_id: str, by: str | None = None) -> str:
        """Open the claim a HANDOFF signal asks for and acknowledge the signal, in one commit.

        Returns:
            The new claim's ID (launch it with `launch`).
        """
        actor = by or self.human()

        def decide(cs: ChangeSet) -> str:
            signal = signals.require_signal(cs.snapshot, sig_id)
            req = launching.handoff_request(cs.snapshot, signal, self.instance, self.config.ttl_default)
            new_id = protocol.open_claim(cs, req)
            signals.ack_signal(cs, sig_id, actor)
            cs.message = f"bsi: open satellite {new_id} (handoff {sig_id})"
            return new_id

        return self.mutate(decide)


class BrainRemote:
    """`brain.remote`: the git remote (`core.remote`) joined with the protocol's reconciliation.

    The remote moves commits; before it rebases, a local claim whose ID another
    machine pushed first takes a fresh ID; after, a local claim that lost its
    scope is marked failed (`core.reconcile`). Every step runs under the brain lock.
    """

    def __init__(self, brain: Brain) -> None:
        self._brain = brain
        self._lost: list[reconcile.LostClaim] = []
        self._renamed: list[reconcile.Renamed] = []
        self._regenerate = False

    def has_remote(self) -> bool:
        """True when the brain has an `origin` remote."""
        return remote.has_remote(self._brain.root)

    def status(self) -> remote.SyncStatus:
        """Where the brain stands against its remote, from local git state only (no network)."""
        b = self._brain
        return remote.status(b.root, b.config.sync, b.config.fetch_interval_s)

    def fetch(self) -> bool:
        """Only `git fetch` (the read-only cockpit): False without a remote or a branch."""
        root = self._brain.root
        branch = gitops.current_branch(root)
        if not branch or not remote.has_remote(root):
            return False
        remote.fetch(root, branch)
        return True

    def pull(self) -> SyncReport:
        """Fetch and integrate the remote tip, reconcile, regenerate the index when it moved."""
        b = self._brain
        self._start(regenerate=False)
        rebased = remote.pull(b.root, b.locked, self)
        return SyncReport(fetched=True, rebased=rebased, lost=tuple(self._lost), renamed=tuple(self._renamed))

    def sync(self) -> SyncReport:
        """`bsi sync`: fetch, rename clashing IDs, rebase, mark lost claims, regenerate the index, push."""
        b = self._brain
        b.refuse_broken_config()
        self._start(regenerate=True)
        done = remote.sync(b.root, b.locked, self, lambda: b.now().isoformat())
        return SyncReport(fetched=done.fetched, rebased=done.rebased, pushed=done.pushed, ahead=done.ahead,
                          behind=done.behind, tries=done.tries, lost=tuple(self._lost),
                          renamed=tuple(self._renamed), last_sync=done.last_sync)

    def write(self, decide: Callable[[ChangeSet], T]) -> T:
        """One mutating action through fetch → re-check on the fetched tree → commit → push (SPEC 11)."""
        b = self._brain
        self._start(regenerate=False)
        results: list[T] = []
        refused: list[BsiError] = []

        def attempt() -> remote.Staged:
            results.clear()
            refused.clear()
            try:
                results.append(b.mutate_local(decide))
            except BsiError as exc:
                if not getattr(exc, "commit_staged", False):
                    raise
                refused.append(exc)
            applied = b.last_applied
            return remote.Staged(tuple(applied.paths) if applied else (), bool(applied and applied.commit))

        remote.write_through(b.root, b.locked, self, attempt)
        remote.record(b.root, b.now().isoformat(), pending=False)
        if refused:
            raise refused[0]
        return results[0]

    def _start(self, regenerate: bool) -> None:
        self._lost, self._renamed, self._regenerate = [], [], regenerate

    # -- the reconciler the remote calls -----------------------------------------------------
    def before_integrate(self, branch: str) -> None:
        """Local, unpushed claims whose ID the remote already holds take a fresh ID (SPEC 4)."""
        root = self._brain.root
        clashes: dict[str, str] = {}
        local = sorted(remote.local_added_claims(root, branch))
        for sess_id in local:
            rel = f"claims/{sess_id}.yml"
            theirs = remote.remote_file(root, branch, rel)
            if theirs is not None and theirs != remote.file_at(root, "HEAD", rel):

                def taken(candidate: str) -> bool:
                    rel_new = f"claims/{candidate}.yml"
                    return (candidate in clashes.values() or (root / rel_new).exists()
                            or remote.remote_file(root, branch, rel_new) is not None)

                clashes[sess_id] = reconcile.fresh_id(sess_id, taken)
        if not clashes:
            return
        touched = {f"claims/{i}.yml": f"claims/{clashes.get(i, i)}.yml" for i in local}

        def rename_all(text: str) -> str:
            for old, new in clashes.items():
                text = reconcile.rename_text(text, old, new)
            return text

        def edit(rel: str, text: str) -> tuple[str, str] | None:
            new_text = rename_all(text)
            return None if new_text == text and touched[rel] == rel else (touched[rel], new_text)

        remote.rewrite_local(root, branch, edit, rename_all, touched)
        self._renamed.extend(reconcile.Renamed(old, new) for old, new in clashes.items())

    def after_integrate(self, branch: str, rebased: bool) -> None:
        """A local claim that lost its scope to a remote one is marked failed; the index follows."""
        b = self._brain
        local = remote.local_added_claims(b.root, branch)
        lost = reconcile.lost_claims(b.store.snapshot(b.now()), local) if local else []
        if lost:
            b.mutate_local(lambda cs: reconcile.mark_lost(cs, lost))
            self._lost.extend(lost)
        if rebased or self._regenerate or self._renamed:
            b.regenerate_index_local("bsi: regenerate index after sync")


def _texts_before(root: Path, rels: Collection[str]) -> dict[str, bytes | None]:
    """The bytes of each file before a write (None: absent), to put back if the commit fails."""
    return {rel: (root / rel).read_bytes() if (root / rel).is_file() else None for rel in dict.fromkeys(rels)}


def _restore(root: Path, before: dict[str, bytes | None]) -> None:
    """Put files back as `_texts_before` found them."""
    for rel, data in before.items():
        target = root / rel
        if data is None:
            target.unlink(missing_ok=True)
        else:
            target.write_bytes(data)


def _chain_complete(snapshot: BrainSnapshot, sess_id: str) -> bool:
    """True when `sess_id` and every ancestor it names are in `snapshot` (a cycle ends the chain)."""
    current = snapshot.claim(sess_id)
    seen = {sess_id}
    while current is not None:
        if not current.parent or current.parent in seen:
            return True
        seen.add(current.parent)
        current = snapshot.claim(current.parent)
    return False


def _legacy_signal_time(sig_id: str) -> str | None:
    """A creation date for an imported legacy signal, from its ID (`sig-YYYYMMDD-…`)."""
    parts = sig_id.split("-")
    if len(parts) >= 2 and len(parts[1]) == 8 and parts[1].isdigit():
        day = parts[1]
        clock = parts[2] if len(parts) >= 3 and len(parts[2]) == 6 and parts[2].isdigit() else "000000"
        return f"{day[:4]}-{day[4:6]}-{day[6:]}T{clock[:2]}:{clock[2:4]}:{clock[4:]}"
    return None


def make_folder(root: Path) -> None:
    """Create `root` (and its parents) for a new brain.

    Raises:
        InvalidData: it exists as a file, or cannot be created (exit 65, one line).
    """
    if root.exists() and not root.is_dir():
        raise InvalidData(f"{root} exists and is not a folder: give a folder for the brain")
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".bsi-probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise InvalidData(f"cannot make a brain at {root}: {exc.strerror or exc}") from None


def init_brain(path: str | os.PathLike[str], commit: bool = True) -> Path:
    """`bsi init`: create the layout, `git init` when needed, ignore `.brain/`, commit it.

    Returns:
        The brain's path.
    """
    root = Path(path).expanduser().resolve()
    make_folder(root)
    for name in (*DATA_DIRS, STATE_DIR):
        if (root / name).exists() and not (root / name).is_dir():
            raise InvalidData(f"{root / name} exists and is not a folder: a brain needs {name}/ there; "
                              "move that file away, then run `bsi init` again")
    if (root / INDEX_FILE).exists() and not (root / INDEX_FILE).is_file():
        raise InvalidData(f"{root / INDEX_FILE} is not a file: move it away, then run `bsi init` again")
    created: list[str] = []
    if not gitops.is_repository(root):
        gitops.run_git(root, "init", "--quiet")
    for folder in DATA_DIRS:
        (root / folder).mkdir(exist_ok=True)
        keep = root / folder / ".gitkeep"
        if not keep.exists():
            keep.write_text("")
            created.append(f"{folder}/.gitkeep")
    ignore = root / ".gitignore"
    lines = ignore.read_text(encoding="utf-8").splitlines() if ignore.exists() else []
    if ".brain/" not in lines and ".brain" not in lines:
        lines.append(".brain/")
        atomic_write_text(ignore, "\n".join(lines) + "\n")
        created.append(".gitignore")
    brain = Brain(root, commit=False)
    with brain.locked():
        _, index_paths = brain._refresh_index()
    created.extend(index_paths)
    if commit and created:
        gitops.commit_paths(root, created, "bsi: init brain", brain.now())
    return root
