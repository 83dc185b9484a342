"""The brain's git remote: fetch, integrate, push — git only (SPEC 11, DESIGN 5).

This module knows git, the remote and the brain's folder layout; it knows nothing of claims' meaning nor of `Brain`.
What the protocol decides after the remote brought other machines' work in (a claim lost while offline, an ID taken
on two machines) is core/rules/reconcile.py; the facade (`Brain.remote`) runs both.

A synced write is one cycle, repeated until the push lands:

    fetch → bring the work tree to the remote tip (fast-forward, or rebase of
    local pending commits) → the caller reconciles and decides on that exact
    tree → commit on top → non-forced push.

A rejected push undoes the local commit (only the paths it wrote) and repeats the cycle after a jittered backoff, at
most `MAX_TRIES` times (then exit 75). A push the server refuses for good (a hook, a protected branch) is reported at
once with the server's message (exit 24). BRAIN-INDEX.md is never merged as text (the index is regenerated) and
protocol records are settled by the protocol's rules (`core.settle`), never left for a hand merge.

The sync state file (`.brain/sync.json`) is `remote_state`; reading and
rewriting the local pending commits is `remote_history`.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol, TypeVar

from brain_tui.core.errors import Contended, InvalidData, RemoteUnreachable
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.network import network_timeout
from brain_tui.core.paths.layout import REBASE_MARK, STATE_DIR
from brain_tui.core.record import record
from brain_tui.core.records import journal
from brain_tui.core.sync import git_state, gitops, lost_writes, push_guard, remote_state, settle
from brain_tui.core.sync.gitops import FastForwardFailed, GitTimeout, PushDeclined, RebaseConflict
from brain_tui.core.sync.remote_state import read_state

T = TypeVar("T")

MAX_TRIES = 8
REMOTE = "origin"
#: What the command line tells its user to do when the remote is not reached (the MCP tools say their own).
OFFLINE_ADVICE = "use --offline to record the change locally"
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
#: A `[remote rejected]` with these words lost a race on the server's ref: retry, it is not a refusal.
_RACE_WORDS = ("failed to update ref", "cannot lock ref", "incorrect old value", "failed to lock")
_REJECTED_RE = re.compile(r"^!\s+\S+\s+\[(remote )?rejected\]\s*(\((?P<why>[^)]*)\))?", re.MULTILINE)


@record
class RemoteReport:
    """What one `sync` did on the git side."""

    fetched: bool
    rebased: bool
    pushed: bool
    ahead: int
    behind: int
    tries: int
    last_sync: str | None


@record
class Integrated:
    """What bringing HEAD onto the remote tip did: local commits rebased; local writes dropped whole because the
    remote's side of every claim they changed won (their subjects, oldest first: `lost_writes`)."""

    rebased: bool = False
    dropped: tuple[str, ...] = ()


@record
class SyncStatus(JsonShaped):
    """Where the brain stands against its remote, from local git state only (no network).

    `ahead`/`behind` count commits against ``origin/<branch>`` as of the last fetch (None without a remote or a
    branch); `last_sync`/`pending_since` are the ISO times recorded in `.brain/sync.json` (None when never).
    """

    mode: str
    has_remote: bool
    branch: str
    ahead: int | None
    behind: int | None
    last_sync: str | None
    pending_since: str | None
    fetch_interval_s: int


@record
class Staged:
    """What one attempt of a synced write left for the push: the paths it wrote and whether it committed."""

    paths: tuple[str, ...]
    committed: bool


class PushRejected(Exception):
    """The remote moved between our fetch and our push (retry the cycle)."""


class PushUnanswered(RemoteUnreachable):
    """The push ran past the time limit: it may have landed on the remote all the same (exit 69)."""


def _unreachable(text: str) -> bool:
    low = text.lower()
    return any(hint in low for hint in _UNREACHABLE_HINTS)


def has_remote(root: Path) -> bool:
    """True when the brain has an `origin` remote."""
    return gitops.run_git(root, "remote", "get-url", REMOTE, check=False).returncode == 0


def branch_of(root: Path) -> str:
    """The current branch (sync needs one; a detached HEAD is refused as a git failure, 25)."""
    branch = gitops.current_branch(root)
    if not branch:
        raise git_state.detached_head()
    return branch


