"""The write journal in `.brain/journal/`: what a write in flight was doing, so a kill leaves no half state.

SPEC 22: a protocol record is in force only as git holds it. A write changes work-tree files first and commits them
after; a kill -9 in between, or a git step that fails, would leave files that say what no commit says (a phantom
claim, a close the remote never saw). Every file step of the product therefore runs inside a journal entry:

- a **write** (`begin`): the prior bytes of every path it may touch are saved
  (`<n>.bak`, fsynced) before the first file changes, with the commit it starts
  from and the message it will commit under. `finish()` drops it once the
  commit landed (or, with `--no-commit`, once the files are written: that
  change is left in the work tree on purpose); `roll_back()` puts every file
  back as it was and unstages it when any step failed.
- a **move** (`moving`): git moves HEAD (taking back a commit, rewriting local
  commits, a fast-forward) and the listed paths must then follow HEAD.

`recover()`, run at the start of every command under the brain lock, settles an entry a killed process left: a write
whose commit landed is kept, any other is rolled back; a move's paths are made to match HEAD. The manifest is written
last and removed first, so its presence is the one sign of a write in flight.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.layout import JOURNAL_DIR, LOCK_FILE, STATE_DIR, journal_pending
from brain_tui.core.paths.layout import JOURNAL_MANIFEST as MANIFEST
from brain_tui.core.record import field, record
from brain_tui.core.records.state_json import open_lock, read_state_json
from brain_tui.core.records.yamlio import atomic_write_text, fsync_dir, read_capped, sweep_temp_files
from brain_tui.core.sync import gitops

__all__ = ["JOURNAL_DIR", "Journal", "begin", "follow_head", "index_entries", "index_follows_head", "moving",
           "recover", "recover_if_idle", "recover_writes", "restage", "wait_for_orphans", "writing"]


def _folder(root: Path) -> Path:
    return root / STATE_DIR / JOURNAL_DIR


def _write_bytes(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _head(root: Path, git: bool, strict: bool = False) -> str | None:
    """The commit HEAD names (None: none yet, or no git); `strict`: a git that cannot answer raises (GitError)
    rather than reading as "no commit", which `Journal.landed` would take for "the write's commit did not land"."""
    if not git:
        return None
    proc = gitops.run_git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False)
    if strict and proc.returncode not in (0, 1):  # 1: no commit yet (`--verify --quiet`); else git failed
        raise gitops.GitError(f"git rev-parse failed: {gitops.reason(proc.stderr, str(proc.returncode))}")
    return proc.stdout.strip() or None if proc.returncode == 0 else None


@record(frozen=False)
class Journal:
    """One journal entry in flight (see the module docstring)."""

    root: Path
    kind: str
    git: bool
    head: str | None = None
    message: str = ""
    backups: dict[str, str | None] = field(default_factory=dict)
    #: The git index entry ("mode sha") of each path before the write; a path absent there is not listed.
    staged: dict[str, str] = field(default_factory=dict)
    #: Folders (brain-relative) that did not exist when the write began: a roll-back removes them if empty.
    made: list[str] = field(default_factory=list)

    @property
    def folder(self) -> Path:
        """`.brain/journal/`."""
        return _folder(self.root)

    def _save(self) -> None:
        doc = {"kind": self.kind, "git": self.git, "head": self.head, "message": self.message,
               "paths": self.backups, "staged": self.staged, "made": self.made}
        atomic_write_text(self.folder / MANIFEST, json.dumps(doc, sort_keys=True) + "\n")

    def cover(self, rels: Collection[str]) -> None:
        """Add paths a write is about to create that `begin` did not list (legacy imports), before it creates them.

        A path that does not exist yet is rolled back by removing it, with the folders made for it.
        """
        added = [rel for rel in rels if rel not in self.backups]
        if added:
            for rel in added:
                if not (self.root / rel).exists():
                    self.made.extend(_missing_folders(self.root, rel, self.made))
            self.backups.update(dict.fromkeys(added))
            self._save()

    def finish(self) -> None:
        """The entry is done: drop the manifest first (the commit point), then the backups."""
        (self.folder / MANIFEST).unlink(missing_ok=True)
        fsync_dir(self.folder)
        shutil.rmtree(self.folder, ignore_errors=True)

    def roll_back(self) -> None:
        """Put every path back as it was before the write, unstage it, and drop the entry."""
        for rel, backup in self.backups.items():
            target = self.root / rel
            if backup is None:
                # only a file the write may have made: unlinking a missing name in a read-only folder is EROFS,
                # not ENOENT, and a folder in the file's way is EISDIR (and not the write's); either would stop
                # the roll-back and leave its entry to refuse every later write in this write's name
                if os.path.lexists(target) and not target.is_dir():
                    target.unlink(missing_ok=True)
                continue
            saved = self.folder / backup
            if saved.exists():  # else an earlier, interrupted roll-back already put it back
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(saved, target)
                fsync_dir(target.parent)
        for folder in sorted(self.made, key=lambda rel: rel.count("/"), reverse=True):
            with contextlib.suppress(OSError):  # not empty: something else lives there now
                (self.root / folder).rmdir()
        if self.git and self.backups:
            restage(self.root, self.backups, self.staged)
        self.finish()

    def landed(self) -> bool:
        """True when HEAD is the commit this write made: one commit on top of `head`, with its message."""
        if not self.git:
            return False
        now = _head(self.root, True, strict=True)
        if now is None or now == self.head:
            return False
        # (HEAD moved: a commit git cannot read raises, never read as someone else's)
        parents = gitops.run_git(self.root, "rev-list", "--parents", "-n", "1", now).stdout.split()
        if parents[1:] != ([self.head] if self.head else []):
            return False
        body = gitops.run_git(self.root, "log", "-1", "--format=%B", now).stdout
        return body.strip() == self.message.strip()


def index_entries(root: Path, rels: Collection[str]) -> dict[str, str]:
    """The git index entry ("mode sha") of each of `rels` that the index holds (brain-relative paths).

    Raises:
        GitError: git could not list the index (a broken config): never read as "none of them is there", which a
            roll-back would act on by removing each from the index.
    """
    if not rels:
        return {}
    proc = gitops.run_git(root, "ls-files", "-s", "-z", "--", *rels)  # paths as given: cwd-relative
    found: dict[str, str] = {}
    for entry in proc.stdout.split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if path and len(parts) == 3 and parts[2] == "0":
            found[path] = f"{parts[0]} {parts[1]}"
    return found


def restage(root: Path, rels: Collection[str], staged: dict[str, str]) -> None:
    """Put the git index entries of `rels` back as `index_entries` found them (what `git add` staged is undone).

    Works without a readable HEAD (a broken branch ref): the entries are set directly.
    """
    prefix = gitops.top_prefix(root)  # `--index-info` paths are relative to the repository's top
    top = gitops.toplevel(root)
    if staged:
        info = "".join(f"{staged[rel]}\t{prefix}{rel}\n" for rel in rels if rel in staged)
        gitops.run_git(top, "update-index", "--index-info", input_text=info, check=False)
    gone = [prefix + rel for rel in rels if rel not in staged]
    if gone:
        gitops.run_git(top, "update-index", "--force-remove", "--", *gone, check=False)


def follow_head(root: Path, rels: Collection[str]) -> None:
    """Make each path's file and index entry match HEAD (absent from HEAD: removed).

    Raises:
        GitError: git could not say what HEAD holds, or could not bring a path to it. A failure never reads as
            "absent from HEAD", and the caller's journal entry is not finished: the next command tries again.
    """
    wanted = list(dict.fromkeys(rels))
    if not wanted:
        return
    held = set(gitops.run_git(root, "ls-tree", "-z", "--name-only", "HEAD", "--", *wanted).stdout.split("\0"))
    for rel in wanted:
        if rel in held:
            gitops.run_git(root, "checkout", "HEAD", "--", rel)
        else:
            gitops.run_git(root, "rm", "--cached", "--quiet", "--ignore-unmatch", "--", rel)
            (root / rel).unlink(missing_ok=True)


def index_follows_head(root: Path, rels: Collection[str]) -> None:
    """Make each path's index entry HEAD's (absent from HEAD: removed); the files are left as they are.

    A write's commit can land before the real index catches up (`git commit` over a copy of the index, then the
    index): a kill in between left the written paths staged as HEAD's parent had them. Nothing else staged moves.
    """
    wanted = list(dict.fromkeys(rels))
    if not wanted:
        return
    listing = gitops.run_git(root, "ls-tree", "-z", "HEAD", "--", *wanted).stdout  # paths as given: cwd-relative
    held: dict[str, str] = {}
    for item in listing.split("\0"):
        meta, _, path = item.partition("\t")
        parts = meta.split()
        if path and len(parts) == 3 and parts[1] == "blob":
            held[path] = f"{parts[0]} {parts[2]}"
    restage(root, wanted, held)


def _clear(root: Path) -> Path:
    folder = _folder(root)
    if folder.exists():  # backups of an entry whose manifest was already dropped
        shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _missing_folders(root: Path, rel: str, known: list[str]) -> list[str]:
    """The folders between `root` and `rel` that do not exist yet (and are not in `known`)."""
    missing: list[str] = []
    parent = Path(rel).parent
    while parent != Path(".") and parent.name and not (root / parent).exists():
        if parent.as_posix() not in known:
            missing.append(parent.as_posix())
        parent = parent.parent
    return missing


def begin(root: Path, rels: Collection[str], message: str, git: bool) -> Journal:
    """Start a write over `rels`: their prior bytes are saved before any of them changes.

    Call with the brain lock held, after `recover`. When saving fails (a full
    disk), nothing was written and the error propagates.
    """
    folder = _clear(root)
    entry = Journal(root=root, kind="write", git=git, head=_head(root, git), message=message)
    try:
        for n, rel in enumerate(dict.fromkeys(rels)):
            source = root / rel
            # All its bytes, never waited on: a path that is no regular file once opened (a FIFO put there since
            # `is_file` looked) counts as absent, as one that is no regular file at the look
            prior = read_capped(source, -1) if source.is_file() else None
            if prior is not None:
                name = f"{n}.bak"
                _write_bytes(folder / name, prior)
                entry.backups[rel] = name
            else:
                entry.backups[rel] = None
                entry.made.extend(_missing_folders(root, rel, entry.made))
        if git:
            entry.staged = index_entries(root, list(entry.backups))
        fsync_dir(folder)
        entry._save()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return entry


@contextmanager
def writing(root: Path, rels: Collection[str], message: str, git: bool) -> Iterator[Journal]:
    """`begin` a write; roll it back on any error (re-raised), finish it when the block ends."""
    entry = begin(root, rels, message, git)
    try:
        yield entry
    except BaseException:
        entry.roll_back()
        raise
    entry.finish()


@contextmanager
def moving(root: Path, rels: Collection[str]) -> Iterator[None]:
    """Around a git step that moves HEAD: afterwards (or after a kill, at `recover`) `rels` follow HEAD."""
    _clear(root)
    entry = Journal(root=root, kind="move", git=True, backups=dict.fromkeys(rels))
    entry._save()
    yield
    entry.finish()


def _load(root: Path) -> Journal | None:
    # None: unreadable, no regular file (a FIFO put there since `journal_pending` looked: never waited on), not JSON
    doc: dict[str, Any] | None = read_state_json(_folder(root) / MANIFEST)
    if doc is None:
        return None
    try:
        paths = doc["paths"]
        staged = doc.get("staged") or {}
        return Journal(root=root, kind=str(doc["kind"]), git=bool(doc["git"]), head=doc.get("head"),
                       message=str(doc.get("message", "")),
                       backups={str(k): (str(v) if v is not None else None) for k, v in paths.items()},
                       staged={str(k): str(v) for k, v in staged.items()},
                       made=[str(rel) for rel in doc.get("made") or []])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def wait_for_orphans(root: Path, limit_s: float = 10.0) -> None:
    """Let a git command the killed process started finish first (it outlives its caller).

    Deciding while an orphaned `git add` or `git commit` still runs would race it: its commit could land after the
    roll-back. Waits while the repository's index is locked or a git process works in it, at most `limit_s`.
    """
    gdir = gitops.git_dir(root)
    if gdir is None:
        return
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if not (gdir / "index.lock").exists() and not gitops.git_process_running(root):
            return
        time.sleep(0.05)


def recover(root: Path) -> str | None:
    """Settle what a killed write left (call with the brain lock held): "kept" (its commit landed), "rolled back",
    "followed" (a move's paths now match HEAD), or None when there was nothing to settle."""
    if not journal_pending(root):
        return None
    wait_for_orphans(root)
    entry = _load(root)
    if entry is None:  # a manifest cut short can only be one never acted on: atomic writes
        shutil.rmtree(_folder(root), ignore_errors=True)
        return None
    # The temp files a killed atomic write left beside its targets (no live writer: the lock is held). Not in
    # `.brain/` (a held-back write's record is there): readers write there without the lock (`sweep_dead_temps`).
    state = root / STATE_DIR
    sweep_temp_files(sorted({(root / rel).parent for rel in entry.backups} - {state}))
    if entry.kind == "move":
        follow_head(root, list(entry.backups))
        entry.finish()
        return "followed"
    if entry.landed():
        index_follows_head(root, list(entry.backups))  # the kill may have come before the index caught up
        entry.finish()
        return "kept"
    entry.roll_back()
    return "rolled back"


#: `recover` under the name the facade imports it by (next to `remote.recover`).
recover_writes = recover


def recover_if_idle(root: Path) -> str | None:
    """`recover` for a reader: only when no writer holds the brain lock (never waits for one)."""
    if not journal_pending(root):
        return None
    lock = root / STATE_DIR / LOCK_FILE
    try:
        handle = open_lock(lock)
    except (OSError, InvalidData):  # a writer's command says why; a reader goes on
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return None  # a writer is at work: its entry is not left over
        try:
            with contextlib.suppress(gitops.GitError, OSError):
                return recover(root)
            return None
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
