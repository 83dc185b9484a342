"""Git plumbing for the audit trail: exact-path commits, repository checks (SPEC 11).

Uses the `git` command directly: one short subprocess per operation keeps the `bsi` start-up fast and makes "commit
exactly these paths" explicit (`core.sync.commits`: plumbing over a copy of the index, `git commit` over a copy
holding HEAD and the paths where it cannot promise the same commit), which never takes what another session staged.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from brain_tui.core.errors import BsiError, CannotWrite, DiskFull
from brain_tui.core.records.git_head import foreign_common_dir

_GIT_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")
#: What HEAD holds is read as git stores it (SPEC 22): no replace ref (`refs/replace/`) answers another object, no
#: graft file (`info/grafts`) other parents. Both are plain files of the git directory an agent's shell may write;
#: through one, a paused claim's blob read as a closed claim. (No file can exist below /dev/null.)
_AS_STORED = {"GIT_NO_REPLACE_OBJECTS": "1", "GIT_GRAFT_FILE": os.path.join(os.devnull, "no-grafts")}
#: Settings that make git run a program of the repository's. bsi's own git runs none of them: an agent's shell may
#: write `.git` (its sandbox leaves it writable so satellites commit) and bsi runs outside that sandbox (SPEC 21).
#: No fsmonitor (every git call); no external diff or textconv (`_NO_DIFF_PROGRAMS`);
#: none of the programs the repository's own config names (`_drivers`; the user's global config is theirs); no hook
#: but on a push to a remote on a local path (`run_git(remote_hooks=True)`): that remote runs its own hooks in the
#: push's environment (the push itself is `--no-verify`, and names git's own receive-pack; a fetch its upload-pack).
_NO_FSMONITOR, _NO_HOOKS = (("core.fsmonitor", "false"),), (("core.hooksPath", os.devnull),)
_NO_DIFF_PROGRAMS = dict.fromkeys(("diff", "show", "log"), ("--no-ext-diff", "--no-textconv"))
_drivers_seen: dict[str, tuple[tuple[str, int, int, int], list[tuple[str, str]]]] = {}  # {.git/config: (key, answer)}
_DRIVER_KEYS = (r"^(filter\..*\.(clean|smudge|process)|merge\..*\.driver|core\.(sshcommand|askpass)"
                r"|gpg\.(.*\.)?program|credential\.(.*\.)?helper)$")
#: What a key of `_DRIVER_KEYS` the repository's own config (`_REPOSITORY_SCOPES`: an agent can write it, not the
#: user's global config) names is set to: nothing (no program), plain ``ssh`` for the ssh command.
_NEUTRAL, _REPOSITORY_SCOPES = {"core.sshcommand": "ssh"}, ("local", "worktree")
#: bsi's own merge drivers (`sync.settle`), written before each use.
_OWN_DRIVERS = ("merge.bsi-protocol.driver", "merge.bsi-index.driver")


class GitError(BsiError):
    """A git command failed in a way the user must see (exit 25; SPEC keeps 1 for preflight and locks).

    `reason`: what happened in a few words, without what the refusal did to the write (a human's pause that goes on
    without the remote says it in its own words: `sync.brake`); the message when not given. `step`: what a person
    does about it before the next sync, when anything."""

    exit_code = 25

    def __init__(self, message: str, payload: dict[str, Any] | None = None, *, reason: str | None = None,
                 step: str = "") -> None:
        super().__init__(message, payload)
        self.reason = reason or message
        self.step = step


class GitBusy(GitError):
    """A rebase, merge, cherry-pick or revert is in progress: no write until it ends (exit 20)."""

    exit_code = 20


class RebaseConflict(GitError):
    """Rebasing local commits onto the remote stopped on a conflict; it was aborted (exit 21)."""

    exit_code = 21


class FastForwardFailed(GitError):
    """The work tree could not be fast-forwarded to the remote tip (exit 22)."""

    exit_code = 22


class CommitFailed(GitError):
    """`git commit` failed; the files it was given were restored (exit 23)."""

    exit_code = 23


class PushDeclined(GitError):
    """The remote refused the push for a reason a retry cannot change: a hook, a protected branch (exit 24)."""

    exit_code = 24


class GitTimeout(GitError):
    """A git command ran past its time limit and was stopped."""


def git_env(settings: Sequence[tuple[str, str]] = _NO_HOOKS) -> dict[str, str]:
    """Environment for git subprocesses: no pager, no prompts, stable output, no fsmonitor, objects and history as
    stored (`_AS_STORED`), and `settings` (more ``(key, value)`` set as ``git -c`` would: by default no hook).
    `PATH` keeps only its absolute folders: git runs in the brain's folder, where a relative one (`bin`, `.`, an
    empty entry, or a PATH left empty) would find a `git` an agent wrote there."""
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROP}
    if "PATH" in env:  # none left is `os.defpath`: an empty PATH looks the program up in the folder git runs in
        env["PATH"] = os.pathsep.join(e for e in env["PATH"].split(os.pathsep) if os.path.isabs(e)) or os.defpath
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_PAGER": "cat", **_AS_STORED})
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0
    for key, value in (*_NO_FSMONITOR, *settings):
        env[f"GIT_CONFIG_KEY_{count}"], env[f"GIT_CONFIG_VALUE_{count}"] = key, value
        count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


def _drivers(root: str | Path, timeout: float = 20.0) -> list[tuple[str, str]]:
    """The programs the repository's own config names (filter and merge drivers but bsi's own, ssh and askpass
    commands, signing programs, credential helpers), each set to nothing (ssh to plain ``ssh``). Kept while
    ``.git/config`` keeps its stat key and names no other file (an include, a worktree config), else read each call.
    `timeout` bounds the reading (at most 20 s); one that runs past it raises `subprocess.TimeoutExpired`: the
    command is not run with the repository's programs unread."""
    config = os.path.join(root, ".git", "config")
    try:
        with open(config, "rb") as handle:
            st, text = os.fstat(handle.fileno()), handle.read().lower()
        key: tuple[str, int, int, int] | None = (os.path.abspath(config), st.st_ino, st.st_mtime_ns, st.st_size)
        key = None if b"include" in text or b"worktreeconfig" in text else key
    except OSError:
        key = None
    if key is not None and _drivers_seen.get(key[0], (None, []))[0] == key:
        return _drivers_seen[key[0]][1]
    limit = min(20.0, timeout)
    try:
        proc = _run(["git", "config", "--show-scope", "--get-regexp", _DRIVER_KEYS], root, git_env(), limit)
        if proc.returncode not in (0, 1):  # git before 2.26 (no --show-scope): every value counts as the repository's
            proc = _run(["git", "config", "--get-regexp", _DRIVER_KEYS], root, git_env(), limit)
            proc.stdout = "".join(f"local\t{line}\n" for line in proc.stdout.splitlines())
    except OSError:
        return []  # no git to run: the command itself fails and says so
    lines = proc.stdout.splitlines() if proc.returncode == 0 else []
    names = {rest.partition(" ")[0] for scope, _tab, rest in (line.partition("\t") for line in lines)
             if scope in _REPOSITORY_SCOPES}
    found = [(name, _NEUTRAL.get(name.lower(), "")) for name in sorted(names) if name.lower() not in _OWN_DRIVERS]
    if key is not None:
        _drivers_seen[key[0]] = (key, found)
    return found


