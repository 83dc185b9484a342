"""What state git is in, for a write: an operation stopped halfway (a merge, rebase, cherry-pick, revert) or a
detached HEAD, where a commit of bsi's would corrupt the user's operation or belong to no branch."""

from __future__ import annotations

import re
from pathlib import Path

from brain_tui.core.paths.text_safety import CONTROL_RE
from brain_tui.core.record import record
from brain_tui.core.sync.gitops import GitBusy, GitError, git_dir, reason, run_git

__all__ = ["Stall", "detached_head", "operation_in_progress", "refuse_mid_operation", "stall"]

#: What each in-progress operation leaves in the git directory, and how to end it.
_OPERATIONS = (
    ("rebase-merge", "a rebase", "`git rebase --continue` or `--abort`"),
    ("rebase-apply", "a rebase", "`git rebase --continue` or `--abort`"),
    ("MERGE_HEAD", "a merge", "`git commit` or `git merge --abort`"),
    ("CHERRY_PICK_HEAD", "a cherry-pick", "`git cherry-pick --continue` or `--abort`"),
    ("REVERT_HEAD", "a revert", "`git revert --continue` or `--abort`"),
)


def operation_in_progress(root: str | Path) -> tuple[str, str] | None:
    """(what, how to end it) when a rebase, merge, cherry-pick or revert is under way; else None."""
    return _operation_in(git_dir(root))


def _operation_in(gdir: Path | None) -> tuple[str, str] | None:
    if gdir is None:
        return None
    for marker, what, how in _OPERATIONS:
        if (gdir / marker).exists():
            return what, how
    return None


#: The kinds of a git that fails rather than being in the middle of something, and when a pause held back then is
#: committed: "broken" (git cannot run), "unborn" (HEAD's branch lost its commits), "commit-failed" (a human's pause
#: whose commit failed: `write_path`).
_FAILING = {"broken": "once git runs again", "unborn": "once the branch has its commits again",
            "commit-failed": "once git commits again"}
#: The stall of a detached HEAD.
_DETACHED = "HEAD is detached (no branch is checked out)"


#: A branch name git takes without asking it (`git check-ref-format`'s rules, narrowed): any other is asked.
_PLAIN_BRANCH = re.compile(r"refs/heads/(?!\.)(?:[A-Za-z0-9_+=,-]|(?<!\.)\.(?!\.)|/(?![/.]))*(?<![./])(?<!\.lock)")


def _no_branch(root: str | Path, gdir: Path | None, timeout: float = 60.0) -> Stall | None:
    """Why a commit would land on no branch of the brain's: HEAD names a commit (detached), a ref that is no branch
    (an agent's program can write `ref: refs/tags/x` there, and git would move that tag), a name git cannot resolve,
    or a branch that lost its commits (`_history_cut`). None when HEAD names a branch with a commit (read from its
    files; git asked when unsure)."""
    if gdir is None:
        return None
    head = _small_text(gdir / "HEAD").strip()
    branch = head.removeprefix("ref: ")
    if head.startswith("ref: ") and _PLAIN_BRANCH.fullmatch(branch) and _HASH.fullmatch(
            _small_text(_common_dir(gdir) / branch).strip()):
        # (reftable keeps a stand-in HEAD file: `refs/heads/.invalid` is no plain name, so git is asked; a branch's
        # own file naming another ref, a tag, is followed by git: asked too; so is a branch kept in `packed-refs`)
        return None
    proc = run_git(root, "symbolic-ref", "--quiet", "HEAD", check=False, timeout=timeout)
    ref = proc.stdout.strip()
    named = f" ({ref[:200]!r})" if proc.returncode == 0 and not CONTROL_RE.search(ref) else ""
    if proc.returncode == 0 and ref.startswith("refs/heads/"):
        return _history_cut(root, gdir, named, timeout)
    what = _DETACHED if proc.returncode == 1 else f"HEAD names no branch{named} (no branch is checked out)"
    return Stall(what, "`git checkout <branch>`", detached=True)


