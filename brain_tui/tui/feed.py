"""The live feed: how the cockpit learns that the brain changed, and reads it again off the UI thread.

Files are watched with watchfiles (stat polling as a fallback for network filesystems), and so are the git files that
decide HEAD's commit: in force is what git holds (SPEC 22), so another process's commit alone can change what a read
shows (a lift written, read, then committed). Every change asks for one read. Reads run in one thread at a time and
coalesce: changes that arrive while a read runs give exactly one more read after it (dolphie's self-rescheduling
refresh, never overlapping). Each read posts `SnapshotLoaded` to the app. The UI thread never parses a file and never
scans the folders.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Collection
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain_tui.core.brain import DATA_DIRS, Brain
from brain_tui.core.paths.layout import CLAIMS_DIR
from brain_tui.core.records.git_head import head_files
from brain_tui.core.records.model import BrainSnapshot

from .messages import FilesChanged, SnapshotLoaded

if TYPE_CHECKING:
    from textual.app import App

#: Seconds between stat polls when file watching is unavailable.
POLL_SECONDS = 1.0
#: watchfiles: the longest a batch of changes is collected, and the quiet time that ends one (ms).
WATCH_DEBOUNCE_MS = 100
WATCH_STEP_MS = 20

#: The finished claims the steady read keeps: those that ended this recently (older ones: the history
#: pane, a page at a time, `brain.audit.history_page`).
RECENT_WINDOW = timedelta(days=30)

#: What a stat scan saw: the folder-relative name → (mtime_ns, size, inode).
Fingerprint = dict[str, tuple[int, int, int]]


def steady_read(brain: Brain) -> BrainSnapshot:
    """What the cockpit holds: the unfinished claims, the recently finished ones and their ancestors."""
    return brain.audit.recent(RECENT_WINDOW)


def _stat(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def fingerprint(root: Path, claims: Collection[str] | None = None) -> Fingerprint:
    """A cheap signature of the watched folders: one `stat` per file, nothing parsed.

    Args:
        root: the brain folder.
        claims: the claim files (``claims/<name>``) the cockpit holds. Given, ``claims/`` is not listed: its own
            stat (which moves when a file is added, removed or replaced) and these files' stats stand for it, so
            a scan costs what the steady read holds, not the history. None: every file of every folder.

    The files that decide HEAD's commit (`head_files`) are in it too, by their absolute path.
    """
    items: Fingerprint = {}
    for name in head_files(root) or ():
        if (key := _stat(name)) is not None:
            items[name] = key
    for folder in DATA_DIRS:
        if claims is not None and folder == CLAIMS_DIR:
            for name in (CLAIMS_DIR, *claims):
                if (key := _stat(str(root / name))) is not None:
                    items[name] = key
            continue
        try:
            with os.scandir(root / folder) as entries:
                for entry in entries:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    items[f"{folder}/{entry.name}"] = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            continue
    return items


def changed_names(previous: Fingerprint, current: Fingerprint) -> tuple[str, ...]:
    """The names whose stat differs between two scans. A claim file seen by one scan only is not a change by
    itself (the held set moved between the scans); its addition or removal moves ``claims/``'s own stat."""
    prefix = f"{CLAIMS_DIR}/"
    return tuple(sorted(name for name in previous.keys() | current.keys()
                        if previous.get(name) != current.get(name)
                        and (not name.startswith(prefix) or (name in previous and name in current))))


