"""The write path of a `Brain`: the writer lock, one mutating action under it, and applying what it staged
(write the files, refresh BRAIN-INDEX.md, commit), all or nothing (SPEC 22, `records.journal`).

Imported by `core.brain` on every command, so it loads nothing heavy at import: ruamel, git and the journal
are imported by the functions that write.
"""

from __future__ import annotations

import fcntl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from brain_tui.core.errors import BsiError
from brain_tui.core.paths.layout import (
    DATA_DIRS,
    HELD_BACK_RECORD,
    INDEX_FILE,
    LOCK_FILE,
    REBASE_MARK,
    STATE_DIR,
    journal_pending,
)
from brain_tui.core.record import field, record
from brain_tui.core.records.state_json import open_lock

if TYPE_CHECKING:
    from pathlib import Path

    from brain_tui.core.brain import Brain
    from brain_tui.core.records.changes import ChangeSet
    from brain_tui.core.records.model import BrainSnapshot
    from brain_tui.core.sync.git_state import Stall

T = TypeVar("T")


@record(frozen=False)
class Applied:
    """What `Brain.apply` did."""

    paths: list[str] = field(default_factory=list)
    commit: str | None = None
    #: the brain after the write (the snapshot decided on plus the files written), when it could be built.
    snapshot: BrainSnapshot | None = None
    imported_signals: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


#: The Brain objects each thread holds the writer lock of (by `id`): re-entrance is the holder thread's only.
_HELD = threading.local()
#: Per brain root, the lock a thread of this process takes before the `flock` (`flock` serialises processes only).
_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


def _thread_lock(brain: Brain) -> threading.Lock:
    with _THREAD_LOCKS_GUARD:
        return _THREAD_LOCKS.setdefault(str(brain.root), threading.Lock())


@contextmanager
def locked(brain: Brain, reentrant: bool = True) -> Iterator[None]:
    """Hold the local writer lock (`flock` on `.brain/lock`; the kernel frees it if we die).

    Re-entrant within one Brain object for the thread holding it (a synced write holds it across the
    whole fetch → decide → push cycle and writes inside it). Another thread of the process waits like
    another process does: an MCP server runs the tool calls a client sends together in worker threads.
    """
    held: set[int] | None = getattr(_HELD, "brains", None)
    if held is None:
        held = _HELD.brains = set()
    if reentrant and brain._lock_depth and id(brain) in held:
        brain._lock_depth += 1
        try:
            yield
        finally:
            brain._lock_depth -= 1
        return
    brain.require_present()  # a folder deleted under a long-lived Brain (an MCP server): not found, no crash
    state = brain.root / STATE_DIR
    state.mkdir(exist_ok=True)
    gate, patience, began = _thread_lock(brain), brain.lock_patience, time.monotonic()
    if not gate.acquire(timeout=-1 if patience is None else patience):  # another call of this process writes
        raise _held_too_long(state / LOCK_FILE, patience or 0.0)
    try:
        with open_lock(state / LOCK_FILE) as handle:  # the patience is the whole wait's: the gate's time is spent
            _take(handle.fileno(), brain.on_lock_wait, state / LOCK_FILE, patience, began)
            brain._lock_depth = 1
            held.add(id(brain))
            try:
                yield
            finally:
                held.discard(id(brain))
                brain._lock_depth = 0
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    finally:
        gate.release()


#: How long a write waits on the writer lock before it tells who holds it: a bsi write holds it for less.
_LOCK_PATIENCE_S = 1.0


