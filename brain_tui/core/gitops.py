"""Git plumbing for the audit trail: exact-path commits, repository checks (SPEC 11).

Uses the `git` command directly: one short subprocess per operation keeps the
`bsi` start-up fast and makes "commit exactly these paths" explicit
(`git commit --only -- paths`), which never takes what another session staged.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from brain_tui.core.errors import BsiError

_GIT_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")


class GitError(BsiError):
    """A git command failed in a way the user must see."""

    exit_code = 1


def git_env() -> dict[str, str]:
    """Environment for git subprocesses: no pager, no prompts, stable output."""
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROP}
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_PAGER": "cat"})
    return env


def run_git(
    root: str | Path,
    *args: str,
    check: bool = True,
    timeout: float = 60.0,
    env: dict[str, str] | None = None,
    _retried: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run one git command in `root` and capture its output.

    Raises:
        GitError: git is missing, times out, or (with check) exits non-zero.
    """
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=root,
            stdin=subprocess.DEVNULL,  # never the caller's stdin (`bsi mcp`: it is the protocol stream)
            env={**git_env(), **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed: install git to keep the audit trail, or use --no-commit") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} timed out after {timeout:.0f}s") from None
    if proc.returncode != 0 and not _retried and "index.lock" in proc.stderr and _clear_stale_index_lock(root):
        return run_git(root, *args, check=check, timeout=timeout, env=env, _retried=True)
    if check and proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {detail[-1] if detail else proc.returncode}")
    return proc


def _git_process_running(root: Path) -> bool:
    """True when a git process works in this repository now (its cwd is inside it)."""
    import psutil

    top = str(root.resolve())
    for proc in psutil.process_iter(["name", "cwd"]):
        try:
            if proc.info["name"] == "git" and proc.info["cwd"] and str(proc.info["cwd"]).startswith(top):
                return True
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return False


def _clear_stale_index_lock(root: str | Path) -> bool:
    """Remove `.git/index.lock` left by a killed process; never one a live git holds.

    Waits a little first (another git may be finishing). Returns True when a
    stale lock was removed and the command is worth retrying.

    Raises:
        GitError: a lock remains and a git process is running: the exact repair step is given.
    """
    base = Path(root)
    lock = base / ".git" / "index.lock"
    for _ in range(10):
        if not lock.exists():
            return True
        time.sleep(0.1)
    if _git_process_running(base):
        raise GitError(f"git is busy in {base} ({lock} exists); wait for it to finish, or if no git command "
                       f"is running: rm {lock}")
    lock.unlink(missing_ok=True)
    return True


def is_repository(root: str | Path) -> bool:
    """True when `root` is the top of a git work tree (or inside one)."""
    return run_git(root, "rev-parse", "--is-inside-work-tree", check=False).returncode == 0


def has_identity(root: str | Path) -> bool:
    """True when git knows a user name and e-mail for commits."""
    name = run_git(root, "config", "user.name", check=False).stdout.strip()
    mail = run_git(root, "config", "user.email", check=False).stdout.strip()
    return bool(name and mail)


def identity_args(root: str | Path) -> list[str]:
    """`-c user.name=… -c user.email=…` when git has no identity, so commits never fail on it."""
    if has_identity(root):
        return []
    user = os.environ.get("USER") or "bsi"
    host = os.uname().nodename
    return ["-c", f"user.name={user}", "-c", f"user.email={user}@{host}"]


def commit_paths(root: str | Path, paths: Sequence[str], message: str, when: datetime | None = None) -> str | None:
    """Commit exactly `paths` (added, changed or deleted) with `message`.

    Never stages or commits anything else, whatever is in the index. `when`
    (the brain's clock) dates the commit, so `--now` runs are reproducible.

    Returns:
        The new commit's short hash, or None when nothing changed.
    """
    unique = sorted(set(paths))
    if not unique:
        return None
    present = [p for p in unique if (Path(root) / p).exists()]
    tracked_gone = [
        p for p in unique if p not in present and run_git(root, "ls-files", "--error-unmatch", "--", p,
                                                           check=False).returncode == 0
    ]
    candidates = present + tracked_gone
    if not candidates:
        return None
    if present:
        run_git(root, "add", "--", *present)
    status = run_git(root, "status", "--porcelain", "--", *candidates).stdout
    if not status.strip():
        return None
    dates = {}
    if when is not None:
        stamp = when.isoformat()
        dates = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    run_git(root, *identity_args(root), "commit", "--quiet", "--no-verify", "--only", "-m", message,
            "--", *candidates, env=dates)
    return run_git(root, "rev-parse", "--short", "HEAD").stdout.strip()


def head_summary(root: str | Path) -> str:
    """`git log -1 --oneline`, or "" when there is no commit."""
    proc = run_git(root, "log", "-1", "--oneline", check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def current_branch(root: str | Path) -> str:
    """The checked-out branch name, or "" (detached or not a repository)."""
    proc = run_git(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def human_identity(root: str | Path) -> str:
    """Who a human is for `gate_history`: git `user.name <user.email>`, else `$USER@host`."""
    name = run_git(root, "config", "user.name", check=False).stdout.strip()
    mail = run_git(root, "config", "user.email", check=False).stdout.strip()
    if name and mail:
        return f"{name} <{mail}>"
    if name:
        return name
    return f"{os.environ.get('USER') or 'user'}@{os.uname().nodename}"