#: A commit's name as a branch's own file holds it (SHA-1 or SHA-256).
_HASH = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def _history_cut(root: str | Path, gdir: Path, named: str, timeout: float) -> Stall | None:
    """Why a commit on HEAD's branch would start a history of its own: the branch has no commit while the repository
    holds others (its ref file removed, or a folder put in its place: an agent's program can do either, and git reads
    the branch as unborn). None when the branch has a commit, or when the repository is new (no commit in it: no
    ref, HEAD never moved, no commit object): the brain's first commit is a root commit. The objects are asked last,
    and only then: a program that also removes every reflog of a repository of one branch leaves its commits."""
    if run_git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False, timeout=timeout).returncode == 0:
        return None
    refs = run_git(root, "for-each-ref", "--count=1", "--format=%(refname)", check=False, timeout=timeout)
    if refs.returncode == 0 and not refs.stdout.strip() and not _small_text(gdir / "logs" / "HEAD").strip():
        objects = run_git(root, "cat-file", "--batch-all-objects", "--unordered", "--batch-check=%(objecttype)",
                          check=False, timeout=timeout)
        if objects.returncode == 0 and "commit" not in objects.stdout.split():
            return None
    return Stall(f"HEAD's branch{named} has no commit while the repository holds others (its ref was removed, or "
                 "the branch is new): a commit of bsi's there would start a history cut from the brain's",
                 "a removed ref: `git reflog` (or `git fsck --lost-found`) names its last commit, `git update-ref "
                 "<branch> <commit>` puts it back; a new branch (`git checkout --orphan`, a first fetch): check out "
                 "the brain's branch, or make the branch's first commit with git", kind="unborn")


