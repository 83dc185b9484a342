"""HEAD's commit ID (read from the repository's files, without a git process, where the layout allows: the closed
sets' warm check; else asked of git), the
files that decide it (`head_files`: what a reader kept in memory watches), the ID git gives a blob (`blob_id`),
and the one git call the closed sets make for the rest (`git_output`)."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

TYPE_CHECKING = False  # not `typing`: the hook's fast path imports this module (`head_files`)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["blob_id", "foreign_common_dir", "git_dirs", "git_output", "head_commit", "head_files", "head_in_files",
           "outside_git"]

_GIT_TIMEOUT_S = 20.0


def _hex_oid(text: str) -> str | None:
    oid = text.strip()
    return oid if len(oid) in (40, 64) and all(c in "0123456789abcdef" for c in oid) else None


def _git_dir(root: Path) -> tuple[Path, Path, Path | None] | None:
    """``(the brain folder resolved, its git directory, the `.git` file naming it or None)``, or None when unsure.

    The nearest ``.git`` at or above `root`: a folder, or a ``gitdir:`` file (a linked worktree, a submodule).
    ``(folder, folder / ".git", None)`` with no such folder when there is none (no repository: nothing to read).
    """
    folder = root.resolve()
    for candidate in (folder, *folder.parents):
        dot = candidate / ".git"
        if dot.is_dir():
            return folder, dot, None
        if dot.is_file():
            try:
                text = dot.read_text(encoding="utf-8").strip()
            except (OSError, ValueError):
                return None
            if not text.startswith("gitdir:"):
                return None
            return folder, (candidate / text[len("gitdir:"):].strip()).resolve(), dot
    return folder, folder / ".git", None


def foreign_common_dir(root: str | os.PathLike[str]) -> Path | None:
    """The ``commondir`` file of the repository holding `root` when that repository is a ``.git`` folder, else None:
    bsi runs no git there (`gitops.run_git` refuses, `git_output` answers None) until a human removes it.

    A ``commondir`` file makes git take the refs, the objects and the repository's config from the folder it names
    (the refs even with ``$GIT_COMMON_DIR`` set); only a linked worktree's git directory, reached through a ``.git``
    file, has one. In a ``.git`` folder it is a file an agent's shell may write (its sandbox fences ``.git/config``,
    not the rest of ``.git``): through it, a config of the agent's named the remote a human's sync fetched a lifted
    pause from."""
    try:
        found = _git_dir(Path(root))
        if found is None or found[2] is not None:
            return None
        marker = found[1] / "commondir"
        return marker if os.path.lexists(marker) else None
    except (OSError, ValueError, RuntimeError):
        return None


def head_commit(root: Path) -> str | None:
    """HEAD's commit ID, or None when HEAD holds no commit (before the first one), outside git, or when git does not
    answer.

    Read from the repository's files where the layout is plain (`head_in_files`: no git process, the warm check of
    every read); in any other layout git supports (a linked worktree, ``$GIT_DIR`` set, the reftable format, a
    symbolic ref that is not a branch) git is asked (``rev-parse``): a lock or claim HEAD holds is in force there too
    (SPEC 22), which a "don't know" read as "HEAD holds nothing" would let go.
    """
    known, commit = _from_files(root)
    if known or outside_git(root):
        return commit
    out = git_output(root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    return _hex_oid(out.decode("ascii", "replace")) if out is not None else None


def head_in_files(root: Path) -> str | None:
    """HEAD's commit ID read from the repository's files (no git process), or None when unsure or when HEAD holds no
    commit yet.

    Only the plain layout is read: a ``.git`` folder (or a ``gitdir:`` file) above `root`, HEAD naming a branch held
    as a loose ref or in ``packed-refs``, or a detached HEAD. Anything else (``$GIT_DIR``, linked worktrees, the
    reftable format, a symbolic ref that is not a branch) answers None (`head_commit` asks git).
    """
    return _from_files(root)[1]


def _from_files(root: Path) -> tuple[bool, str | None]:
    """``(True, ID)`` read from the files of a plain layout, ``(True, None)`` for a branch with no commit yet (no
    loose ref, none packed), ``(False, None)`` when unsure (`head_in_files`)."""
    if any(name in os.environ for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")):
        return False, None
    found = _git_dir(root)
    if found is None or not found[1].is_dir():
        return False, None
    gitdir = found[1]
    try:
        if (gitdir / "commondir").exists() or (gitdir / "reftable").exists():
            return False, None
        head = (gitdir / "HEAD").read_text(encoding="utf-8")
        if not head.startswith("ref: "):
            oid = _hex_oid(head)
            return oid is not None, oid
        ref = head[len("ref: "):].strip()
        if not ref.startswith("refs/heads/") or ".." in ref:
            return False, None
        loose = gitdir / ref
        if loose.is_file():
            oid = _hex_oid(loose.read_text(encoding="utf-8"))
            return oid is not None, oid
        if loose.exists() or os.path.lexists(loose):
            return False, None
        try:
            packed = open(gitdir / "packed-refs", encoding="utf-8")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            return True, None  # no commit on this branch yet
        with packed:
            for line in packed:
                oid, _, name = line.rstrip("\n").partition(" ")
                if name == ref:
                    found_oid = _hex_oid(oid)
                    return found_oid is not None, found_oid
        return True, None
    except (OSError, ValueError):
        return False, None


def rewound(root: Path) -> str | None:
    """Why the claims in force cannot be read from the work tree, or None: a rebase under way or a detached HEAD
    (read from the repository's files, no git process) puts HEAD and the work tree at a commit the brain's branch
    may have moved past, before a claim was opened or a human paused one. None outside git or when unsure."""
    found = _git_dir(root)
    if found is None or not found[1].is_dir():
        return None
    gitdir = found[1]
    if (gitdir / "rebase-merge").exists() or (gitdir / "rebase-apply").exists():
        return "a rebase is in progress in this repository (git rebase --continue, or --abort)"
    try:
        head = (gitdir / "HEAD").read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    if _hex_oid(head) is not None:
        return "HEAD is detached (check out the brain's branch: `git checkout <branch>`)"
    return None


def git_dirs(root: Path) -> tuple[str, ...]:
    """The git directory of the repository holding `root` and, for a linked worktree, the main repository's
    (found from the folders, no git process; none outside git or when unsure)."""
    found = _git_dir(root)
    if found is None or not found[1].is_dir():
        return ()
    gitdir = found[1]
    if found[2] is None:  # a `.git` folder: its own (git is not run while it holds a `commondir` file)
        return (str(gitdir),)
    try:
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, ValueError):
        return (str(gitdir),)
    return (str(gitdir), str(common)) if common != gitdir else (str(gitdir),)


def head_files(root: Path) -> tuple[str, ...] | None:
    """The files whose content decides HEAD's commit for the brain at `root`, or None when unsure.

    A file that does not exist counts too (one made later moves HEAD): a ``.git`` of `root` or a folder
    between it and the repository's (a nearer repository), the ``.git`` file naming the git directory, HEAD,
    the branch's loose ref and, when there is none, ``packed-refs``; of a linked worktree, HEAD is its own
    and the refs are the main repository's. No repository at or above `root`: ``root/.git`` alone (a
    repository made above the brain later is not seen). None: a layout not read here (``$GIT_COMMON_DIR``,
    the reftable format, a symbolic ref that is not a branch, a loose ref that is itself symbolic). git's
    own writes replace these files (a lock file renamed over them): each write is a new inode.
    """
    if "GIT_COMMON_DIR" in os.environ:  # (GIT_DIR and GIT_WORK_TREE are dropped for the product's git calls)
        return None
    found = _git_dir(root)
    if found is None:
        return None
    folder, gitdir, dot_file = found
    above = (dot_file or gitdir).parent
    files = [str(c / ".git") for c in (folder, *folder.parents) if above in c.parents]  # (none there now)
    if dot_file is not None:
        files.append(str(dot_file))
    if not gitdir.is_dir():
        return (*files, str(gitdir)) if dot_file is None else None
    try:
        common = gitdir
        if dot_file is not None and (gitdir / "commondir").exists():  # (a `.git` folder's: `foreign_common_dir`)
            common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
        if (gitdir / "reftable").exists() or (common / "reftable").exists():
            return None
        head = (gitdir / "HEAD").read_text(encoding="utf-8")
        files.append(str(gitdir / "HEAD"))
        if not head.startswith("ref: "):
            return tuple(files) if _hex_oid(head) else None
        ref = head[len("ref: "):].strip()
        if not ref.startswith("refs/heads/") or ".." in ref:
            return None
        loose = common / ref
        files.append(str(loose))
        if loose.exists():
            return tuple(files) if _hex_oid(loose.read_text(encoding="utf-8")) else None
        return (*files, str(common / "packed-refs"))
    except (OSError, ValueError):
        return None


def outside_git(root: Path) -> bool:
    """True when no git repository can hold `root`, found without a git process (False when unsure).

    git looks for its repository from `root` up (`git_output` drops ``$GIT_DIR`` and ``$GIT_WORK_TREE``): in
    each folder a ``.git`` entry, or the folder itself as a bare repository, whose ``HEAD`` it needs. Neither
    in `root` nor in any folder above it: git would answer "not a git repository".
    """
    if any(name in os.environ for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")):
        return False  # (the product's git calls drop the first two; a caller's own may not)
    try:
        folder = root.resolve()
        return not any(os.path.lexists(candidate / ".git") or os.path.lexists(candidate / "HEAD")
                       for candidate in (folder, *folder.parents))
    except (OSError, ValueError, RuntimeError):
        return False


def git_output(root: Path, *args: str, data: bytes | None = None) -> bytes | None:
    """One git command's output in the brain folder, or None on any failure."""
    import subprocess

    from brain_tui.core.sync.gitops import git_env

    if foreign_common_dir(root) is not None:
        return None
    try:
        proc = subprocess.run(["git", *args], cwd=root, input=data, capture_output=True,
                              env=git_env(), timeout=_GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def blob_id(data: bytes, like: str) -> str:
    """The ID git gives a blob of these bytes, in the hash of the object ID `like` (SHA-1, or SHA-256)."""
    name = "sha256" if len(like) == 64 else "sha1"
    try:  # CPython's own small hash module: `hashlib` loads OpenSSL (~4 ms) on the path of every read
        new: Callable[[], Any] = getattr(importlib.import_module(f"_{name}"), name)
    except ImportError:  # another interpreter
        import hashlib

        new = getattr(hashlib, name)
    hasher = new()
    hasher.update(b"blob %d\0" % len(data))
    hasher.update(data)
    return str(hasher.hexdigest())