def rev(root: Path, ref: str) -> str | None:
    """The commit `ref` names, or None."""
    proc = gitops.run_git(root, "rev-parse", "--verify", "--quiet", ref, check=False)
    return (proc.stdout.strip() or None) if proc.returncode == 0 else None


def fetch(root: Path, branch: str) -> bool:
    """Fetch from origin: True when the remote has the branch, False when it does not exist there yet.

    Raises:
        RemoteUnreachable: no remote, it cannot be reached, or it does not answer in time (exit 69)."""
    if not has_remote(root):
        raise RemoteUnreachable("no git remote 'origin' configured", advice="add one, or work without --sync "
                                "(and without `sync: auto` in brain-compose.yml)",
                                sep=": ", retry_helps=False)
    limit = network_timeout()
    try:
        proc = gitops.run_git(root, "fetch", "-q", "--upload-pack=git-upload-pack", REMOTE, check=False, timeout=limit)
    except GitTimeout:
        raise RemoteUnreachable(f"remote did not answer within {limit:.0f}s (fetch stopped)",
                                advice=OFFLINE_ADVICE) from None
    if proc.returncode != 0:
        raise RemoteUnreachable(f"remote unreachable ({gitops.reason(proc.stderr, 'fetch failed')})",
                                advice=OFFLINE_ADVICE)
    return rev(root, f"refs/remotes/{REMOTE}/{branch}") is not None


def counts(root: Path, branch: str) -> tuple[int, int]:
    """(ahead, behind) of HEAD against origin/branch, (commits, 0) without an upstream."""
    upstream = f"refs/remotes/{REMOTE}/{branch}"
    if rev(root, upstream) is None:
        ahead = gitops.run_git(root, "rev-list", "--count", "HEAD", check=False).stdout.strip()
        return (int(ahead or 0), 0)
    proc = gitops.run_git(root, "rev-list", "--left-right", "--count", f"HEAD...{upstream}", check=False)
    parts = proc.stdout.split()
    return (int(parts[0]), int(parts[1])) if len(parts) == 2 else (0, 0)


def _mark(root: Path) -> Path:
    return root / STATE_DIR / REBASE_MARK


def recover(root: Path) -> None:
    """Abort a rebase a killed bsi left behind (call with the brain lock held: none of ours runs).

    A rebase without bsi's mark is the user's: it is left alone, and writes are
    refused until it ends (`git_state.refuse_mid_operation`).
    """
    mark = _mark(root)
    if not mark.exists():
        return
    journal.wait_for_orphans(root)  # the killed bsi's rebase may still be running: let it end first
    busy = git_state.operation_in_progress(root)
    if busy is not None and busy[0] == "a rebase":
        gitops.run_git(root, "rebase", "--abort", check=False)
    mark.unlink(missing_ok=True)