def _take(fd: int, tell: Callable[[str], None] | None, lock: Path, patience: float | None = None,
          began: float | None = None) -> None:
    """Take the writer lock, waiting as long as it takes (the kernel frees it when its holder dies); with `tell`,
    a wait past `_LOCK_PATIENCE_S` is told once, naming who holds it (any process may hold it: an agent's program
    too, keeping a human's pause waiting until a person ends it). With `patience` (seconds), a wait that long
    refuses instead (`Contended`, 75: retryable), nothing written: an MCP server has no one to tell while it waits.
    The wait is counted from `began` (`time.monotonic()`; default now): the time spent at the thread gate is spent.
    """
    if tell is None and patience is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    start = time.monotonic() if began is None else began
    told = tell is None
    while not _took(fd):
        waited = time.monotonic() - start
        if not told and waited >= _LOCK_PATIENCE_S:
            told = True
            _say_waiting(tell, lock)
            if patience is None:
                fcntl.flock(fd, fcntl.LOCK_EX)
                return
        if patience is not None and waited >= patience:
            raise _held_too_long(lock, patience)
        time.sleep(0.05)


def _held_too_long(lock: Path, patience: float) -> BsiError:
    """The refusal of a write whose wait on the writer lock outlasted its `patience` (75, retryable)."""
    from brain_tui.core.errors import Contended
    from brain_tui.core.records.lock_holders import held_too_long

    return Contended(held_too_long(lock, patience))


