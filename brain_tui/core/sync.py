"""Several machines, one brain: the git remote is the only arbiter (SPEC 11, DESIGN 5).

A synced write is one cycle, repeated until the push lands:

    fetch → bring the work tree to the remote tip (fast-forward, or rebase of
    local pending commits) → decide on that exact tree (the conflict check runs
    again) → commit on top → non-forced push.

A rejected push undoes the local commit (only the paths it wrote) and repeats
the cycle after a jittered backoff, at most `MAX_TRIES` times (then exit 75).
BRAIN-INDEX.md is never merged as text: a local merge driver keeps either side
and the index is regenerated after every rebase.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from brain_tui.core import gitops, protocol
from brain_tui.core.changes import ChangeSet
from brain_tui.core.errors import BsiError, Contended, RemoteUnreachable, UsageError
from brain_tui.core.yamlio import atomic_write_text

if TYPE_CHECKING:
    from brain_tui.core.brain import Applied, Brain

T = TypeVar("T")

MAX_TRIES = 8
REMOTE = "origin"
INDEX_DRIVER = "bsi-index"
SYNC_STATE = "sync.json"
_UNREACHABLE_HINTS = (
    "could not read from remote",
    "does not appear to be a git repository",
    "unable to access",
    "could not resolve host",
    "connection refused",
    "connection timed out",
    "no such file or directory",
    "repository not found",
)


@dataclass
class SyncReport:
    """What `bsi sync` did."""

    fetched: bool = False
    rebased: bool = False
    pushed: bool = False
    ahead: int = 0
    behind: int = 0
    tries: int = 0
    lost: list[dict[str, Any]] = field(default_factory=list)
    last_sync: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi sync --json`."""
        return {
            "fetched": self.fetched,
            "rebased": self.rebased,
            "pushed": self.pushed,
            "ahead": self.ahead,
            "behind": self.behind,
            "tries": self.tries,
            "lost": self.lost,
            "last_sync": self.last_sync,
        }


class PushRejected(Exception):
    """The remote moved between our fetch and our push."""


