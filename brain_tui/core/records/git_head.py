"""HEAD's commit ID read from the repository's files, without a git process (the closed sets' warm check), and
the one git call the closed sets make for the rest (`git_output`)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["git_output", "head_commit", "outside_any_repository"]

_GIT_TIMEOUT_S = 20.0


def _hex_oid(text: str) -> str | None:
    oid = text.strip()
    return oid if len(oid) in (40, 64) and all(c in "0123456789abcdef" for c in oid) else None


def head_commit(root: Path) -> str | None:
    """HEAD's commit ID read from the repository's files (no git process), or None when unsure.

    Only the plain layout is read: a ``.git`` folder (or a ``gitdir:`` file) above `root`, HEAD
    naming a branch held as a loose ref or in ``packed-refs``, or a detached HEAD. Anything else
    (``$GIT_DIR``, linked worktrees, the reftable format, a symbolic ref that is not a branch) answers
    None and the caller asks git.
    """
    if any(name in os.environ for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")):
        return None
    folder = root.resolve()
    for candidate in (folder, *folder.parents):
        dot = candidate / ".git"
        if dot.is_dir():
            gitdir = dot
            break
        if dot.is_file():
            try:
                text = dot.read_text(encoding="utf-8").strip()
            except (OSError, ValueError):
                return None
            if not text.startswith("gitdir:"):
                return None
            gitdir = (candidate / text[len("gitdir:"):].strip()).resolve()
            break
    else:
        return None
    try:
        if (gitdir / "commondir").exists() or (gitdir / "reftable").exists():
            return None
        head = (gitdir / "HEAD").read_text(encoding="utf-8")
        if not head.startswith("ref: "):
            return _hex_oid(head)
        ref = head[len("ref: "):].strip()
        if not ref.startswith("refs/heads/") or ".." in ref:
            return None
        loose = gitdir / ref
        if loose.is_file():
            return _hex_oid(loose.read_text(encoding="utf-8"))
        with open(gitdir / "packed-refs", encoding="utf-8") as packed:
            for line in packed:
                oid, _, name = line.rstrip("\n").partition(" ")
                if name == ref:
                    return _hex_oid(oid)
    except (OSError, ValueError):
        return None
    return None


def outside_any_repository(root: Path) -> bool:
    """True only when no git repository can hold `root`, seen without a git process; False when unsure.

    No git variable names a repository, and no folder from `root` up holds a ``.git`` (of any kind) or is
    itself a git directory (``HEAD`` and ``objects/``, where git's own search would stop). A brain without
    git (a legacy brain, `Brain(commit=False)` on a bare folder) then reads without a failing git process
    for every snapshot.
    """
    if any(name in os.environ for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")):
        return False
    try:
        folder = root.resolve()
    except (OSError, RuntimeError):
        return False
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git") or (
                os.path.lexists(candidate / "HEAD") and os.path.isdir(candidate / "objects")):
            return False
    return True


def git_output(root: Path, *args: str, data: bytes | None = None) -> bytes | None:
    """One git command's output in the brain folder, or None on any failure."""
    import subprocess

    from brain_tui.core.sync.gitops import git_env

    try:
        proc = subprocess.run(["git", *args], cwd=root, input=data, capture_output=True,
                              env=git_env(), timeout=_GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None
