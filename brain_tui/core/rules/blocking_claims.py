"""The blocking claims and their scope index, kept between calls by a long-lived process (`bsi mcp`).

A check (`check_scope`) needs only the claims that can block and the claim
files that do not read, indexed by scope. A process that answers many checks
keeps them in memory and, on each call, asks whether anything they were built
from may have changed; when nothing can have, it answers from memory, else it
reads the brain again (`Brain.snapshot(only_statuses=BLOCKING_STATUSES)`) and
rebuilds the index.

What "nothing can have changed" means (it must never miss a change):

* ``claims/`` itself has the same stat key ``(mtime_ns, size, ino, ctime_ns)``:
  no file was added, removed or renamed there (the product's writes, git's
  checkouts and most editors replace a file: a new name in the folder);
* every file the memo holds (each blocking claim's, each unreadable one's) and
  ``BRAIN-INDEX.md`` (legacy rows are claims) have the same stat key: none was
  edited in place;
* the change feed (`file_events`, inotify) reported nothing in ``claims/`` nor
  on those two names since the memo was built: it also sees an in-place edit of
  a file the memo does not hold (a closed claim's file rewritten by hand), which
  stat keys of the live files alone would miss. On a local file system (ext4,
  xfs, btrfs, tmpfs, overlay…: `file_events.LOCAL_FS`) every change passes
  through this kernel and queues an event, so the live files' keys are not
  statted at all (the two folder-level keys still are); on any other (NFS,
  FUSE, virtiofs: another machine may write) they are, one ``stat`` each;
* HEAD's commit cannot have moved: the files that decide it (`git_head.head_files`: HEAD, the branch's
  ref, ``packed-refs``, the ``.git`` file of a linked worktree) have the same stat keys, statted on every
  call whatever the file system (git replaces each: a new inode per write), and they are watched by the
  change feed too. What git holds is in force (SPEC 22, `records.in_force`): a claim HEAD holds open that
  the work tree deleted or closed without a commit still blocks, so a commit of that close, or HEAD moved
  back to a commit that holds the claim open (``git reset --soft``, ``git update-ref``), changes the answer
  without a change in ``claims/``. A layout those files do not decide (reftable, ``$GIT_COMMON_DIR``, a
  symbolic ref that is not a branch) leaves the memo unsettled: each call reads again;
* no write journal is pending (`Brain.snapshot` settles it first).

Same-tick edits: a stat key cannot tell two writes in one timestamp tick
with the same size apart (see `core/records/cache.py`, the racy rule). The
memo is built only from a read that the keys bracket: every key is taken
before the read and again after it; a key that moved, or an event queued
meanwhile, leaves the memo *unsettled* and the next call reads again. Without
the change feed, a key whose last change is less than `RACY_NS` older than the
read is also unsettled (a later write in that tick would look the same); with
the feed, that write would queue an event.

Left to the next full read: a link elsewhere in the brain retargeted (scopes
are keyed through the brain's links when they are read, as the store's own
in-memory cache keys them). Without the change feed (not Linux, no inotify
watch left), a closed claim's file edited in place, without a new name in
``claims/``, is seen only once ``claims/`` changes; so are writes through a
shared memory map, which inotify does not report.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from brain_tui.core.paths.layout import CLAIMS_DIR, INDEX_FILE, STATE_DIR, journal_pending
from brain_tui.core.paths.path_keys import path_key
from brain_tui.core.record import record, replace
from brain_tui.core.records import scope_ways
from brain_tui.core.records.cache import RACY_NS
from brain_tui.core.records.file_events import FileEvents
from brain_tui.core.records.folder_variants import variants
from brain_tui.core.records.git_head import head_files
from brain_tui.core.records.model import BLOCKING_STATUSES
from brain_tui.core.records.yamlio import make_state_dir

if TYPE_CHECKING:
    from brain_tui.core.brain import Brain
    from brain_tui.core.paths.scope_index import ScopeIndex
    from brain_tui.core.records.model import BrainSnapshot

__all__ = ["BlockingClaims", "MemoCounters"]

#: The snapshot's cached lookups that depend on its claims only (kept when only `now` moves).
_CLOCK_FREE = ("_by_id", "_by_parent", "unreadable_claims")
#: A file's stat key, None when it is missing.
Key = tuple[int, int, int, int] | None


def _key(path: str, dir_fd: int | None = None) -> Key:
    try:
        st = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def _racy(key: Key, read_at_ns: int) -> bool:
    """True when the file's last change is too close to the read for its key to vouch for its content."""
    return key is not None and read_at_ns - max(key[0], key[3]) < RACY_NS


