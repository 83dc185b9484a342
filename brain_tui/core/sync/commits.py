"""Committing exactly the listed paths (SPEC 11): the commit every write makes.

The fast way builds the commit with git's plumbing over a private copy of the index, so git never
refreshes (lstats) the whole work tree and the real index is read and written once:

1. `rev-parse` (the git dirs, HEAD and its tree) and one `git config` (identity, signing, hooks);
2. the index is copied into the git directory; `write-tree` on the copy must give HEAD's tree (else
   something else is staged and the porcelain decides, as before);
3. the paths staged in the copy (`exact_stage`: a file an attribute would convert by its bytes as they are, the
   rest by `update-index --add --remove`) and `write-tree` on it: HEAD's tree plus exactly those paths (the
   copy's cache-tree keeps every other folder's tree as it is);
4. `commit-tree` with today's message, identity and dates;
5. the copy becomes the index (under `index.lock`, only if the index did not change meanwhile; else
   the paths are staged in the real index), then `update-ref HEAD new old` (compare-and-swap: the
   commit point, with `git commit`'s reflog line), `maintenance run --auto` as `git commit` runs it.

A kill or a failure before `update-ref` leaves HEAD as it was; the caller's journal (`records.journal`) puts the
files and their index entries back. Where the plumbing cannot promise the commit `git commit --no-verify --only`
would make — no HEAD yet, something else staged, signing, a commit hook that `--no-verify` does not skip, a split
index, a folder or a name beyond ASCII among the paths — `git commit --no-verify` runs instead, over a copy of the
index holding HEAD and the paths (`commit_porcelain`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from brain_tui.core.record import record
from brain_tui.core.sync.exact_stage import stage_exact
from brain_tui.core.sync.gitops import (
    CommitFailed,
    GitError,
    fallback_identity,
    identity_args,
    literal,
    reason,
    refuse_system_error,
    run_git,
)

#: The hooks `git commit --no-verify` still runs (pre-commit and commit-msg are the ones it skips).
_HOOKS_COMMIT_RUNS = ("prepare-commit-msg", "post-commit", "post-index-change")
#: Config that makes `git commit -m` do what the plumbing does not (or names the identity).
_CONFIG_KEYS = r"^(user\.(name|email)|commit\.(gpgsign|cleanup)|core\.(hookspath|splitindex)|maintenance\.auto)$"
_FALSE = ("false", "no", "off", "0")
#: The private index copies live in the git directory (same file system: renamed onto the index).
_COPY_PREFIX = "bsi-index-"


#: Told ``(parent, commit)`` (full IDs) once a commit is made: its tree is the parent's plus exactly the paths.
Landed = Callable[[str, str], None]


def commit_paths(root: str | Path, paths: Sequence[str], message: str, when: datetime | None = None,
                 landed: Landed | None = None) -> str | None:
    """Commit exactly `paths` (added, changed or deleted, relative to `root`) with `message`; the new commit's
    short hash, or None when nothing changed.

    Never stages or commits anything else, whatever is in the index, and never runs a status of the
    whole work tree. `when` (the brain's clock) dates the commit, so `--now` runs are reproducible.
    The index ends up holding HEAD's entries for `paths`. `landed`, if given, is told the parent and
    the new commit after HEAD moved (not when the porcelain made the commit: it does not say its parent).

    Raises:
        InvalidData: git cannot date a commit at `when` (`clock.require_commit_date`, exit 65); nothing staged.
        CommitFailed: the commit could not be made (exit 23); HEAD did not move.
        GitError: git failed otherwise (exit 25); DiskFull/CannotWrite for a full or read-only disk."""
    unique = sorted(set(paths))
    if not unique:
        return None
    if when is not None:
        from brain_tui.core.clock import require_commit_date

        require_commit_date(when)
    repo = _plumbing_repo(Path(root), unique, message)
    if repo is None:
        return commit_porcelain(root, unique, message, when)
    return _commit_plumbing(repo, unique, when, landed)


@record
class _Repo:
    """What the plumbing commit needs to know of the repository."""

    root: Path
    top: Path
    git_dir: Path
    head: str
    head_tree: str
    message: str
    identity: list[str]
    maintain: bool


def _plumbing_repo(root: Path, paths: list[str], message: str) -> _Repo | None:
    """The repository facts for the plumbing commit, or None when the porcelain must decide."""
    cleaned = _cleaned(message)
    # A folder is git add's to expand; a name beyond ASCII is git add's to normalise (core.precomposeUnicode).
    if not cleaned or any(not p.isascii() or (os.path.isdir(root / p) and not os.path.islink(root / p))
                          for p in paths):
        return None
    proc = run_git(root, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir",
                   "--show-toplevel", "HEAD", "HEAD^{tree}", check=False)
    facts = proc.stdout.split("\n")
    if proc.returncode != 0 or len(facts) < 5:
        return None  # no commit yet, a broken ref, an old git: the porcelain says what is wrong
    gdir, common, top = Path(facts[0]), Path(facts[1]), Path(facts[2])
    config = run_git(root, "config", "--get-regexp", _CONFIG_KEYS, check=False).stdout
    settings: dict[str, str] = {}
    for line in config.splitlines():
        key, _, value = line.partition(" ")
        settings[key] = value
    if not _plumbing_allowed(settings, gdir, common, top):
        return None
    identity = [] if settings.get("user.name") and settings.get("user.email") else fallback_identity()
    return _Repo(root=root, top=top, git_dir=gdir, head=facts[3].strip(), head_tree=facts[4].strip(), message=cleaned,
                 identity=identity, maintain=_truthy(settings.get("maintenance.auto", "true")))


def _truthy(value: str) -> bool:
    """A git boolean (an empty value, as `key` alone, is true)."""
    return value.strip().lower() not in _FALSE


def _plumbing_allowed(settings: dict[str, str], gdir: Path, common: Path, top: Path) -> bool:
    """False when `git commit` would sign, clean the message its own way, run a hook, or a split index is on."""
    if any(key in settings and _truthy(settings[key]) for key in ("commit.gpgsign", "core.splitindex")):
        return False
    if "commit.cleanup" in settings:
        return False
    hooks = Path(os.path.expanduser(settings["core.hookspath"])) if "core.hookspath" in settings else common / "hooks"
    if not hooks.is_absolute():
        hooks = top / hooks
    if any(os.access(hooks / name, os.X_OK) for name in _HOOKS_COMMIT_RUNS):
        return False
    try:
        names = os.listdir(gdir)
    except OSError:
        return False
    _sweep_copies(gdir, names)
    return "index" in names and not any(name.startswith("sharedindex.") for name in names)


def _sweep_copies(gdir: Path, names: list[str]) -> None:
    """Remove the index copies a killed `bsi` left in the git directory (their process is gone)."""
    for name in names:
        if not name.startswith(_COPY_PREFIX):
            continue
        pid = name[len(_COPY_PREFIX):].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(gdir / name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stat_key(path: Path) -> tuple[int, int, int, int]:
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _commit_plumbing(repo: _Repo, paths: list[str], when: datetime | None, landed: Landed | None = None) -> str | None:
    index = repo.git_dir / "index"
    copy = repo.git_dir / f"{_COPY_PREFIX}{os.getpid()}"
    try:
        key = _stat_key(index)
        shutil.copyfile(index, copy)
        # git dates an index by its file's mtime and re-reads an entry as new as that (racily clean): the copy
        # keeps the index's age, else an edit of the same size in the index's second would read as unchanged.
        os.utime(copy, ns=(key[2], key[2]))
        if _stat_key(index) != key:
            return commit_porcelain(repo.root, paths, repo.message, when)  # the index moved while copied
        env = {"GIT_INDEX_FILE": str(copy)}
        if _tree(repo, env, "check") != repo.head_tree:
            return commit_porcelain(repo.root, paths, repo.message, when)  # something else is staged
        stage_exact(repo.root, repo.top, paths, env, _step)
        tree = _tree(repo, env, "commit")
        if tree == repo.head_tree:
            return None
        dates = {} if when is None else {"GIT_AUTHOR_DATE": when.isoformat(), "GIT_COMMITTER_DATE": when.isoformat()}
        commit = _step(repo.root, "commit-tree", tree, "-p", repo.head, env=dates, input_text=repo.message,
                       options=repo.identity).stdout.strip()
        _install(repo, copy, key, paths)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(copy)
    subject = repo.message.split("\n", 1)[0]
    moved = run_git(repo.root, "update-ref", "-m", f"commit: {subject}", "HEAD", commit, repo.head, check=False)
    if moved.returncode != 0:
        run_git(repo.root, "reset", "--quiet", "--", *literal(paths), check=False)
        refuse_system_error("update-ref", moved.stderr)
        raise CommitFailed(f"git commit failed: {reason(moved.stderr or moved.stdout, 'no reason given')}")
    if landed is not None:
        landed(repo.head, commit)
    if repo.maintain:  # as `git commit` does after a commit (a detached `gc --auto` when one is due)
        run_git(repo.root, "maintenance", "run", "--auto", "--quiet", check=False)
    short = run_git(repo.root, "rev-parse", "--short", commit, check=False).stdout.strip()
    return short or commit


def _tree(repo: _Repo, env: dict[str, str], why: str) -> str:
    """`git write-tree` of the index copy; "" when git cannot write one from it (the porcelain decides)."""
    proc = run_git(repo.root, "write-tree", env=env, check=False)
    if proc.returncode != 0:
        refuse_system_error("write-tree", proc.stderr)
        if why == "commit":
            raise CommitFailed(f"git commit failed: {reason(proc.stderr or proc.stdout, 'no reason given')}")
        return ""
    return proc.stdout.strip()


def _step(root: Path, command: str, *args: str, env: dict[str, str], input_text: str,
          options: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """One plumbing step that must succeed: a full disk is refused as such, anything else is a failed commit."""
    proc = run_git(root, *options, command, *args, env=env, input_text=input_text, check=False)
    if proc.returncode != 0:
        refuse_system_error(command, proc.stderr)
        raise CommitFailed(f"git commit failed: {reason(proc.stderr or proc.stdout, 'no reason given')}")
    return proc


def _install(repo: _Repo, copy: Path, key: tuple[int, int, int, int], paths: list[str]) -> None:
    """Make the index copy the index, as git replaces it (`index.lock`, then a rename), if the index is unchanged.

    When another git wrote the index since it was copied (or holds its lock), the paths are staged in
    the real index instead, keeping what that git did.
    """
    index, lock = repo.git_dir / "index", repo.git_dir / "index.lock"
    try:
        os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        pass
    else:
        installed = False
        try:
            if _stat_key(index) == key:
                os.replace(copy, lock)
                os.replace(lock, index)
                installed = True
        finally:
            if not installed:
                with contextlib.suppress(OSError):
                    os.unlink(lock)
        if installed:
            return
    stage_exact(repo.root, repo.top, paths, {}, _step)


def _cleaned(message: str) -> str:
    """The message as `git commit -m` stores it (its default "whitespace" clean-up): "" when nothing is left.

    Trailing blanks go, runs of empty lines become one, leading and trailing empty lines go, and it
    ends with a newline.
    """
    lines: list[str] = []
    gap = False
    for line in message.split("\n"):
        line = line.rstrip(" \t\r\v\f")
        if not line:
            gap = bool(lines)
            continue
        if gap:
            lines.append("")
            gap = False
        lines.append(line)
    return "".join(line + "\n" for line in lines)


#: The first line `git commit` prints: ``[<branch> (root-commit) <hash>] subject``, ``[detached HEAD <hash>] …``.
_COMMITTED_RE = re.compile(r"^\[(?:detached HEAD|[^ \]]+)(?: \(root-commit\))? ([0-9a-f]{4,64})\] ")


def commit_porcelain(root: str | Path, paths: Sequence[str], message: str, when: datetime | None = None) -> str | None:
    """`commit_paths` with `git commit --no-verify` over a copy of the index holding HEAD and the paths: where the
    plumbing cannot promise the same commit (signing, a hook, no HEAD yet, a folder or a name beyond ASCII).

    The copy is HEAD's tree (`read-tree --reset`: the stat data of the unchanged entries kept) plus exactly the paths,
    files staged as their bytes are (`exact_stage`), a folder as `git add -A` expands it; what else is staged in
    the index stays there and out of the commit, as `git commit --only` would leave it. Git runs on the named
    paths only (stage, a cached diff, commit): never a status of the whole work tree.
    """
    unique = sorted(set(paths))
    present = [p for p in unique if (Path(root) / p).exists()]
    gone = [p for p in unique if p not in present]
    tracked_gone: list[str] = []
    if gone:
        listed = run_git(root, "ls-files", "-z", "--", *literal(gone), check=False).stdout
        tracked = {name for name in listed.split("\0") if name}  # relative to `root`, as `gone` is
        tracked_gone = [p for p in gone if p in tracked]
    candidates = present + tracked_gone
    if not candidates:
        return None
    facts = run_git(root, "rev-parse", "--path-format=absolute", "--git-dir", "--show-toplevel").stdout.split("\n")
    gdir, top = Path(facts[0]), Path(facts[1])
    has_head = run_git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode == 0
    copy = gdir / f"{_COPY_PREFIX}{os.getpid()}.porcelain"
    try:
        if (gdir / "index").exists():
            shutil.copyfile(gdir / "index", copy)
        env = {"GIT_INDEX_FILE": str(copy)}
        # `--reset`: HEAD's tree whatever the copy holds (a branch moved back under the index by a program of the
        # agent's leaves entries `-m` refuses as "not uptodate"), the stat data of matching entries kept
        run_git(root, "read-tree", *(("--reset", "HEAD") if has_head else ("--empty",)), env=env)
        _stage(Path(root), top, candidates, env)
        diff = run_git(root, "diff", "--cached", "--quiet", "--", *literal(candidates), env=env, check=False)
        if diff.returncode == 0:
            return None
        if diff.returncode != 1:  # 1: something to commit; anything else: git could not compare
            refuse_system_error("diff", diff.stderr)
            raise GitError(f"git diff failed: {reason(diff.stderr or diff.stdout, 'no reason given')}")
        if when is not None:
            stamp = when.isoformat()
            env.update({"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
        proc = run_git(root, *identity_args(root), "commit", "--no-verify", "-m", message, env=env, check=False)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(copy)
    if proc.returncode != 0:
        refuse_system_error("commit", proc.stderr)
        raise CommitFailed(f"git commit failed: {reason(proc.stderr or proc.stdout, 'no reason given')}")
    with contextlib.suppress(GitError):  # the commit is made: the index only catches up (`git status` would)
        _stage(Path(root), top, candidates, {})  # the index holds HEAD's entries for the paths
    first = proc.stdout.splitlines()[0] if proc.stdout else ""
    said = _COMMITTED_RE.match(first)
    if said is not None:
        return said.group(1)
    return run_git(root, "rev-parse", "--short", "HEAD").stdout.strip()


def _stage(root: Path, top: Path, paths: Sequence[str], env: dict[str, str]) -> None:
    """Stage `paths` into the index `env` names: files as their bytes are, a folder as `git add -A` expands it."""
    folders = [p for p in paths if (root / p).is_dir() and not (root / p).is_symlink()]
    if folders:
        run_git(root, "add", "-A", "--", *literal(folders), env=env)
    stage_exact(root, top, [p for p in paths if p not in folders], env, _step)