def _command(args: Sequence[str]) -> tuple[int, str]:
    """Where the git command of `args` is, and which (after the ``-c key=value`` options bsi puts first)."""
    at = 0
    while at + 1 < len(args) and args[at] == "-c":
        at += 2
    return at, (args[at] if at < len(args) else "")


def run_git(
    root: str | Path,
    *args: str,
    check: bool = True,
    timeout: float = 60.0,
    env: dict[str, str] | None = None,
    input_text: str | None = None,
    _retried: bool = False,
    remote_hooks: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run one git command in `root` and capture its output (no program of the repository's: `_NO_HOOKS`,
    `_drivers`; `remote_hooks`: hooks stay on, for a push to a remote on a local path).

    Raises:
        GitError: git is missing, times out, or (with check) exits non-zero.
    """
    try:
        at, command = _command(args)
        settings = [*(() if remote_hooks else _NO_HOOKS), *(_drivers(root, timeout) if command != "config" else ())]
        line = [*args[:at + 1], *_NO_DIFF_PROGRAMS.get(command, ()), *args[at + 1:]]
        proc = _run(["git", *line], root, {**git_env(settings), **(env or {})}, timeout, input_text)
    except FileNotFoundError:
        if not Path(root).is_dir():  # the working folder is missing, not git
            raise GitError(f"the folder {root} is gone (deleted or moved)") from None
        raise GitError("git is not installed: install git to keep the audit trail, or use --no-commit") from None
    except subprocess.TimeoutExpired:
        raise GitTimeout(f"git {args[0]} timed out after {timeout:.0f}s") from None
    if proc.returncode != 0 and not _retried and "index.lock" in proc.stderr and _clear_stale_index_lock(root):
        return run_git(root, *args, check=check, timeout=timeout, env=env, input_text=input_text, _retried=True,
                       remote_hooks=remote_hooks)
    if check and proc.returncode != 0:
        refuse_system_error(args[0], proc.stderr)
        raise GitError(f"git {args[0]} failed: {reason(proc.stderr or proc.stdout, str(proc.returncode))}")
    return proc


#: What git prints when the system refused a write, and what it means (errno strings, LC_ALL=C).
_NO_ROOM = (("No space left on device", "no space left on the device"),
            ("Disk quota exceeded", "the disk quota is exceeded"))
_READ_ONLY = (("Read-only file system", "the file system is read-only"),)


def refuse_system_error(command: str, stderr: str) -> None:
    """Raise the system's refusal when git failed on a full disk (74) or a read-only file system (73).

    One place for every git step: a full disk inside `git commit` is not a git failure (23) but the same refusal as a
    full disk in the product's own write; the caller's journal puts the files back.
    """
    for needle, said in _NO_ROOM:
        if needle in stderr:
            raise DiskFull(f"cannot write the brain's git repository: {said} (git {command}); the command "
                           "stopped and committed nothing (free some space, then run it again)")
    for needle, said in _READ_ONLY:
        if needle in stderr:
            raise CannotWrite(f"cannot write the brain's git repository: {said} (git {command}); the command "
                              "stopped and committed nothing (run it where the brain is writable)")


def reason(output: str, default: str) -> str:
    """The telling line of git's error output as plain text: its `fatal:`/`error:` line, else the first."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return line.split(":", 1)[1].strip()
    return lines[0] if lines else default


def _run(cmd: list[str], cwd: str | Path, env: dict[str, str], timeout: float,
         input_text: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `cmd` in its own process group; on timeout the whole group is killed.

    Killing only git is not enough: a transport it started (ssh, a credential
    helper) keeps the output pipes open and the wait would hang with it.
    """
    # Never the caller's stdin (`bsi mcp`: it is the protocol stream).
    stdin = subprocess.DEVNULL if input_text is None else subprocess.PIPE
    foreign = foreign_common_dir(cwd)
    if foreign is not None:  # git would act on the repository it names, with its config (`git_head`)
        raise GitError(f"{foreign} makes git use the refs, objects and config of another folder (only a linked "
                       "worktree's git folder has one): bsi runs no git until a human removes that file")
    with subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=stdin, text=True, start_new_session=True) as proc:
        try:
            out, err = proc.communicate(input_text, timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def git_dir(root: str | Path, timeout: float = 60.0) -> Path | None:
    """The absolute git directory of the work tree holding `root` (None outside a repository); `timeout` bounds
    the git process asked."""
    from brain_tui.core.records.git_head import outside_git

    if outside_git(Path(root)):
        return None  # known without a git process
    proc = run_git(root, "rev-parse", "--absolute-git-dir", check=False, timeout=timeout)
    return Path(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip() else None


def toplevel(root: str | Path) -> Path:
    """The top folder of the work tree holding `root`."""
    return Path(run_git(root, "rev-parse", "--show-toplevel").stdout.strip())


def top_prefix(root: str | Path) -> str:
    """The brain's folder relative to the repository top, with a trailing `/` ("" at the top)."""
    proc = run_git(root, "rev-parse", "--show-prefix", check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def brain_relative(path: str, prefix: str) -> str:
    """A repository-top-relative path made relative to the brain folder (`../x` when outside it)."""
    if not prefix or path.startswith(prefix):
        return path[len(prefix):]
    return os.path.relpath(path, prefix.rstrip("/"))


def git_process_running(root: str | Path) -> bool:
    """True when a git process works in this repository now (its cwd is inside it)."""
    import psutil

    top = str(Path(root).resolve())
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
    if git_process_running(base):
        raise GitError(f"git is busy in {base} ({lock} exists); wait for it to finish, or if no git command "
                       f"is running: rm {lock}")
    lock.unlink(missing_ok=True)
    return True


def is_repository(root: str | Path) -> bool:
    """True when `root` is the top of a git work tree (or inside one)."""
    return run_git(root, "rev-parse", "--is-inside-work-tree", check=False).returncode == 0


def ever_added(root: str | Path, folder: str) -> set[str] | None:
    """Paths below `folder` (relative to `root`) that some commit of HEAD's history added (empty when none ever
    was); None when it cannot be known (not a repository, no commit yet, git failed)."""
    if not is_repository(root):
        return None
    proc = run_git(root, "log", "--format=", "--name-only", "-z", "--diff-filter=A", "--relative", "--",
                   folder, check=False)
    if proc.returncode != 0:
        return None
    return {name.strip("\n") for name in proc.stdout.split("\0") if name.strip("\n")}


def commit_exists(root: str | Path, rev: str) -> bool:
    """True when `rev` (a hash, full or abbreviated) names a commit of the repository holding `root`."""
    if not rev or rev.startswith("-") or not is_repository(root):
        return False
    return run_git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}",
                   check=False).returncode == 0


def has_identity(root: str | Path) -> bool:
    """True when git knows a user name and e-mail for commits (one `git config` process)."""
    proc = run_git(root, "config", "--get-regexp", r"^user\.(name|email)$", check=False)
    keys = {line.split(" ", 1)[0] for line in proc.stdout.splitlines() if " " in line and line.split(" ", 1)[1]}
    return {"user.name", "user.email"} <= keys


def identity_args(root: str | Path) -> list[str]:
    """`-c user.name=… -c user.email=…` when git has no identity, so commits never fail on it."""
    return [] if has_identity(root) else fallback_identity()


def fallback_identity() -> list[str]:
    """`-c user.name=$USER -c user.email=$USER@host`: the identity bsi commits under when git has none."""
    user = os.environ.get("USER") or "bsi"
    host = os.uname().nodename
    return ["-c", f"user.name={user}", "-c", f"user.email={user}@{host}"]


def commit_paths(root: str | Path, paths: Sequence[str], message: str, when: datetime | None = None,
                 landed: Callable[[str, str], None] | None = None) -> str | None:
    """Commit exactly `paths` (added, changed or deleted) with `message`; see `core.sync.commits`.

    Never stages or commits anything else, whatever is in the index. `when` (the brain's clock) dates the commit, so
    `--now` runs are reproducible. `landed` is told ``(parent, commit)`` when the commit is known to be the parent's
    tree plus `paths`. Returns the new commit's short hash, or None when nothing changed."""
    from brain_tui.core.sync import commits

    return commits.commit_paths(root, paths, message, when, landed)


def head_summary(root: str | Path, timeout: float = 2.0) -> str | None:
    """The brain version, `git log -1 --oneline` (SPEC 16); None outside a repository or before its first commit;
    GitError when git is missing or timed out."""
    proc = run_git(root, "log", "-1", "--oneline", check=False, timeout=timeout)
    return (proc.stdout.strip() or None) if proc.returncode == 0 else None


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


def literal(paths: Sequence[str]) -> list[str]:
    """Pathspecs that name exactly `paths` (no glob magic); `.` for the whole folder."""
    return [f":(literal){p}" if p != "." else "." for p in paths]


def scope_tree(root: str | Path, paths: Sequence[str], excludes: Sequence[str] = ()) -> str | None:
    """The git tree hash of `paths` (relative to `root`) as they are in the work tree now, ignored files left out.

    Staged into a throw-away index (the user's index is never touched); the tree holds only
    those paths, so a change elsewhere never moves it. None outside a repository.
    """
    import shutil
    import tempfile

    gdir = git_dir(root)
    if gdir is None:
        return None
    top = toplevel(root)
    with tempfile.TemporaryDirectory(prefix="bsi-tree-") as tmp:
        work, only = Path(tmp) / "index", Path(tmp) / "scope-index"
        if (gdir / "index").exists():
            shutil.copyfile(gdir / "index", work)
        env = {"GIT_INDEX_FILE": str(work)}
        present = [p for p in paths if (Path(root) / p).exists() or p == "."]
        gone = [p for p in paths if p not in present]
        if present:
            run_git(root, "add", "-A", "--", *literal(present), env=env)
        if gone:
            run_git(root, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *literal(gone), env=env)
        # Excludes are applied here, not as pathspecs: `ls-files` with an exclude pathspec lists nothing (git 2.39).
        prefix = top_prefix(root)
        skip = tuple(prefix + e for e in excludes)
        entries = run_git(root, "ls-files", "-s", "-z", "--full-name", "--", *literal(paths), env=env).stdout
        listing = "".join(
            entry + "\0" for entry in entries.split("\0")
            if entry and not any(entry.split("\t", 1)[-1] == s or entry.split("\t", 1)[-1].startswith(s + "/")
                                 for s in skip)
        )
        only_env = {"GIT_INDEX_FILE": str(only)}
        run_git(top, "update-index", "-z", "--index-info", env=only_env, input_text=listing)
        return run_git(top, "write-tree", env=only_env).stdout.strip()


def changed_between(root: str | Path, old_tree: str, new_tree: str) -> list[str]:
    """`git diff --name-status` of two trees: ``M path``, ``A path``, ``D path`` lines (repository-top paths)."""
    proc = run_git(root, "diff-tree", "-r", "--no-renames", "--name-status", "-z", old_tree, new_tree, check=False)
    parts = [p for p in proc.stdout.split("\0") if p]
    return [f"{parts[i]} {parts[i + 1]}" for i in range(0, len(parts) - 1, 2)] if proc.returncode == 0 else []


def session_commits(root: str | Path, needle: str, since: datetime | None, limit: int = 50) -> list[tuple[str, str]]:
    """(hash, subject) of HEAD's commits whose message carries `needle` (fixed string), newest first."""
    args = ["log", f"-n{limit}", "--format=%H%x1f%s", "--fixed-strings", f"--grep={needle}"]
    if since is not None:
        args.append(f"--since={since.isoformat()}")
    proc = run_git(root, *args, "HEAD", "--", check=False)
    if proc.returncode != 0:
        return []
    return [tuple(line.split("\x1f", 1)) for line in proc.stdout.splitlines() if "\x1f" in line]  # type: ignore[misc]