def integrate(root: Path, branch: str) -> Integrated:
    """Bring HEAD onto the fetched remote tip (call with the brain lock held): whether local commits were rebased,
    and the local writes the rebase dropped (a write the remote's side wins whole, SPEC 22).

    Fast-forward when there is nothing local, else rebase the local pending commits: uncommitted files the remote
    does not change are carried over (autostash); one it also changes stops either (exit 22). A rebase that stops
    on a conflict is aborted and reported.

    Raises:
        FastForwardFailed: uncommitted local files collide with the remote's (exit 22).
        RebaseConflict: a local commit conflicts with the remote's; nothing lost (exit 21)."""
    upstream = f"{REMOTE}/{branch}"
    if rev(root, f"refs/remotes/{upstream}") is None:
        return Integrated()
    ahead, behind = counts(root, branch)
    if behind == 0:
        return Integrated()
    from brain_tui.core.sync import remote_history  # (it imports this module)

    remote_history.clear_the_way(root, upstream)
    ident = gitops.identity_args(root)
    settle.ensure_drivers(root)  # (before a fast-forward too: no attribute converts a protocol file it writes)
    if ahead == 0:
        with journal.moving(root, changed_paths(root, "HEAD", upstream)):
            # No --autostash: a kill between its stash and its re-apply left the user's changes in the
            # stash only. git carries uncommitted files the remote does not change, and refuses the rest.
            proc = gitops.run_git(root, *ident, "merge", "--ff-only", "--quiet", upstream, check=False)
        if proc.returncode != 0:
            where = _collision(proc.stderr)
            raise FastForwardFailed(
                f"cannot fast-forward to {upstream}: {where}; nothing was changed. "
                "Commit, move or stash those files, then run `bsi sync`",
                reason=f"the remote's commits cannot be brought in ({where})", step="commit, move or stash those files")
        return Integrated()
    remote_history.refuse_in_the_way(root, upstream)  # a rebase would leave them half-merged in the stash, or not start
    mark = _mark(root)
    mark.parent.mkdir(exist_ok=True)
    mark.write_text(upstream + "\n", encoding="utf-8")
    try:
        # a local write the remote's side wins whole is dropped with everything it wrote (SPEC 22)
        lost = lost_writes.lost_commits(root, upstream)
        dropped = lost_writes.subjects(root, lost)
        drop = ("--interactive",) if lost else ()
        env = {"GIT_SEQUENCE_EDITOR": lost_writes.sequence_editor(lost), "GIT_EDITOR": "true"} if lost else None
        proc = gitops.run_git(root, *ident, "rebase", *drop, "--autostash", "--quiet", upstream, check=False,
                              timeout=120, env=env)
        stuck = proc.returncode != 0  # and one that could not even start (none in progress) is no success either
        if stuck and (git_state.operation_in_progress(root) is None or not settle.settle_rebase(root, ident)):
            gitops.run_git(root, "rebase", "--abort", check=False)
            where = _collision(proc.stdout + proc.stderr)
            if "claims/" in where:  # a claim opened on two machines under one ID that was not renamed first
                both = f"{where.replace('files in the way', 'one ID')} opened on two machines, not renamed yet"
                raise RebaseConflict(f"rebase onto {upstream} stopped: {both}; it was aborted, nothing was lost. "
                                     "Run `bsi sync` again", reason=both)
            raise RebaseConflict(
                f"rebase onto {upstream} stopped on a conflict ({where}) and was "
                "aborted; nothing was lost. Those files are not protocol records (bsi settles those itself): "
                "resolve them by hand (`git pull --rebase`, fix the files), then `bsi sync`",
                reason=f"a local commit conflicts with the remote's ({where})",
                step="resolve them by hand (`git pull --rebase`, fix the files)")
    finally:
        mark.unlink(missing_ok=True)
    return Integrated(True, dropped)


def _collision(stderr: str) -> str:
    """Git's complaint as one plain line, naming the files when it lists them."""
    files = [line.strip() for line in stderr.splitlines() if line.startswith(("\t", "    "))]
    conflict = re.findall(r"CONFLICT \([^)]*\): .*?(?:in|for) (\S+)", stderr)
    named = conflict or files
    if named:
        return "files in the way: " + ", ".join(dict.fromkeys(named))
    return gitops.reason(stderr, "git gave no reason")


def changed_paths(root: Path, old: str, new: str) -> list[str]:
    """Brain-relative paths that differ between two commits."""
    proc = gitops.run_git(root, "diff", "--name-only", "-z", "--no-renames", "--relative", old, new, check=False)
    return [p for p in proc.stdout.split("\0") if p]


def _take_back(root: Path, head_before: str, staged: Staged) -> None:
    """Take back the local commit `staged` made, if any, touching only the paths it wrote (a kill mid-way is settled
    by `journal`)."""
    if not (staged.committed and head_before):
        return
    current = rev(root, "HEAD") or ""
    with journal.moving(root, staged.paths):
        gitops.run_git(root, "update-ref", "-m", "bsi: take back an unpushed commit", "HEAD", head_before, current)
        journal.follow_head(root, staged.paths)