def _small_text(path: Path) -> str:
    """A small file of git's (HEAD, `commondir`) as text when it is a regular file, else "" (git is asked then):
    opened without waiting, so a FIFO put in its place never holds the reading (`bsi env`, the cockpit's pane, a
    write), and read only as far as a ref or a path can go. A link is not followed: git reads one whose target
    starts with `refs/` as a symbolic ref (a branch's file linking to `refs/tags/v1` moves the tag), whatever the
    file it lands on holds."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, 4096).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    finally:
        os.close(fd)


def detached_head(what: str = _DETACHED) -> GitError:
    """The refusal of a write on a detached HEAD, or one naming no branch (exit 25)."""
    return GitError(f"{what}: a commit here would belong to no branch and be "
                    "left behind at the next checkout; nothing was written. Check out the brain's branch "
                    "(`git checkout <branch>`), then run the command again")


@record
class Stall:
    """Why git cannot take a commit now: what is under way and how a person ends it."""

    what: str
    how: str
    detached: bool = False
    #: `name` when the operation's own word is not in `what` (a lock file: "ref-lock"; git failing: "broken"; a
    #: pause's commit failing while git is idle: "commit-failed", `write_path._apply_brake`).
    kind: str = ""

    def error(self) -> GitError:
        """The refusal of a write while it lasts: GitBusy (exit 20), or GitError (25) for a detached HEAD, a git
        that cannot run or a branch that lost its commits."""
        if self.detached:
            return detached_head(self.what)
        if self.kind in ("broken", "unborn"):
            return GitError(f"{self.what}; nothing was written. Fix it first ({self.how}), then run the command "
                            "again")
        return GitBusy(f"{self.what} is in progress in this repository; nothing was written. "
                       f"Finish it first ({self.how}), then run the command again")

    @property
    def name(self) -> str:
        """The operation in one word (`bsi env`'s `git.operation`): rebase, merge, cherry-pick, revert, detached (or
        HEAD naming no branch), ref-lock (a lock file holds HEAD or the branch's ref), broken (git cannot run) or unborn
        (HEAD's branch lost its commits)."""
        return self.kind or ("detached" if self.detached else self.what.removeprefix("a "))

    @property
    def state(self) -> str:
        """What is under way, as a sentence's subject and verb: "a rebase is in progress", "HEAD is detached (…)"."""
        return self.what if self.detached or self.kind in _FAILING else f"{self.what} is in progress"

    def held_note(self) -> str:
        """What a person is told of a pause written while it lasts (`records.held_back`)."""
        after = f"{_FAILING[self.kind]} ({self.how})" if self.kind in _FAILING else f"after that ({self.how})"
        return (f"not committed yet: {self.state}. The pause is in force in this work tree now; the first bsi write "
                f"or sync {after} commits it")

    @property
    def remedy(self) -> str:
        """What a person does to end it, as a clause: "end it (`git merge --abort`…)", "fix it (…)"."""
        return f"{'fix' if self.kind in _FAILING else 'end'} it ({self.how})"


def stall(root: str | Path, *, commits: bool = False, timeout: float = 60.0) -> Stall | None:
    """Why no commit can be made now: git is in the middle of an operation a commit would corrupt; with `commits`,
    HEAD is detached (a commit there is on no branch: the next checkout leaves it, and what it wrote, behind), or a
    lock file holds HEAD or the branch's ref (git refuses the commit). None when git is idle.

    A commit during a stopped rebase lands on its detached HEAD (and `rebase
    --abort` drops it); during a merge it joins the user's merge commit. `timeout` bounds each git process asked
    (`bsi env` gives its probes' limit).
    """
    gdir, tree = _located(root, timeout) if commits else (git_dir(root, timeout), True)
    failing = _git_failing(root, timeout) if gdir is None and commits else None if tree else _NO_WORK_TREE
    if failing is not None:
        how = _NO_WORK_TREE_FIX if failing == _NO_WORK_TREE else "`git status` names what to fix"
        return Stall(f"git cannot run in this repository ({failing})", how, kind="broken")
    busy = _operation_in(gdir)
    if busy is not None:
        return Stall(*busy)
    unbranched = _no_branch(root, gdir, timeout) if commits else None
    if unbranched is not None:
        return unbranched
    locked = _ref_locked(gdir) if commits else None
    if locked is not None:
        return Stall("a git write of the branch", f"wait for it to end; if no git runs, remove {locked}",
                     kind="ref-lock")
    return None


#: Why git cannot commit in a repository it finds but whose work tree does not hold the brain.
_NO_WORK_TREE = ("git sees no work tree holding this folder: `core.bare` or `core.worktree` in the repository's "
                 "config says otherwise")
#: What ends it (`git status` runs there, and names nothing to fix).
_NO_WORK_TREE_FIX = "`git config --unset core.bare`, `git config --unset core.worktree`"


def _located(root: str | Path, timeout: float) -> tuple[Path | None, bool]:
    """`git_dir`, and whether git's work tree holds `root`, from one git process: an agent's program can write
    `core.bare = true` (or a `core.worktree` elsewhere) in the repository's config, where git finds the repository
    but neither commits nor rolls a failed write back here (`git rev-parse --show-toplevel` fails), or commits
    paths that are not the brain's."""
    from brain_tui.core.records.git_head import outside_git

    if outside_git(Path(root)):
        return None, True
    proc = run_git(root, "rev-parse", "--absolute-git-dir", "--is-inside-work-tree", check=False, timeout=timeout)
    lines = proc.stdout.splitlines()
    if proc.returncode != 0 or not lines or not lines[0].strip():
        return None, True
    return Path(lines[0].strip()), lines[1:2] == ["true"]


def _git_failing(root: str | Path, timeout: float) -> str | None:
    """What git says when a repository holds `root` (a `.git` at or above it) but git refuses to run there (a bad
    line in its config, a HEAD it cannot read: an agent's program can do either); None when no `.git` is found or
    git answers. Asked only once `git_dir` found none: never on the way of a write in a working repository."""
    import os

    try:
        folder = Path(root).resolve()
    except (OSError, RuntimeError):
        return None
    if not any(os.path.lexists(candidate / ".git") for candidate in (folder, *folder.parents)):
        return None
    proc = run_git(root, "rev-parse", "--absolute-git-dir", check=False, timeout=timeout)
    return reason(proc.stderr or proc.stdout, f"exit {proc.returncode}") if proc.returncode != 0 else None


def _ref_locked(gdir: Path | None) -> str | None:
    """The lock file of HEAD or of the checked-out branch's ref, when one is there: a git process moves the branch
    now, or one killed left it (an agent's program can write it too). git refuses every commit until it goes."""
    import os

    if gdir is None:
        return None
    found = [gdir / "HEAD.lock"]
    head = _small_text(gdir / "HEAD").strip()
    if head.startswith("ref: refs/heads/"):
        found.append(_common_dir(gdir) / f"{head.removeprefix('ref: ')}.lock")
    return next((str(path) for path in found if os.path.lexists(path)), None)


def _common_dir(gdir: Path) -> Path:
    """The folder holding the branches' refs: a linked work tree's `commondir` names it, else `gdir` itself."""
    import os

    pointer = _small_text(gdir / "commondir").strip()
    return Path(os.path.normpath(os.path.join(gdir, pointer))) if pointer else gdir


def refuse_mid_operation(root: str | Path) -> None:
    """Raise what `stall` finds (without `commits`: an operation in progress, or no readable work tree)."""
    found = stall(root)
    if found is not None:
        raise found.error()