def _took(fd: int) -> bool:
    """Whether the writer lock was free, and is ours now."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _say_waiting(tell: Callable[[str], None] | None, lock: Path) -> None:
    """Tell who holds the writer lock; a note that cannot be said (stderr closed: a broken pipe) never stops the
    write, a pause least of all."""
    import contextlib

    from brain_tui.core.records.lock_holders import waiting_note

    if tell is not None:
        with contextlib.suppress(OSError, ValueError):
            tell(waiting_note(lock))


def mutate(brain: Brain, decide: Callable[[ChangeSet], T], brake: bool = False) -> T:
    """`Brain.mutate`: one mutating action, through the git remote when the brain syncs (SPEC 11), else local
    (`mutate_local`); offline, the local commit is remembered as pending for the next sync.

    A `brake` (a human's pause) waits for nothing: neither git (`mutate_local`), nor the remote — one that cannot take
    it now (unreachable, missing, rejecting, contended, a fetch that cannot be brought in, any other git failure on
    its way: a remote history sharing none with this clone, a push the guard stops)
    leaves it committed here and pending, said in the result's warnings in the pause's own words (`brake.not_pushed`:
    never the refusal's "taken back"); the local write decides again, so a refusal
    of the pause itself still refuses; a push whose answer never came leaves its one commit pending, said too
    (`BrainRemote.write`) — nor a brain-compose.yml that does not parse (committed here only, said too; pending when
    the brain was set to sync, as `--sync` or the last commit's copy says: `brake.set_to_sync_at_head`). The brake is
    a human's: handed in by an agent, it refuses (77) before anything (`refuse_agents_brake`).
    """
    from brain_tui.core.errors import Contended, InvalidData, RemoteUnreachable
    from brain_tui.core.sync import remote_state
    from brain_tui.core.sync.git_state import stall
    from brain_tui.core.sync.gitops import GitError

    if brake:
        refuse_agents_brake()
    told: list[str] = []
    try:
        brain.refuse_unsafe_write()
    except InvalidData as exc:
        if not brake:
            raise
        told.append(f"{exc.message.split('; nothing was written')[0]}: the pause is committed here only")
    from brain_tui.core.sync.brake import not_pushed, set_to_sync_at_head

    pending = brain.sync_mode == "offline" or bool(told) and (brain.sync_mode == "sync" or (
        brain.commit_enabled and brain.is_git() and set_to_sync_at_head(brain.root)))
    if told:  # what to do next: every other write is refused until the file parses
        told[0] += ", not synced: fix the file, then `bsi sync` pushes it" if pending else \
            ": fix the file (every other write is refused until then)"
    if not told and brain.sync_mode == "sync" and brain.commit_enabled and not (brake and stall(brain.root,
                                                                                                commits=True)):
        try:
            return brain.remote.write(decide, brake)
        except (RemoteUnreachable, Contended, GitError, InvalidData) as exc:  # any git failure on the remote's way
            if not brake or getattr(exc, "kept", False):
                raise
            told.append(not_pushed(exc))
            pending = True
    result = mutate_local(brain, decide, "told" if told else brake)
    applied = brain.last_applied
    if applied is not None:
        applied.warnings[:0] = told
        if pending and applied.commit:
            remote_state.record(brain.root, brain.now().isoformat(), pending=True)
    return result


def mutate_local(brain: Brain, decide: Callable[[ChangeSet], T], brake: bool | str = False) -> T:
    """Run one mutating action under the local lock and apply what it staged.

    `brake` "told": the caller already judged brain-compose.yml and told why the brake goes on (`mutate`).

    While git cannot commit (an operation stopped halfway, a detached HEAD: `git_state.stall`) a write is refused
    (exit 20, 25), but a `brake` (a human's pause): it is written to the work tree, in force there at once, and
    committed by the first write that finds git idle again (`records.held_back`), before that write's own commit.

    `decide` gets a ChangeSet over one read of the brain (`records.written.decision_snapshot`: the claims that can block
    and the last 30 days' history) and stages writes; an action that needed a claim that read skipped is decided again
    on the whole brain. If it raises a BsiError marked `commit_staged`, what it staged (e.g. a signal) is still applied
    before the error propagates; any other error writes nothing.
    """
    from brain_tui.core.records import written
    from brain_tui.core.records.journal import recover_writes
    from brain_tui.core.records.yamlio import sweep_dead_temps, sweep_temp_files
    from brain_tui.core.sync import git_state, remote

    if brake:
        refuse_agents_brake()
    if brake != "told":
        brain.refuse_unsafe_write()
    with brain.locked():
        killed = journal_pending(brain.root) or (brain.root / STATE_DIR / REBASE_MARK).exists()
        remote.recover(brain.root)
        recover_writes(brain.root)
        stalled = git_state.stall(brain.root, commits=brain.commit_enabled)
        if stalled is not None and not brake:
            raise stalled.error()
        notes = _settle(brain, bool(brake)) if stalled is None else []
        # A temp file is left only by a process killed mid-write, and every write to the data folders
        # runs under the journal or the rebase mark: listing claims/ (the whole history) on every write
        # is needed only after such a kill. The brain's top folder is small: always.
        sweep_temp_files([brain.root / d for d in DATA_DIRS] + [brain.root] if killed else [brain.root])
        sweep_dead_temps(brain.root / STATE_DIR)  # a read killed while it stored the closed set or a cache
        now = brain.now()
        snapshot = written.decision_snapshot(brain.store, now)
        cs, result, error = _decide(snapshot, decide)
        if written.needs_whole_brain(snapshot, cs.staged_paths()):
            cs, result, error = _decide(brain.store.snapshot(now), decide)
        if error is not None:
            if error.commit_staged and not cs.empty:
                brain.last_applied = apply(brain, cs, stalled)
            raise error
        brain.last_applied = _apply_brake(brain, cs, stalled) if brake else apply(brain, cs, stalled)
        brain.last_applied.warnings[:0] = notes
        return result  # type: ignore[return-value]


def _settle(brain: Brain, brake: bool) -> list[str]:
    """`settle_held_back`; for a brake, git failing to commit what it holds never stops the pause: they stay held."""
    from brain_tui.core.sync.gitops import GitError

    try:
        return settle_held_back(brain)
    except GitError as exc:
        if not brake:
            raise
        return [f"the writes held back are still not committed: {exc.reason}"]


def _apply_brake(brain: Brain, cs: ChangeSet, stalled: Stall | None) -> Applied:
    """`apply` for a human's pause: when git is idle but its commit fails all the same (a signing setting an agent's
    program wrote, an index git cannot read), the write rolled back whole is made again, held back as while git is
    stalled (`records.held_back`): the brake never waits for git. A failure that left a roll-back unfinished, or
    moved HEAD, is raised as it is."""
    from brain_tui.core.records.git_head import head_commit
    from brain_tui.core.sync.git_state import Stall
    from brain_tui.core.sync.gitops import GitError

    if stalled is not None or not brain.commit_enabled or not brain.is_git():
        return apply(brain, cs, stalled)
    before = head_commit(brain.root)
    try:
        return apply(brain, cs, stalled)
    except GitError as exc:
        if journal_pending(brain.root) or head_commit(brain.root) != before:
            raise
        failed = Stall(f"git could not commit ({exc.reason.removeprefix('git commit failed: ')})",
                       "a `git commit` of yours shows why", kind="commit-failed")
        return apply(brain, cs, failed)


def refuse_agents_brake() -> None:
    """The brake's way past a stalled git, the remote and a brain-compose.yml that does not parse is a human's pause's
    only (SPEC 21.2): a `brake` handed to the write path in an agent's process, or by an MCP server's agent, refuses
    (`HumanOnly`, 77) before anything, whatever the write (`Gates.pause` refused such a pause already)."""
    from brain_tui.core.rules.authority import require_human
    from brain_tui.core.rules.own_writes import acting

    require_human("pause", "ID", acting())


def settle_held_back(brain: Brain) -> list[str]:
    """Under the writer lock: commit the pauses a stalled git held back, when git is idle now (`records.held_back`);
    the lines to tell of any undone meanwhile. Nothing with `--no-commit`, or while git is still stalled. In an
    agent's process (an MCP write) a pause that cannot be committed is left for a human's command to settle: the
    news that a human's decision is gone is the human's, not the agent's tool result's."""
    from brain_tui.core.records import held_back
    from brain_tui.core.sync import git_state

    if not brain.commit_enabled or not held_back.held_back(brain.root) or not brain.is_git():
        return []
    if git_state.stall(brain.root, commits=True) is not None:
        return []
    from brain_tui.core.records.formats import claim_from_mapping, parse_claim_bytes
    from brain_tui.core.records.model import Claim
    from brain_tui.core.records.yamlio import CorruptYaml

    store = brain.store

    def read_claim(data: bytes, rel: str) -> Claim | None:
        try:
            claim = claim_from_mapping(parse_claim_bytes(data), rel, brain.root, store.tz, store.config.ttl_default,
                                       store._scope)
        except (CorruptYaml, ValueError):
            return None
        return claim if isinstance(claim, Claim) else None

    from brain_tui.core.rules.own_writes import writer

    keep = writer(brain.root).is_agent
    return held_back.commit_held_back(brain.root, brain.now(), read_claim, keep_undone=keep)


def _decide(snapshot: BrainSnapshot, decide: Callable[[ChangeSet], T]) -> tuple[ChangeSet, T | None, BsiError | None]:
    """One run of `decide` over a ChangeSet on `snapshot`: (the ChangeSet, its result, the refusal it raised)."""
    from brain_tui.core.records.changes import ChangeSet

    cs = ChangeSet(snapshot)
    try:
        return cs, decide(cs), None
    except BsiError as exc:
        return cs, None, exc


def apply(brain: Brain, cs: ChangeSet, stalled: Stall | None = None) -> Applied:
    """Write, index, commit: all or nothing (SPEC 22); a failure puts every file back (`records.journal`).

    `stalled`: git cannot commit now (`mutate_local`'s brake): the files are written and recorded to be committed
    once git is idle (`records.held_back`), and the result says so in its warnings."""
    from brain_tui.core.paths.text_safety import inert_block
    from brain_tui.core.records.journal import writing
    from brain_tui.core.rules.last_door import refuse_at_the_door
    from brain_tui.core.sync import gitops

    applied, rendered = Applied(), cs.render()
    refuse_at_the_door(brain.root, cs.snapshot, rendered, cs.derived)
    # brain text (a locked file's name) reaches `git log` as it is: the message is made inert before the journal,
    # a held-back record or the commit carry it, so all three hold the same text (SPEC 15)
    cs.message = inert_block(cs.message or "bsi: update")
    git = brain.commit_enabled and brain.is_git() and stalled is None
    landed: list[tuple[str, str]] = []
    # a write held back records itself inside its journal entry: a kill before it finishes rolls the record back too
    held = [HELD_BACK_RECORD] if stalled is not None and brain.commit_enabled else []
    with writing(brain.root, [*rendered, INDEX_FILE, *held], cs.message, git) as entry:
        _write_files(brain, cs.snapshot, rendered, applied, entry.cover)
        entry.cover(applied.paths)
        if git and applied.paths:
            # BRAIN-INDEX.md too when this write rendered it as it was: an earlier uncommitted write may have left
            # it so, and HEAD's copy would drift (committing it unchanged from HEAD changes nothing)
            index_too = INDEX_FILE not in applied.paths and (brain.root / INDEX_FILE).is_file()
            paths = [*applied.paths, INDEX_FILE] if index_too else applied.paths
            applied.commit = gitops.commit_paths(brain.root, paths, cs.message, brain.now(),
                                                 landed=lambda parent, commit: landed.append((parent, commit)))
        elif stalled is not None and brain.commit_enabled and applied.paths:
            from brain_tui.core.records import held_back
            from brain_tui.core.records.git_head import head_commit

            held_back.record(brain.root, cs.message, [*applied.paths, INDEX_FILE], head_commit(brain.root))
            applied.warnings.append(stalled.held_note())
        elif brain.commit_enabled and applied.paths:
            applied.warnings.append(f"{brain.root} is not a git repository: change not committed")
    if landed and brain.store.files.persist:
        # The write made HEAD's move itself: the saved closed sets follow it (the next read needs no diff).
        from brain_tui.core.records.closed_advance import advance

        advance(brain.root, brain.store.tz, *landed[0], applied.paths)
    return applied


def _write_files(brain: Brain, decided_on: BrainSnapshot, rendered: dict[str, str | None], applied: Applied,
                 cover: Callable[[list[str]], None]) -> None:
    from brain_tui.core.records import written
    from brain_tui.core.records.yamlio import atomic_write_text

    for rel, text in rendered.items():
        target = brain.root / rel
        if text is None:
            # A file the work tree lost already (a lock file deleted by hand) is still git's until this commit.
            target.unlink(missing_ok=True)
            applied.paths.append(rel)
        else:
            atomic_write_text(target, text)
            applied.paths.append(rel)
    # The brain after the write, from the snapshot decided on and the texts just written: no second read.
    applied.snapshot = written.after_write(decided_on, rendered)
    applied.imported_signals, index_paths = refresh_index(brain, applied.snapshot, cover)
    applied.paths.extend(index_paths)


def refresh_index(brain: Brain, current: BrainSnapshot | None = None,
                  cover: Callable[[list[str]], None] | None = None) -> tuple[list[str], list[str]]:
    """Import legacy signal rows once, then regenerate the generated block of BRAIN-INDEX.md.

    `current` is the brain as it is now, when the caller holds it (the snapshot after a write); else it is read (the
    live claims and the 30-day history: all the index shows). A legacy import reads it again. `cover` is the write's
    journal entry's `cover`: told each imported file before it is written.
    """
    from brain_tui.core.records import index_file, written

    pending = [current]

    def take() -> BrainSnapshot:
        held = pending.pop() if pending else None
        return held if held is not None else written.index_snapshot(brain.store, brain.now())

    if cover is None:
        return index_file.refresh(brain.root, take, brain.display_tz)
    return index_file.refresh(brain.root, take, brain.display_tz, cover)


def regenerate_index(brain: Brain, mutate: Callable[[Callable[[ChangeSet], None]], None], message: str) -> Applied:
    """Import legacy rows and regenerate BRAIN-INDEX.md through `mutate` (the remote's or the local one)."""

    def decide(cs: ChangeSet) -> None:
        cs.message = message

    mutate(decide)
    assert brain.last_applied is not None
    return brain.last_applied
