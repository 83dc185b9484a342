"""What state git is in, for a write: an operation stopped halfway (a merge, rebase, cherry-pick, revert) or a
detached HEAD, where a commit of bsi's would corrupt the user's operation or belong to no branch."""

from __future__ import annotations

from pathlib import Path

from brain_tui.core.record import record
from brain_tui.core.sync.gitops import GitBusy, GitError, git_dir, run_git

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


def _detached(root: str | Path, gdir: Path | None, timeout: float = 60.0) -> bool:
    """True when the repository's HEAD names a commit, not a branch (read from its file; git asked when unsure)."""
    if gdir is None:
        return False
    head = _small_text(gdir / "HEAD")
    if head.startswith("ref: refs/heads/") and ".invalid" not in head:  # (reftable keeps a stand-in HEAD file)
        return False
    return run_git(root, "symbolic-ref", "--quiet", "HEAD", check=False, timeout=timeout).returncode == 1


def _small_text(path: Path) -> str:
    """A small file of git's (HEAD, `commondir`) as text when it is a regular file, else "" (git is asked then):
    opened without waiting, so a FIFO put in its place never holds the reading (`bsi env`, the cockpit's pane, a
    write), and read only as far as a ref or a path can go."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
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


def detached_head() -> GitError:
    """The refusal of a write on a detached HEAD (exit 25)."""
    return GitError("HEAD is detached (no branch is checked out): a commit here would belong to no branch and be "
                    "left behind at the next checkout; nothing was written. Check out the brain's branch "
                    "(`git checkout <branch>`), then run the command again")


@record
class Stall:
    """Why git cannot take a commit now: what is under way and how a person ends it."""

    what: str
    how: str
    detached: bool = False
    #: `name` when the operation's own word is not in `what` (a lock file: "ref-lock").
    kind: str = ""

    def error(self) -> GitError:
        """The refusal of a write while it lasts: GitBusy (exit 20), or GitError (25) for a detached HEAD."""
        if self.detached:
            return detached_head()
        return GitBusy(f"{self.what} is in progress in this repository; nothing was written. "
                       f"Finish it first ({self.how}), then run the command again")

    @property
    def name(self) -> str:
        """The operation in one word (`bsi env`'s `git.operation`): rebase, merge, cherry-pick, revert, detached or
        ref-lock (a lock file holds HEAD or the branch's ref)."""
        return self.kind or ("detached" if self.detached else self.what.removeprefix("a "))

    @property
    def state(self) -> str:
        """What is under way, as a sentence's subject and verb: "a rebase is in progress", "HEAD is detached (…)"."""
        return self.what if self.detached else f"{self.what} is in progress"

    def held_note(self) -> str:
        """What a person is told of a pause written while it lasts (`records.held_back`)."""
        state = self.state
        return (f"not committed yet: {state}. The pause is in force in this work tree now; the first bsi write or "
                f"sync after that ({self.how}) commits it")


def stall(root: str | Path, *, commits: bool = False, timeout: float = 60.0) -> Stall | None:
    """Why no commit can be made now: git is in the middle of an operation a commit would corrupt; with `commits`,
    HEAD is detached (a commit there is on no branch: the next checkout leaves it, and what it wrote, behind), or a
    lock file holds HEAD or the branch's ref (git refuses the commit). None when git is idle.

    A commit during a stopped rebase lands on its detached HEAD (and `rebase
    --abort` drops it); during a merge it joins the user's merge commit. `timeout` bounds each git process asked
    (`bsi env` gives its probes' limit).
    """
    gdir = git_dir(root, timeout)
    busy = _operation_in(gdir)
    if busy is not None:
        return Stall(*busy)
    if commits and _detached(root, gdir, timeout):
        return Stall("HEAD is detached (no branch is checked out)", "`git checkout <branch>`", detached=True)
    locked = _ref_locked(gdir) if commits else None
    if locked is not None:
        return Stall("a git write of the branch", f"wait for it to end; if no git runs, remove {locked}",
                     kind="ref-lock")
    return None


def _ref_locked(gdir: Path | None) -> str | None:
    """The lock file of HEAD or of the checked-out branch's ref, when one is there: a git process moves the branch
    now, or one killed left it (an agent's program can write it too). git refuses every commit until it goes."""
    import os

    if gdir is None:
        return None
    found = [gdir / "HEAD.lock"]
    head = _small_text(gdir / "HEAD").strip()
    if head.startswith("ref: refs/heads/"):
        pointer = _small_text(gdir / "commondir").strip()  # a linked work tree keeps its refs in the common folder
        common = Path(os.path.normpath(os.path.join(gdir, pointer))) if pointer else gdir
        found.append(common / f"{head.removeprefix('ref: ')}.lock")
    return next((str(path) for path in found if os.path.lexists(path)), None)


def refuse_mid_operation(root: str | Path, *, commits: bool = False) -> None:
    """Raise what `stall` finds (GitBusy, or GitError for a detached HEAD with `commits`)."""
    found = stall(root, commits=commits)
    if found is not None:
        raise found.error()