def _git_reason(stderr: str, default: str) -> str:
    """The telling line of git's error output (its `fatal:` line, else the first)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return line.split(":", 1)[1].strip()
    return lines[0] if lines else default


def _unreachable(stderr: str) -> bool:
    low = stderr.lower()
    return any(hint in low for hint in _UNREACHABLE_HINTS)


def has_remote(root: Path) -> bool:
    """True when the brain has an `origin` remote."""
    return gitops.run_git(root, "remote", "get-url", REMOTE, check=False).returncode == 0


def branch_of(root: Path) -> str:
    """The current branch (sync needs one; a detached HEAD is a usage error)."""
    branch = gitops.current_branch(root)
    if not branch:
        raise UsageError("sync needs a checked-out branch (HEAD is detached)")
    return branch


def _rev(root: Path, ref: str) -> str | None:
    proc = gitops.run_git(root, "rev-parse", "--verify", "--quiet", ref, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def fetch(root: Path, branch: str) -> bool:
    """Fetch the branch from origin.

    Returns:
        True when the remote has the branch, False when it does not exist there yet.

    Raises:
        RemoteUnreachable: no remote, or it cannot be reached (exit 69).
    """
    if not has_remote(root):
        raise RemoteUnreachable("no git remote 'origin' configured: add one, or work without --sync")
    proc = gitops.run_git(root, "fetch", "--quiet", REMOTE, check=False, timeout=60)
    if proc.returncode != 0:
        raise RemoteUnreachable(f"remote unreachable ({_git_reason(proc.stderr, 'fetch failed')}); "
                                "use --offline to record the change locally")
    return _rev(root, f"refs/remotes/{REMOTE}/{branch}") is not None


def counts(root: Path, branch: str) -> tuple[int, int]:
    """(ahead, behind) of HEAD against origin/branch, (0, 0) without an upstream."""
    upstream = f"refs/remotes/{REMOTE}/{branch}"
    if _rev(root, upstream) is None:
        ahead = gitops.run_git(root, "rev-list", "--count", "HEAD", check=False).stdout.strip()
        return (int(ahead or 0), 0)
    proc = gitops.run_git(root, "rev-list", "--left-right", "--count", f"HEAD...{upstream}", check=False)
    parts = proc.stdout.split()
    return (int(parts[0]), int(parts[1])) if len(parts) == 2 else (0, 0)


def ensure_index_driver(root: Path) -> None:
    """Never merge BRAIN-INDEX.md as text: a local driver keeps one side; we regenerate after."""
    gitops.run_git(root, "config", f"merge.{INDEX_DRIVER}.name", "BRAIN-INDEX.md is regenerated, never merged")
    gitops.run_git(root, "config", f"merge.{INDEX_DRIVER}.driver", "true")
    info = Path(gitops.run_git(root, "rev-parse", "--git-path", "info/attributes").stdout.strip())
    if not info.is_absolute():
        info = root / info
    line = f"BRAIN-INDEX.md merge={INDEX_DRIVER}"
    existing = info.read_text(encoding="utf-8").splitlines() if info.exists() else []
    if line not in existing:
        info.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(info, "\n".join([*existing, line]) + "\n")


def integrate(brain: Brain, branch: str) -> bool:
    """Bring HEAD onto the fetched remote tip. Call with the brain lock held.

    Fast-forward when there is nothing local; otherwise rebase the local pending
    commits (autostash keeps other sessions' uncommitted work). A rebase that
    stops on a conflict is aborted and reported.

    Returns:
        True when local commits were rebased.
    """
    root = brain.root
    upstream = f"{REMOTE}/{branch}"
    _abort_interrupted_rebase(root)
    if _rev(root, f"refs/remotes/{upstream}") is None:
        return False
    ahead, behind = counts(root, branch)
    if behind == 0:
        return False
    if ahead == 0:
        proc = gitops.run_git(root, "merge", "--ff-only", "--quiet", upstream, check=False)
        if proc.returncode != 0:
            raise BsiError(f"cannot fast-forward to {upstream}: {proc.stderr.strip().splitlines()[-1:]}; "
                           "commit or stash local edits to the same files, then run `bsi sync`")
        return False
    ensure_index_driver(root)
    proc = gitops.run_git(root, *gitops.identity_args(root), "rebase", "--autostash", "--quiet", upstream,
                          check=False, timeout=120)
    if proc.returncode != 0:
        gitops.run_git(root, "rebase", "--abort", check=False)
        raise BsiError(
            f"rebase onto {upstream} stopped on a conflict and was aborted; nothing was lost. "
            "Resolve by hand: `git pull --rebase`, fix the files, then `bsi index` and `bsi sync`"
        )
    return True


def _abort_interrupted_rebase(root: Path) -> None:
    """A rebase left behind by a killed sync (we hold the brain lock, so none is running): abort it."""
    for name in ("rebase-merge", "rebase-apply"):
        marker = gitops.run_git(root, "rev-parse", "--git-path", name).stdout.strip()
        if marker and (root / marker if not Path(marker).is_absolute() else Path(marker)).exists():
            gitops.run_git(root, "rebase", "--abort", check=False)
            return


def _undo(brain: Brain, head_before: str, applied: Applied) -> None:
    """Take back one local commit, touching only the paths it wrote."""
    root = brain.root
    gitops.run_git(root, "reset", "--soft", "--quiet", head_before)
    for rel in applied.paths:
        in_old = gitops.run_git(root, "cat-file", "-e", f"{head_before}:{rel}", check=False).returncode == 0
        if in_old:
            gitops.run_git(root, "checkout", head_before, "--", rel)
        else:
            gitops.run_git(root, "rm", "--cached", "--quiet", "--ignore-unmatch", "--", rel, check=False)
            (root / rel).unlink(missing_ok=True)


def push(root: Path, branch: str) -> None:
    """Non-forced push of HEAD to origin/branch.

    Raises:
        PushRejected: the remote moved (retry the cycle).
        RemoteUnreachable: the remote cannot be reached.
    """
    proc = gitops.run_git(root, "push", "--quiet", "--porcelain", REMOTE, f"HEAD:refs/heads/{branch}",
                          check=False, timeout=120)
    if proc.returncode == 0:
        return
    text = proc.stdout + proc.stderr
    if "[rejected]" in text or "non-fast-forward" in text or "fetch first" in text or "rejected" in text:
        raise PushRejected(text.strip())
    if _unreachable(text):
        raise RemoteUnreachable(f"remote unreachable on push ({_git_reason(text, 'push failed')})")
    raise BsiError(f"git push failed: {_git_reason(text, 'no reason given')}")


def record_sync(brain: Brain, pending: bool) -> str:
    """Remember the last sync time and whether local changes wait to be pushed (`.brain/sync.json`)."""
    state_dir = brain.root / ".brain"
    state_dir.mkdir(exist_ok=True)
    path = state_dir / SYNC_STATE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(state, dict):
            state = {}
    except (OSError, ValueError):
        state = {}
    stamp = brain.now().isoformat()
    if pending:
        state["pending_since"] = state.get("pending_since") or stamp
    else:
        state["last_sync"] = stamp
        state.pop("pending_since", None)
    atomic_write_text(path, json.dumps(state, sort_keys=True) + "\n")
    return stamp


def read_sync_state(root: Path) -> dict[str, Any]:
    """`.brain/sync.json` as a dict (empty when absent)."""
    try:
        state = json.loads((root / ".brain" / SYNC_STATE).read_text(encoding="utf-8"))
        return state if isinstance(state, dict) else {}
    except (OSError, ValueError):
        return {}


def _backoff(attempt: int) -> None:
    time.sleep(min(2.0, 0.05 * (2**attempt)) * (0.5 + random.random()))


def resolve_lost_claims(brain: Brain, branch: str) -> list[dict[str, Any]]:
    """After a rebase: a local pending claim that now conflicts with a remote one lost.

    The remote's claim was pushed first, so it holds the scope; the local one is
    marked `failed` with the reason and reported — never two holders silently.
    Call with the brain lock held.
    """
    root = brain.root
    upstream = f"{REMOTE}/{branch}"
    if _rev(root, f"refs/remotes/{upstream}") is None:
        return []
    added = gitops.run_git(root, "diff", "--name-only", "--diff-filter=A", upstream, "HEAD", "--",
                           "claims/", check=False).stdout.split()
    local_ids = {Path(p).stem for p in added}
    if not local_ids:
        return []
    snapshot = brain.store.snapshot(brain.now())
    index = protocol.blocking_index(snapshot)
    lost: list[dict[str, Any]] = []
    for sess_id in sorted(local_ids):
        claim = snapshot.claim(sess_id)
        if claim is None or not claim.is_blocking:
            continue
        winners = [c for c in protocol.find_conflicts(snapshot, claim.scope, parent=claim.parent,
                                                      satellite_type=claim.satellite_type, exclude=sess_id,
                                                      index=index)
                   if c.sess_id not in local_ids]
        if winners:
            lost.append({"sess_id": sess_id, "scope": claim.scope_text,
                         "winners": [w.as_dict() for w in winners]})
    if lost:
        def decide(cs: ChangeSet) -> None:
            for item in lost:
                names = ", ".join(w["sess_id"] for w in item["winners"])
                reason = f"lost while offline: {names} claimed the scope first"
                cs.update_claim(item["sess_id"], {"status": "failed", "closed_at": cs.ts(), "lost_to": names,
                                                  "abort_reason": reason})
                cs.add_history(item["sess_id"], "ABORTED", "sync", reason)
            cs.message = f"bsi: sync lost {' '.join(i['sess_id'] for i in lost)}"

        brain.mutate_local(decide)
    return lost


def synced_mutate(brain: Brain, decide: Callable[[ChangeSet], T]) -> T:
    """Run one mutating action through the fetch → re-check → commit → push cycle."""
    root = brain.root
    branch = branch_of(root)
    brain._pull_pending = False
    last_error = ""
    for attempt in range(MAX_TRIES):
        with brain.locked(reentrant=True):
            fetch(root, branch)
            integrate(brain, branch)
            resolve_lost_claims(brain, branch)
            head_before = _rev(root, "HEAD") or ""
            refused: BsiError | None = None
            result: Any = None
            try:
                result = brain.mutate_local(decide)
            except BsiError as exc:
                if not getattr(exc, "commit_staged", False):
                    raise
                refused = exc
            applied = brain.last_applied
            try:
                push(root, branch)
            except PushRejected as exc:
                last_error = str(exc)
                if applied is not None and applied.commit and head_before:
                    _undo(brain, head_before, applied)
                brain.store.snapshot(brain.now())
            except RemoteUnreachable:
                if applied is not None and applied.commit and head_before:
                    _undo(brain, head_before, applied)
                raise
            else:
                record_sync(brain, pending=False)
                if refused is not None:
                    raise refused
                return result  # type: ignore[no-any-return]
        _backoff(attempt)
    raise Contended(f"push rejected {MAX_TRIES} times (the remote keeps moving); nothing was changed. "
                    f"Try again. Last: {last_error.splitlines()[-1:] if last_error else ''}")


def sync_now(brain: Brain) -> SyncReport:
    """`bsi sync`: fetch, rebase pending local commits, re-check conflicts, regenerate the index, push."""
    root = brain.root
    branch = branch_of(root)
    brain._pull_pending = False
    report = SyncReport()
    for attempt in range(MAX_TRIES):
        report.tries = attempt + 1
        with brain.locked(reentrant=True):
            remote_has_branch = fetch(root, branch)
            report.fetched = True
            report.rebased = integrate(brain, branch) or report.rebased
            report.lost = report.lost or resolve_lost_claims(brain, branch)
            brain.regenerate_index_local("bsi: regenerate index after sync")
            ahead, behind = counts(root, branch)
            if ahead == 0 and remote_has_branch:
                report.last_sync = record_sync(brain, pending=False)
                report.ahead, report.behind = counts(root, branch)
                return report
            try:
                push(root, branch)
            except PushRejected:
                pass
            else:
                report.pushed = True
                report.last_sync = record_sync(brain, pending=False)
                report.ahead, report.behind = counts(root, branch)
                return report
        _backoff(attempt)
    raise Contended(f"push rejected {MAX_TRIES} times (the remote keeps moving); local commits are kept, "
                    "run `bsi sync` again")


def sync_status(brain: Brain) -> dict[str, Any]:
    """Where this brain stands against its remote, from local git state only (no network).

    Used by the cockpit's header and `bsi env`-like views; cheap enough to run after
    every fetch (a few local git commands).

    Args:
        brain: the brain (its root, config and `.brain/sync.json`).

    Returns:
        ``{"mode", "has_remote", "branch", "ahead", "behind", "last_sync", "pending_since",
        "fetch_interval_s"}``: `mode` is the brain-compose.yml `sync` setting; `ahead` /
        `behind` count commits against ``origin/<branch>`` as of the last fetch (None
        without a remote or a branch); `last_sync` and `pending_since` are the ISO times
        recorded in `.brain/sync.json` (None when never).
    """
    root = brain.root
    state = read_sync_state(root)
    branch = gitops.current_branch(root)
    remote = has_remote(root)
    ahead: int | None = None
    behind: int | None = None
    if remote and branch:
        ahead, behind = counts(root, branch)
    last_sync = state.get("last_sync")
    pending_since = state.get("pending_since")
    return {
        "mode": brain.config.sync,
        "has_remote": remote,
        "branch": branch,
        "ahead": ahead,
        "behind": behind,
        "last_sync": last_sync if isinstance(last_sync, str) else None,
        "pending_since": pending_since if isinstance(pending_since, str) else None,
        "fetch_interval_s": brain.config.fetch_interval_s,
    }