class LiveFeed:
    """Watches the brain's folders and reads snapshots in a worker thread, one at a time, posting `SnapshotLoaded`
    and `FilesChanged` to `app`; `brain`'s store is used by this feed's reader thread only, under `read_lock`."""

    def __init__(self, app: App[Any], brain: Brain) -> None:
        self.app = app
        self.brain = brain
        #: Held by every thread that reads `brain` (its store is not thread-safe).
        self.read_lock = threading.RLock()
        self._flags = threading.Lock()
        self._wanted = False
        self._reading = False
        #: a `restat` asked for while a read runs: taken once the read is done (not beside it, for the GIL).
        self._restat_after = False
        self.fingerprint: Fingerprint = {}
        #: The claim files the last read held (what the stat scan looks at in ``claims/``).
        self.held: frozenset[str] = frozenset()
        self.stop_event = asyncio.Event()
        #: Called (in a thread) with the changed paths before each read (breath records, for instance).
        self.on_paths: Callable[[tuple[str, ...]], None] | None = None

    # -- reading ----------------------------------------------------------------------------------
    def request(self) -> None:
        """Ask for a fresh snapshot: read now in a worker, or once more right after the running read."""
        with self._flags:
            self._wanted = True
            if self._reading:
                return
            self._reading = True
        self.app.run_worker(self._read_loop, thread=True, group="snapshot-read", exit_on_error=False,
                            name="snapshot-read")

    @property
    def busy(self) -> bool:
        """True while a read runs or is asked for."""
        with self._flags:
            return self._reading or self._wanted

    def _read_loop(self) -> None:
        while True:
            with self._flags:
                if not self._wanted:
                    self._reading = False
                    restat, self._restat_after = self._restat_after, False
                    break
                self._wanted = False
            try:
                with self.read_lock:
                    snapshot = steady_read(self.brain)
                self.held = frozenset(claim.path for claim in snapshot.claims)
                message = SnapshotLoaded(snapshot, liveness=self.brain.read_liveness())
            except Exception as exc:  # noqa: BLE001 - shown, the next change retries
                message = SnapshotLoaded(None, f"cannot read the brain: {exc}")
            self.app.post_message(message)
        if restat:
            self._take_fingerprint()

    # -- watching ---------------------------------------------------------------------------------
    def start(self, held: Collection[str] = ()) -> None:
        """Take the first fingerprint (in a thread) of these claim files and the other folders; start watching."""
        self.held = frozenset(held)
        self.app.run_worker(self._take_fingerprint, thread=True, group="restat", exit_on_error=False)
        self.app.run_worker(self._watch(), group="watch", exclusive=True, exit_on_error=False)

    def stop(self) -> None:
        """Stop the watcher."""
        self.stop_event.set()

    def restat(self) -> None:
        """Remember the files as they are now (in a thread, after the read under way), so the safety net does not
        refresh again."""
        with self._flags:
            if self._reading:
                self._restat_after = True
                return
        self.app.run_worker(self._take_fingerprint, thread=True, group="restat", exclusive=True, exit_on_error=False)

    def _take_fingerprint(self) -> None:
        self.fingerprint = fingerprint(self.brain.root, self.held)

    async def _watch(self) -> None:
        root = self.brain.root
        folders = [str(root / d) for d in DATA_DIRS if (root / d).is_dir()]
        # HEAD's files (git replaces them: a lock file renamed over) are watched through their folders; the
        # folders' other files (git's index, its lock files, objects) are not changes of the brain.
        head = frozenset(head_files(root) or ())
        watched = {*folders, *(folder for folder in {os.path.dirname(name) for name in head}
                               if os.path.isdir(folder))}
        try:
            from watchfiles import DefaultFilter, awatch

            if not folders:
                raise FileNotFoundError("nothing to watch")
            usual = DefaultFilter()  # (it leaves out every path inside a `.git` folder: HEAD's files are let in)

            def wanted(change: Any, path: str) -> bool:
                return path in head or ((path in folders or os.path.dirname(path) in folders) and usual(change, path))

            async for changes in awatch(*sorted(watched), watch_filter=wanted, stop_event=self.stop_event,
                                        debounce=WATCH_DEBOUNCE_MS, step=WATCH_STEP_MS, recursive=False,
                                        yield_on_timeout=False):
                # watchfiles says what changed: the app refreshes first, then calls `restat`.
                self.app.post_message(FilesChanged(tuple(path for _, path in changes), watched=True))
        except Exception:  # noqa: BLE001 - any watcher failure falls back to polling
            if self.stop_event.is_set():
                return
            self.app.set_interval(POLL_SECONDS, self.check_files, name="stat-poll")

    def check_files(self) -> None:
        """The safety net (and the fallback when watching is impossible): a stat scan in a thread."""
        self.app.run_worker(self._scan, thread=True, group="stat-scan", exclusive=True, exit_on_error=False)

    def _scan(self) -> None:
        current = fingerprint(self.brain.root, self.held)
        previous, self.fingerprint = self.fingerprint, current
        changed = changed_names(previous, current) if previous else ()
        if changed:
            self.app.post_message(FilesChanged(tuple(str(self.brain.root / name) for name in changed)))