@record(frozen=False)
class MemoCounters:
    """What the memo did: answers from memory, full reads, files statted on the last call."""

    hits: int = 0
    reads: int = 0
    stats_last: int = 0


class BlockingClaims:
    """The blocking snapshot and its `blocking_index`, revalidated per call (see the module docstring).

    `watch`: use the change feed (inotify) when the system has it; False: stat keys and the racy rule only.
    """

    def __init__(self, brain: Brain, *, watch: bool = True) -> None:
        self._brain = brain
        self._root = str(brain.root)
        self._claims = os.path.join(self._root, CLAIMS_DIR)
        self._index_path = os.path.join(self._root, INDEX_FILE)
        self._watch = watch
        self._events: FileEvents | None = None
        self._snapshot: BrainSnapshot | None = None
        self._index: ScopeIndex | None = None
        #: stat keys the memo was built from: ``claims/`` and ``BRAIN-INDEX.md`` by path, the files it holds by
        #: name in ``claims/`` (statted through `_dir_fd`, opened on ``claims/`` whose key is checked first).
        self._folder_keys: dict[str, Key] = {}
        self._file_keys: dict[str, Key] = {}
        #: the stat keys of the files that decide HEAD's commit (`head_files`), statted on every call
        self._head_keys: dict[str, Key] = {}
        #: the folders on the way of the held claims' scopes and their keys (`scope_ways`: links, folders made)
        self._way_keys: dict[str, tuple[int, int, int] | None] = {}
        #: the names on those ways, by folder (the brain folder's ``brain`` from the start: ``brain/``)
        self._ways: dict[str, set[str]] = {"": {"brain"}}
        #: the folders the change feed watches, and the names there that matter
        self._watched: dict[str, frozenset[str] | None] = {}
        self._dir_fd: int | None = None
        self._settled = False
        self.counters = MemoCounters()
        #: one caller at a time: the SDK runs each tool call in a worker thread, and two calls may overlap
        self._lock = threading.Lock()

    def current(self) -> tuple[BrainSnapshot, ScopeIndex]:
        """The blocking snapshot as of now (its `now` is the clock's); NotFound when the brain folder is gone."""
        now = self._brain.now()
        with self._lock:
            kept = self._snapshot
            if kept is None or self._index is None or not self._still_valid():
                return self._rebuild()
            self.counters.hits += 1
            fresh = replace(kept, now=now)
            for name in _CLOCK_FREE:  # lookups built from the claims alone: the same for any `now`
                if name in kept.__dict__:
                    fresh.__dict__[name] = kept.__dict__[name]
            return fresh, self._index

    def _still_valid(self) -> bool:
        self.counters.stats_last = 0
        if not self._settled or self._dir_fd is None:
            return False
        if self._events is not None and self._events.changed():
            return False
        for keys in (self._folder_keys, self._head_keys):
            for path, key in keys.items():
                self.counters.stats_last += 1
                if _key(path) != key:
                    return False
        if self._events is not None and self._events.local:
            # every change in claims/ and on the scopes' ways would have queued an event
            return not journal_pending(self._brain.root)
        self.counters.stats_last += len(self._way_keys)
        if not scope_ways.ways_hold(self._root, self._way_keys):
            return False
        for name, key in self._file_keys.items():
            self.counters.stats_last += 1
            if _key(name, self._dir_fd) != key:
                return False
        return not journal_pending(self._brain.root)

    def _held_names(self, snapshot: BrainSnapshot) -> set[str]:
        """The names in ``claims/`` of the files the snapshot holds (blocking claims, unreadable claim files)."""
        prefix = CLAIMS_DIR + "/"
        paths = {c.path for c in snapshot.claims} | {bad.path for bad in snapshot.unreadable_claims}
        return {p[len(prefix):] for p in paths if p.startswith(prefix) and "/" not in p[len(prefix):]}

    def _before(self) -> tuple[dict[str, Key], dict[str, Key]]:
        """Every key the read may depend on, taken before it: ``claims/`` and the index, then each file there."""
        folders = {self._claims: _key(self._claims), self._index_path: _key(self._index_path)}
        files: dict[str, Key] = {}
        try:
            with os.scandir(self._claims) as entries:
                for entry in entries:
                    files[entry.name] = _key(entry.path)
        except OSError:
            pass
        return folders, files

    def _open_folder(self) -> None:
        if self._dir_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._dir_fd)
        try:
            self._dir_fd = os.open(self._claims, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            self._dir_fd = None

    def _fd_is(self, key: Key) -> bool:
        """True when `_dir_fd` is the ``claims/`` folder whose key is `key` (not one replaced meanwhile)."""
        if self._dir_fd is None or key is None:
            return False
        try:
            return os.fstat(self._dir_fd).st_ino == key[2]
        except OSError:
            return False

    def _rebuild(self) -> tuple[BrainSnapshot, ScopeIndex]:
        from brain_tui.core.rules.conflicts import blocking_index

        self.counters.reads += 1
        head = head_files(self._brain.root)
        self._watch_folders(head or (), self._ways)
        with contextlib.suppress(OSError):  # made by the read otherwise: a name in the brain folder, watched
            make_state_dir(self._brain.root / STATE_DIR)
        if self._events is not None:
            self._events.changed()  # drained: what happens from here on is seen
        read_at = time.time_ns()
        self._open_folder()
        head_keys = {path: _key(path) for path in head or ()}
        folders, files = self._before()
        snapshot = self._brain.snapshot(only_statuses=BLOCKING_STATUSES)
        index = blocking_index(snapshot)
        folders_after = {path: _key(path) for path in folders}
        files_after = {name: _key(name, self._dir_fd) for name in self._held_names(snapshot)}
        head_after = {path: _key(path) for path in head or ()}
        settled = self._fd_is(folders_after[self._claims]) and folders_after == folders and \
            all(files.get(name) == key for name, key in files_after.items())
        # HEAD's commit: decided by files read here (else unsure: read again next call), unmoved during the read
        settled = settled and head is not None and head_after == head_keys and head_files(self._brain.root) == head
        # a claim file under another spelling of claims/ (`folder_variants`): not watched, so read again each call
        settled = settled and not variants(self._root)
        if self._events is not None and self._events.available:
            settled = settled and not self._events.changed()
        else:
            keys = [*folders_after.values(), *files_after.values(), *head_after.values()]
            settled = settled and not any(_racy(key, read_at) for key in keys)
        self._ways = scope_ways.ways_of([*(claim.scope for claim in snapshot.claims),
                                         *(bad.holds for bad in snapshot.corrupt)])
        ways = scope_ways.way_keys(self._root, self._ways)
        if self._events is not None and self._events.available:  # each way watched from before the read
            settled = settled and all(self._watches(rel, names) for rel, names in self._ways.items())
        else:
            settled = settled and scope_ways.trusted(ways, read_at, RACY_NS)
        self._way_keys = ways
        self._snapshot, self._index, self._settled = snapshot, index, settled
        self._folder_keys, self._file_keys, self._head_keys = folders_after, files_after, head_after
        return snapshot, index

    def _watches(self, rel: str, names: set[str]) -> bool:
        """True when the change feed watches these names of the brain folder `rel` (a missing folder: its
        parent's name for it is watched, and the folder's key is None until it is made)."""
        folder = os.path.realpath(os.path.join(self._root, rel))
        if not os.path.isdir(folder):
            return True
        watched = self._watched.get(folder, frozenset())
        return watched is None or {path_key(name) for name in names} <= {path_key(name) for name in watched}

    def _watch_folders(self, head: tuple[str, ...], ways: Mapping[str, set[str]]) -> None:
        """(Re)start the change feed on ``claims/``, the brain's index, the folders of HEAD's files and the
        folders on the way of the last read's scopes (every name there: a link or a folder made or removed).

        Started again when it is not known to see every change (``claims/`` may be new) or HEAD's files moved
        to other folders (another branch).
        """
        if not self._watch:
            return
        # by real path: one folder spelled two ways is one inotify watch, whose names must be all of them
        # the brain folder: every name (``claims/``, the index, and the first component of every scope)
        wanted: dict[str, set[str] | None] = {os.path.realpath(self._root): None,
                                              os.path.realpath(self._claims): None}
        for rel, way_names in ways.items():
            folder = os.path.realpath(os.path.join(self._root, rel))
            if os.path.isdir(folder):
                names = wanted.setdefault(folder, set())
                if names is not None:
                    names.update(way_names)
        for path in head:
            folder, name = os.path.split(path)
            if os.path.isdir(folder):  # (a missing folder's file is missing: its key moves when it is made)
                names = wanted.setdefault(os.path.realpath(folder), set())
                if names is not None:
                    names.add(name)
        frozen = {folder: None if names is None else frozenset(names) for folder, names in wanted.items()}
        if self._events is not None and self._events.local and frozen == self._watched:
            return
        if self._events is not None:
            self._events.close()
        self._events, self._watched = FileEvents(dict(frozen)), frozen

    def close(self) -> None:
        """Drop the memo and stop the change feed."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._events is not None:
            self._events.close()
        if self._dir_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._dir_fd)
        self._events, self._dir_fd = None, None
        self._snapshot = self._index = None
        self._settled = False

    def __del__(self) -> None:
        self._close()
