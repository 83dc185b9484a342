"""`brain.remote`: the git-only remote (core/sync/remote.py) joined with the protocol's reconciliation.

A typed sub-object of the `Brain` facade, like `brain.gates` (core/facade.py). The remote knows nothing
of `Brain` or of claims; it calls back into the `BrainRemote` below (`before_integrate`,
`after_integrate`), which applies the rules of core/rules/reconcile.py through the brain's own write path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from brain_tui.core import ids
from brain_tui.core.errors import BsiError, RemoteUnreachable
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.rules import reconcile
from brain_tui.core.rules.reconcile import SyncReport
from brain_tui.core.sessions.rebind import rebind_renamed, record_renames
from brain_tui.core.sync import gitops, remote, remote_history, remote_state

if TYPE_CHECKING:
    from brain_tui.core.brain import Brain

T = TypeVar("T")


class BrainRemote:
    """`brain.remote`: the git remote (`core.remote`) joined with the protocol's reconciliation.

    The remote moves commits; before it rebases, a local claim whose ID another machine pushed first takes a fresh ID;
    after, a local claim that lost its scope is marked failed (`rules.reconcile`). Every step runs under the brain lock.
    """

    def __init__(self, brain: Brain) -> None:
        self._brain = brain
        self._lost: list[reconcile.LostClaim] = []
        self._renamed: list[reconcile.Renamed] = []
        self._dropped: list[str] = []
        #: what settling the pauses a stalled git held back told (`write_path.settle_held_back`)
        self._notes: list[str] = []
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
        run = self._run(regenerate=False)
        rebased = remote.pull(b.root, b.locked, run)
        return SyncReport(fetched=True, rebased=rebased, lost=tuple(run._lost), renamed=tuple(run._renamed),
                          dropped=tuple(run._dropped), notes=tuple(run._notes))

    def sync(self) -> SyncReport:
        """`bsi sync`: fetch, rename clashing IDs, rebase, mark lost claims, regenerate the index, push."""
        b = self._brain
        b.refuse_unsafe_write()
        run = self._run(regenerate=True)
        done = remote.sync(b.root, b.locked, run, lambda: b.now().isoformat())
        return SyncReport(fetched=done.fetched, rebased=done.rebased, pushed=done.pushed, ahead=done.ahead,
                          behind=done.behind, tries=done.tries, lost=tuple(run._lost),
                          renamed=tuple(run._renamed), dropped=tuple(run._dropped), last_sync=done.last_sync,
                          notes=tuple(run._notes))

    def write(self, decide: Callable[[ChangeSet], T], brake: bool = False) -> T:
        """One mutating action through fetch → re-check on the fetched tree → commit → push (SPEC 11).

        `brake` (a human's pause, `write_path.mutate`): a push that got no answer, the remote unable to say whether it
        landed, leaves the pause committed here and pending (`remote.write_through`): that is told in the result's
        warnings and the result returned, not RemoteUnreachable (the brake is in force; the next sync settles it).
        """
        b = self._brain
        run = self._run(regenerate=False)
        results: list[T] = []
        refused: list[BsiError] = []

        def attempt() -> remote.Staged:
            results.clear()
            refused.clear()
            try:
                results.append(b.mutate_local(decide))
            except BsiError as exc:
                if not exc.commit_staged:
                    raise
                refused.append(exc)
            applied = b.last_applied
            return remote.Staged(tuple(applied.paths) if applied else (), bool(applied and applied.commit))

        try:
            remote.write_through(b.root, b.locked, run, attempt, lambda: b.now().isoformat())
        except RemoteUnreachable as exc:
            if not (brake and exc.kept and results and b.last_applied is not None and b.last_applied.commit):
                raise
            b.last_applied.warnings.append(f"the pause is committed here, in force; {exc.message}")
            return results[0]
        remote_state.record(b.root, b.now().isoformat(), pending=False)
        if b.last_applied is not None:  # what the sync before this write settled away is told with it
            b.last_applied.warnings.extend(
                [f"lost while offline: {item.sess_id} on {item.scope}; marked failed" for item in run._lost]
                + [reconcile.dropped_warning(subject) for subject in run._dropped] + run._notes)
        if refused:
            raise refused[0]
        return results[0]

    def _run(self, regenerate: bool) -> BrainRemote:
        """The reconciler of one pull, sync or synced write: what it settles away is its own (`bsi mcp` runs tool
        calls side by side on one Brain; a call begun meanwhile must neither empty nor add to another's report).

        First, under the lock, the pauses a stalled git held back are committed if git is idle now: they go out with
        what follows, and a rebase never moves a work-tree file of theirs back to HEAD's."""
        from brain_tui.core import write_path

        run = BrainRemote(self._brain)
        run._regenerate = regenerate
        with self._brain.locked():
            run._notes = write_path.settle_held_back(self._brain)
        return run

    # -- the reconciler the remote calls -----------------------------------------------------
    def before_integrate(self, branch: str) -> None:
        """Local, unpushed claims whose ID the remote already holds take a fresh ID (SPEC 4)."""
        root = self._brain.root
        clashes: dict[str, str] = {}
        local = sorted(remote_history.local_added_claims(root, branch))
        for sess_id in local:
            rel = f"claims/{sess_id}.yml"
            theirs = remote_history.remote_file(root, branch, rel)
            if theirs is not None and theirs != remote_history.file_at(root, "HEAD", rel):

                def taken(candidate: str) -> bool:
                    rel_new = f"claims/{candidate}.yml"
                    return (candidate in clashes.values() or (root / rel_new).exists()
                            or remote_history.remote_file(root, branch, rel_new) is not None)

                clashes[sess_id] = reconcile.fresh_id(sess_id, taken)
        if not clashes:
            return
        touched = {f"claims/{i}.yml": f"claims/{clashes.get(i, i)}.yml" for i in local}

        def rename_all(text: str) -> str:
            for old, new in clashes.items():
                text = ids.rename_text(text, old, new)
            return text

        def edit(rel: str, text: str) -> tuple[str, str] | None:
            new_text = rename_all(text)
            return None if new_text == text and touched[rel] == rel else (touched[rel], new_text)

        record_renames(root, clashes)  # first: a kill in the rewrite leaves no binding on the other machine's ID
        remote_history.rewrite_local(root, branch, edit, rename_all, touched)
        rebind_renamed(root, clashes)  # the old ID is the other machine's claim now: this one's agent follows
        self._renamed.extend(reconcile.Renamed(old, new) for old, new in clashes.items())

    def after_integrate(self, branch: str, done: remote.Integrated) -> None:
        """A local claim (unpushed, or not even committed) that lost its scope to a remote one is marked failed; the
        index follows. The local writes the rebase dropped are kept for the report."""
        from brain_tui.core.records import written

        b = self._brain
        rebased = done.rebased
        self._dropped.extend(done.dropped)
        local = remote_history.local_added_claims(b.root, branch) | remote_history.uncommitted_new_claims(b.root)
        # the claims that can block (and their parent chains): a claim no longer blocking cannot have lost (SPEC 22)
        lost = reconcile.lost_claims(written.decision_snapshot(b.store, b.now()), local) if local else []
        if lost:
            b.mutate_local(lambda cs: reconcile.mark_lost(cs, lost))
            self._lost.extend(lost)
        if rebased or self._regenerate or self._renamed:
            b.regenerate_index_local("bsi: regenerate index after sync")