def push(root: Path, branch: str) -> None:
    """Non-forced push of HEAD to origin/branch.

    Raises:
        PushRejected: the remote moved (retry the cycle).
        PushDeclined: the server refused it for good (hook, protected branch): its message, exit 24.
        RemoteUnreachable: the remote cannot be reached or does not answer in time.
    """
    limit = network_timeout()
    try:
        proc = gitops.run_git(root, "push", "--porcelain", "--no-verify", "--receive-pack=git-receive-pack",
                              REMOTE, f"HEAD:refs/heads/{branch}", check=False, timeout=limit,
                              remote_hooks=_on_a_local_path(root))
    except GitTimeout:
        raise PushUnanswered(f"remote did not answer within {limit:.0f}s (push stopped)") from None
    if proc.returncode == 0:
        return
    text = proc.stdout + "\n" + proc.stderr
    match = _REJECTED_RE.search(proc.stdout)
    raced = any(word in text for word in _RACE_WORDS)
    if match and match.group(1) and not raced:
        said = [line[len("remote:"):].strip() for line in proc.stderr.splitlines() if line.startswith("remote:")]
        said = [line for line in said if line]
        why = match.group("why") or "declined"
        declined = f"the remote declined the push ({why})" + (f": {' / '.join(said)}" if said else "")
        raise PushDeclined(f"{declined}; nothing was pushed, the local commit was taken back", reason=declined,
                           step="settle what the remote refuses (its hook, a protected branch) with its owner")
    if match or raced or "non-fast-forward" in text or "fetch first" in text:
        raise PushRejected(text.strip())
    if _unreachable(text):
        raise RemoteUnreachable(f"remote unreachable on push ({gitops.reason(text, 'push failed')})")
    raise PushDeclined(f"git push failed: {gitops.reason(proc.stderr or proc.stdout, 'no reason given')}")


def _on_a_local_path(root: Path) -> bool:
    """True when the remote is a folder of this machine (its hooks run in the push's own environment)."""
    url = gitops.run_git(root, "remote", "get-url", "--push", REMOTE, check=False).stdout.strip()
    return url.startswith("file://") or not re.match(r"^[\w+.-]+://|^[^/:]+:", url)


def landed(root: Path, branch: str) -> bool | None:
    """After a push that did not answer in time: did HEAD land on the remote all the same? True (the remote's tip
    holds HEAD), False (it does not), None (the remote still does not answer: it cannot be known)."""
    try:
        fetch(root, branch)
    except RemoteUnreachable:
        return None
    proc = gitops.run_git(root, "merge-base", "--is-ancestor", "HEAD", f"refs/remotes/{REMOTE}/{branch}",
                          check=False)
    return proc.returncode == 0


def status(root: Path, mode: str, fetch_interval_s: int) -> SyncStatus:
    """Where this brain stands against its remote, from local git state only (a few local git commands)."""
    state = read_state(root)
    branch = gitops.current_branch(root)
    remote = has_remote(root)
    ahead: int | None = None
    behind: int | None = None
    if remote and branch:
        ahead, behind = counts(root, branch)
    last_sync, pending_since = state.get("last_sync"), state.get("pending_since")
    return SyncStatus(mode=mode, has_remote=remote, branch=branch, ahead=ahead, behind=behind,
                      last_sync=last_sync if isinstance(last_sync, str) else None,
                      pending_since=pending_since if isinstance(pending_since, str) else None,
                      fetch_interval_s=fetch_interval_s)


def _backoff(attempt: int) -> None:
    time.sleep(min(2.0, 0.05 * (2**attempt)) * (0.5 + random.random()))


Lock = Callable[[], AbstractContextManager[None]]


class Reconciler(Protocol):
    """What the caller decides around an integration (the facade runs the protocol's rules here)."""

    def before_integrate(self, branch: str) -> None:
        """Runs after the fetch, before local commits are rebased (may rewrite them: `remote_history.rewrite_local`)."""

    def after_integrate(self, branch: str, done: Integrated) -> None:
        """Runs once the work tree is on the remote tip."""


def _ready(root: Path) -> str:
    """Under the lock: refuse where git takes no commit on the brain's branch (it cannot run, HEAD names no branch,
    the branch lost its commits, a ref lock), clear what a killed bsi left, refuse during the user's git operation
    (after the clearing: a rebase a killed sync left is aborted there), the branch."""
    stalled = git_state.stall(root, commits=True)
    if stalled is not None and (stalled.detached or stalled.kind):
        raise stalled.error()
    recover(root)
    journal.recover(root)
    git_state.refuse_mid_operation(root)
    return branch_of(root)


def _integrate(root: Path, branch: str, reconciler: Reconciler) -> bool:
    reconciler.before_integrate(branch)
    done = integrate(root, branch)
    reconciler.after_integrate(branch, done)
    return done.rebased


def write_through(root: Path, lock: Lock, reconciler: Reconciler, attempt: Callable[[], Staged],
                  now: Callable[[], str]) -> None:
    """One synced write: fetch → integrate (with `reconciler`) → `attempt()` → push, retried.

    `attempt` decides on the integrated tree and writes (and commits) locally; it raises to refuse (nothing is pushed
    then). A rejected push takes the local commit back and repeats the whole cycle. A push that went unanswered
    leaves the change pending since `now()` (the brain's clock, ISO), as `sync` records its time.

    Raises:
        Contended: the push was rejected `MAX_TRIES` times (exit 75).
        RemoteUnreachable, PushDeclined: the local commit was taken back first; so too for any other GitError
            between the commit and the push's answer (the push guard's git reading).
        InvalidData: the push would carry a claim looser than the work tree holds (`push_guard`); the same.
    """
    last_error = ""
    for tries in range(MAX_TRIES):
        with lock():
            branch = _ready(root)
            fetch(root, branch)
            _integrate(root, branch, reconciler)
            head_before = rev(root, "HEAD") or ""
            staged = attempt()
            try:
                push_guard.check(root, rev(root, f"refs/remotes/{REMOTE}/{branch}"))
                push(root, branch)
            except PushRejected as exc:
                last_error = str(exc)
                _take_back(root, head_before, staged)
            except PushUnanswered as exc:
                answer = landed(root, branch)  # a late answer is reconciled with the remote, never undone blindly
                if answer:
                    return
                if answer is False:
                    _take_back(root, head_before, staged)
                    raise
                remote_state.record(root, now(), pending=True)
                raise RemoteUnreachable(f"{exc.message}; whether it landed is not known yet, so the change is "
                                        "kept as a pending local commit and settled at the next `bsi sync`",
                                        kept=True) from None
            except (RemoteUnreachable, gitops.GitError, InvalidData):  # PushDeclined, or the guard's git failing
                _take_back(root, head_before, staged)
                raise
            else:
                return
        _backoff(tries)
    last = [line for line in last_error.splitlines() if line.strip()][-1:]
    raise Contended(f"push rejected {MAX_TRIES} times (the remote keeps moving); nothing was changed. "
                    f"Try again.{' Last: ' + last[0].strip() if last else ''}")


def sync(root: Path, lock: Lock, reconciler: Reconciler, now: Callable[[], str]) -> RemoteReport:
    """`bsi sync`: fetch, rebase pending local commits (with `reconciler`), push; Contended (local commits kept)
    when the push was rejected `MAX_TRIES` times."""
    rebased = False
    for tries in range(1, MAX_TRIES + 1):
        with lock():
            branch = _ready(root)
            remote_has_branch = fetch(root, branch)
            rebased = _integrate(root, branch, reconciler) or rebased
            ahead, _ = counts(root, branch)
            pushed = False
            if ahead or not remote_has_branch:
                push_guard.check(root, rev(root, f"refs/remotes/{REMOTE}/{branch}"))  # local commits are kept
                try:
                    push(root, branch)
                    pushed = True
                except PushUnanswered:
                    if not landed(root, branch):
                        raise
                    pushed = True
                except PushRejected:
                    _backoff(tries)
                    continue
            stamp = remote_state.record(root, now(), pending=False)
            ahead, behind = counts(root, branch)
            return RemoteReport(fetched=True, rebased=rebased, pushed=pushed, ahead=ahead, behind=behind,
                                tries=tries, last_sync=stamp)
    raise Contended(f"push rejected {MAX_TRIES} times (the remote keeps moving); local commits are kept, "
                    "run `bsi sync` again")


def pull(root: Path, lock: Lock, reconciler: Reconciler) -> bool:
    """Fetch and bring the work tree to the remote tip (with `reconciler`); True when local commits were rebased."""
    with lock():
        branch = _ready(root)
        fetch(root, branch)
        return _integrate(root, branch, reconciler)
