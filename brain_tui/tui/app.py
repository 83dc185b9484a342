"""BrainApp: the cockpit's application — screens, bindings, the live refresh loop, themes and actions.

Data flows one way: files on disk → `Brain.snapshot()` (cached parses) → the
screens. Actions flow the other way: a key → a dialog → a `Brain` method run
in a thread worker (the same code path as `bsi`) → files and a git commit →
the watcher notices → a new snapshot. The cockpit never writes a brain file
itself and never decides a rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.theme import Theme

from brain_tui.core import gitops
from brain_tui.core.brain import DATA_DIRS, Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.model import BLOCKING_STATUSES, BrainSnapshot, Claim

from . import sources
from .commands import COMMANDS, MUTATING_ACTIONS, bindings_for, command_by_action
from .present import Palette, gate_keys
from .safe import safe_str
from .themes import DEFAULT_THEME, THEME_CYCLE, load_settings, load_themes, save_settings, settings_path
from .widgets.header import header_text

#: Seconds between TTL countdown ticks (no disk read).
TICK_SECONDS = 30.0
#: Seconds between environment readings (thread worker).
ENV_SECONDS = 5.0
#: Seconds between stat polls when file watching is unavailable.
POLL_SECONDS = 1.0
#: Seconds the environment reading may take before the pane says it timed out.
ENV_TIMEOUT_SECONDS = 20.0
#: watchfiles: the longest a batch of changes is collected, and the quiet time that ends one (ms).
WATCH_DEBOUNCE_MS = 100
WATCH_STEP_MS = 20

EnvProvider = Callable[[Brain], tuple[Mapping[str, Any] | None, str]]


def fingerprint(root: Path) -> tuple[tuple[str, int, int, int], ...]:
    """A cheap signature of the watched folders: one `stat` per file, nothing parsed."""
    items: list[tuple[str, int, int, int]] = []
    for folder in DATA_DIRS:
        try:
            with os.scandir(root / folder) as entries:
                for entry in entries:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    items.append((f"{folder}/{entry.name}", st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            continue
    items.sort()
    return tuple(items)


class BrainApp(App[int]):
    """The cockpit over one brain.

    Args:
        brain: the brain to show (its clock is the cockpit's clock).
        live: watch the files, tick TTLs, read the environment and ring the bell.
            Tests and screenshots pass False: nothing then happens without a key.
        readonly: hide and refuse every action that changes the brain.
        gates: open on the gate screen.
        theme: a theme name (else the remembered one, else brain-dark).
        bell: ring the terminal bell on a new gate or BLOCKED_ON (default: the
            remembered setting, else on).
        env_provider: where the environment pane's data comes from (default: `core.env`).
            It runs in a thread worker with a time limit (`ENV_TIMEOUT_SECONDS`).
        remember_theme: save the theme chosen with `t` in the settings file.
        title_hint: shown in the header after the brain's name (e.g. "demo").
        demo_path: the temporary demo brain (told once, so `bsi --brain PATH` can drive it).
        progressive: paint first from the blocking claims only (open/waiting/paused/stale, a
            cheap read), then load the full snapshot (closed claims: history, children counts)
            in a thread worker and show it. Default: the same as `live` (tests and screenshots
            load everything before the first paint).
    """

    CSS_PATH = "cockpit.tcss"
    TITLE = "brain-tui"
    BINDINGS = [
        *bindings_for("app"),
        Binding("ctrl+c", "quit", "Quit", show=False, id="quit-ctrl-c", priority=True),
    ]

    def __init__(
        self,
        brain: Brain,
        *,
        live: bool = True,
        readonly: bool = False,
        gates: bool = False,
        theme: str | None = None,
        bell: bool | None = None,
        env_provider: EnvProvider | None = None,
        remember_theme: bool = True,
        title_hint: str = "",
        demo_path: str | None = None,
        progressive: bool | None = None,
    ) -> None:
        super().__init__()
        self.brain = brain
        self.live = live
        self.readonly = readonly
        self.start_on_gates = gates
        self.title_hint = title_hint
        self.demo_path = demo_path
        self.env_provider: EnvProvider = env_provider or sources.collect_env
        self.settings = load_settings()
        self.bell_enabled = bell if bell is not None else bool(self.settings.get("bell", True))
        self.remember_theme = remember_theme
        self.theme_problems: list[str] = []
        self._write_lock = threading.Lock()
        #: Held while a thread reads `self.brain` (its store is not thread-safe): the progressive full load.
        self.read_lock = threading.RLock()
        self._writer: Brain | None = None
        self._refresh_pending = False
        self._gate_keys: frozenset[str] | None = None
        self._fingerprint: tuple[tuple[str, int, int, int], ...] = ()
        self._env_busy = False
        self._stop_watch = asyncio.Event()
        self._hung_up = False
        self.branch = ""
        self.env_data: Mapping[str, Any] | None = None
        self.env_note = "environment: collecting…" if live else "environment: live readings off"
        #: `Brain.live_sessions()`: each live claim's agent (state, last tool, last commit, launch).
        self.live_sessions: Mapping[str, Any] = {}
        self._live_busy = False
        self.breath_data: list[Mapping[str, Any]] | None = None
        self.breath_note = ""
        #: `brain.remote.status().as_dict()`: ahead/behind, last sync, pending changes (None: unknown yet).
        self.sync_data: Mapping[str, Any] | None = None
        #: The last sync/fetch error ("" once one works again).
        self.sync_error = ""
        #: "syncing" while `s` runs, "fetching" during a background fetch, "" when idle.
        self.sync_busy = ""
        self._sync_queued = False
        #: When the last background fetch worked (brain clock; kept in memory only).
        self.fetched_at: datetime | None = None
        self._fetch_timer: Any = None
        self._env_guard = sources.Bounded("environment", ENV_TIMEOUT_SECONDS)
        self.needle = ""
        loaded = load_themes()
        self.theme_problems = loaded.problems
        for item in loaded.themes.values():
            self.register_theme(item)
        self._initial_theme = self._pick_theme(theme)
        self.theme = self._initial_theme
        self.palette = Palette.from_variables(self.get_css_variables())
        self.progressive = live if progressive is None else progressive
        #: False while only the blocking claims are loaded (progressive start, until the worker is done).
        self.full_loaded = not self.progressive
        self._refresh_after_load = False
        #: `time.time()` when the cockpit screen was first painted (None before).
        self.first_paint_at: float | None = None
        self.snapshot: BrainSnapshot = (brain.snapshot(only_statuses=BLOCKING_STATUSES) if self.progressive
                                        else brain.snapshot())
        if not live:
            self.animation_level = "none"

    # -- set-up -------------------------------------------------------------------------------
    def _pick_theme(self, asked: str | None) -> str:
        for candidate in (asked, self.settings.get("theme"), DEFAULT_THEME, "textual-dark"):
            if isinstance(candidate, str) and candidate in self.available_themes:
                return candidate
        return "textual-dark"

    @property
    def writer(self) -> Brain:
        """The Brain used by actions (in worker threads): same root, clock and instance, its own cache."""
        if self._writer is None:
            self._writer = Brain(self.brain.root, clock=self.brain.clock, commit=self.brain.commit_enabled,
                                 instance=self.brain.instance)
        return self._writer

    def on_mount(self) -> None:
        """Install the screens, timers, watchers and the hang-up handler."""
        from .screens.cockpit import CockpitScreen

        self.theme_changed_signal.subscribe(self, self._on_theme_changed)
        self.branch = gitops.current_branch(self.brain.root) if self.brain.is_git() else ""
        self.push_screen(CockpitScreen())
        if self.start_on_gates:
            self.action_gates()
        if self.live:
            self._load_breath()
        else:
            self._load_breath_now()
            self.sync_data, _ = sources.sync_status(self.brain)
            self.live_sessions = self.brain.live_sessions(self.snapshot)
        self.call_after_refresh(self._first_painted)
        if self.live:
            self._fingerprint = fingerprint(self.brain.root)
            self._watch()
            self.set_interval(TICK_SECONDS, self.tick, name="ttl-tick")
            self.set_interval(ENV_SECONDS, self._env_tick, name="env-tick")
            self._env_tick()
            if self.auto_fetch:
                self._fetch_timer = self.set_interval(self.fetch_interval_s, self.background_fetch,
                                                      name="auto-fetch")
                self.background_fetch()
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self._on_hangup)
        elif self.env_provider is not sources.collect_env:
            self.env_data, self.env_note = self.env_provider(self.brain)
        if self.demo_path:
            self.notify(f"demo brain in {self.demo_path} (deleted on quit): try "
                        f"`bsi --brain {self.demo_path} claim open --scope wiki/` in another terminal",
                        title="demo", timeout=12, markup=False)
        for problem in self.theme_problems:
            self.notify(safe_str(problem), title="theme skipped", severity="warning", markup=False)
        self.show_snapshot()

    def _first_painted(self) -> None:
        """The first frame is on screen: note when, then load the rest of the brain (progressive start)."""
        if self.first_paint_at is None:
            self.first_paint_at = time.time()
        if not self.full_loaded:
            self._load_full()

    @work(thread=True, exclusive=True, group="full-load", exit_on_error=False)
    def _load_full(self) -> None:
        """Read the full snapshot (closed claims too) off the UI thread; refreshes wait for it."""
        try:
            with self.read_lock:
                snapshot: BrainSnapshot | None = self.brain.snapshot()
            error = ""
        except Exception as exc:  # noqa: BLE001 - shown, then a normal refresh retries
            snapshot, error = None, f"cannot read the brain: {exc}"
        self.call_from_thread(self._full_loaded, snapshot, error)

    def _full_loaded(self, snapshot: BrainSnapshot | None, error: str) -> None:
        self.full_loaded = True
        if error:
            self.notify(safe_str(error), severity="error", markup=False)
        if snapshot is not None and not self._refresh_after_load:
            self.snapshot = snapshot
            self._ring_for_new_gates(snapshot)
            if self.modal_open():
                self._refresh_pending = True  # shown when the dialog closes
            else:
                self.show_snapshot()
            return
        # A change arrived while loading (or the load failed): read the disk again, incrementally.
        self._refresh_after_load = False
        self.refresh_snapshot()

    def _on_hangup(self) -> None:
        """The terminal went away (SSH dropped): stop watching and leave without drawing."""
        self._hung_up = True
        self._stop_watch.set()
        self.exit(129)

    def header_line(self, snapshot: BrainSnapshot, width: int) -> Text:
        """The header every screen shows: brain, instance, branch, sync state, gates/stale counts, clock."""
        return header_text(brain_name=self.brain.brain_name, instance=self.brain.instance, branch=self.branch,
                           snapshot=snapshot, palette=self.palette, readonly=self.readonly, hint=self.title_hint,
                           env=self.env_data, width=width, sync=self.sync_data, sync_error=self.sync_error,
                           sync_busy="syncing" if self.sync_busy == "syncing" else "", fetched_at=self.fetched_at)

    # -- snapshot & refresh --------------------------------------------------------------------
    def modal_open(self) -> bool:
        """True while a dialog (or the palette) covers the screen: refresh waits."""
        return isinstance(self.screen, ModalScreen)

    def refresh_snapshot(self, *, force: bool = False) -> None:
        """Re-read the brain (only changed files are parsed) and update every screen.

        While a modal is open the refresh is deferred until it closes (unless `force`).
        """
        if self.modal_open() and not force:
            self._refresh_pending = True
            return
        if not self.full_loaded:
            # The full load (a thread worker using the same store) runs: refresh when it is done.
            self._refresh_after_load = True
            return
        self._refresh_pending = False
        try:
            snapshot = self.brain.snapshot()
        except OSError as exc:
            self.notify(safe_str(f"cannot read the brain: {exc}"), severity="error", markup=False)
            return
        self.snapshot = snapshot
        self._ring_for_new_gates(snapshot)
        if not self.live:
            self.load_live_sessions()
        self.show_snapshot()
        if self.live:
            self.load_live_sessions()

    def catch_up(self) -> None:
        """Called when a screen comes back from under a modal: run a deferred refresh."""
        if self._refresh_pending:
            self.refresh_snapshot()

    def tick(self) -> None:
        """Count TTLs down from the clock, without touching the disk."""
        if self.modal_open():
            return
        self.snapshot = replace(self.snapshot, now=self.brain.now())
        self.show_snapshot()

    def show_snapshot(self) -> None:
        """Push the current snapshot to every screen that shows brain data."""
        for screen in self.screen_stack:
            show = getattr(screen, "show_snapshot", None)
            if show is not None and screen.is_mounted:
                show(self.snapshot)

    def _ring_for_new_gates(self, snapshot: BrainSnapshot) -> None:
        keys = gate_keys(snapshot)
        previous, self._gate_keys = self._gate_keys, keys
        if previous is None:
            return
        new = keys - previous
        if not new:
            return
        if self.bell_enabled:
            self.bell()
        self.notify(f"{len(new)} new item(s) waiting for a human — press g", title="gate",
                    severity="warning", markup=False)

    def _on_fs_change(self, paths: Iterable[str]) -> None:
        changed = list(paths)
        if any(f"{os.sep}breath{os.sep}" in p or p.endswith(f"{os.sep}breath") for p in changed):
            self._load_breath()
        self.refresh_snapshot()

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def _watch(self) -> None:
        """Watch claims/ signals/ locks/ breath/ with watchfiles; fall back to stat polling."""
        root = self.brain.root
        folders = [str(root / d) for d in DATA_DIRS if (root / d).is_dir()]
        try:
            from watchfiles import awatch

            if not folders:
                raise FileNotFoundError("nothing to watch")
            async for changes in awatch(*folders, stop_event=self._stop_watch, debounce=WATCH_DEBOUNCE_MS,
                                        step=WATCH_STEP_MS, recursive=False, yield_on_timeout=False):
                # watchfiles says what changed: refresh first, re-stat for the safety net afterwards.
                self._on_fs_change(path for _, path in changes)
                self._restat()
        except Exception:  # noqa: BLE001 - any watcher failure falls back to polling
            if self._stop_watch.is_set():
                return
            self.set_interval(POLL_SECONDS, self._poll, name="stat-poll")

    @work(thread=True, exclusive=True, group="restat", exit_on_error=False)
    def _restat(self) -> None:
        """Off the event path: remember the files as they are now, so the safety net does not refresh again."""
        self._fingerprint = fingerprint(self.brain.root)

    def _poll(self) -> None:
        """The fallback when watching is impossible: one `stat` per file, a refresh when any changed."""
        current = fingerprint(self.brain.root)
        if current != self._fingerprint:
            changed = {item[0] for item in set(current) ^ set(self._fingerprint)}
            self._fingerprint = current
            self._on_fs_change(str(self.brain.root / name) for name in changed)

    # -- environment & breath ------------------------------------------------------------------
    def _env_tick(self) -> None:
        # A safety net for missed watch events (network filesystems): a cheap stat scan.
        current = fingerprint(self.brain.root)
        if self._fingerprint and current != self._fingerprint:
            self._fingerprint = current
            self.refresh_snapshot()
        if not self._env_busy:
            self._env_busy = True
            self._collect_env()
        self.load_live_sessions()
        if not self.sync_busy:
            self._sync_status_worker()

    @work(thread=True, exclusive=True, group="env", exit_on_error=False)
    def _collect_env(self) -> None:
        try:
            data, note = self._env_guard(lambda: self.env_provider(self.brain))
        except sources.SourceTimeout as exc:
            data, note = None, f"{exc} (a slow pm2, git or disk?)"
        except Exception as exc:  # noqa: BLE001
            data, note = None, f"environment: {exc}"
        self.call_from_thread(self._env_done, data, note)

    def _env_done(self, data: Mapping[str, Any] | None, note: str) -> None:
        self._env_busy = False
        self.env_data, self.env_note = data, note
        if data:
            git = data.get("git")
            if isinstance(git, Mapping) and isinstance(git.get("branch"), str):
                self.branch = git["branch"]
        self.show_snapshot()

    def load_live_sessions(self) -> None:
        """Read the agents' liveness and last commits: in a thread when live, at once in tests."""
        if not self.live:
            self.live_sessions = self.brain.live_sessions(self.snapshot)
            return
        if not self._live_busy:
            self._live_busy = True
            self._live_worker(self.snapshot)

    @work(thread=True, exclusive=True, group="live-sessions", exit_on_error=False)
    def _live_worker(self, snapshot: BrainSnapshot) -> None:
        try:
            found: Mapping[str, Any] | None = self.brain.live_sessions(snapshot)
        except Exception:  # noqa: BLE001 - a missing git or unreadable record: keep what is shown
            found = None
        self.call_from_thread(self._live_done, found)

    def _live_done(self, found: Mapping[str, Any] | None) -> None:
        self._live_busy = False
        if found is not None and found != self.live_sessions:
            self.live_sessions = found
            self.show_snapshot()

    def _load_breath_now(self) -> None:
        self.breath_data, self.breath_note = sources.load_breath(self.brain)

    @work(thread=True, exclusive=True, group="breath", exit_on_error=False)
    def _load_breath(self) -> None:
        data, note = sources.load_breath(self.brain)
        self.call_from_thread(self._breath_done, data, note)

    def _breath_done(self, data: list[Mapping[str, Any]] | None, note: str) -> None:
        self.breath_data, self.breath_note = data, note
        self.show_snapshot()

    # -- sync (SPEC 11) ------------------------------------------------------------------------
    @property
    def auto_fetch(self) -> bool:
        """True when brain-compose.yml says `sync: auto`: the cockpit fetches in the background."""
        return self.brain.config.sync == "auto"

    @property
    def fetch_interval_s(self) -> float:
        """Seconds between background fetches (`fetch_interval` in brain-compose.yml, default 30)."""
        return float(self.brain.config.fetch_interval_s)

    def background_fetch(self) -> None:
        """One background fetch (`sync: auto`): fetch and integrate the remote tip in a thread worker.

        Skipped while a sync or fetch is already running. Read-only cockpits only fetch
        (the work tree is left alone). Errors (remote unreachable) show in the header.
        """
        if self.sync_busy:
            return
        self.sync_busy = "fetching"
        self._sync_worker("fetch")

    def action_sync(self) -> None:
        """`s`: sync with the git remote now (fetch → rebase pending → re-check → push) in a thread worker."""
        if self.refuse_readonly():
            return
        if self.sync_busy == "syncing":
            self.notify("sync: already running", timeout=3, markup=False)
            return
        if self.sync_busy:  # a background fetch: sync right after it
            self._sync_queued = True
            self.notify("sync: after the running fetch", timeout=2, markup=False)
            return
        self.sync_busy = "syncing"
        self.show_snapshot()
        self._sync_worker("sync")

    @work(thread=True, exclusive=True, group="sync", exit_on_error=False)
    def _sync_worker(self, kind: str) -> None:
        """Run a fetch (`kind="fetch"`) or a full sync (`kind="sync"`) off the UI thread."""
        message, error, severity = "", "", "information"
        fetched_at: datetime | None = None
        try:
            if kind == "fetch":
                integrate = not self.readonly
                if self.call_core(lambda brain: sources.fetch_remote(brain, integrate=integrate)):
                    fetched_at = self.brain.now()
            else:
                sync_now, reason = sources.sync_function(self.brain)
                if sync_now is None:
                    message, severity = reason, "warning"
                else:
                    report = self.call_core(sync_now)
                    message = describe_sync(report)
                    if getattr(report, "lost", None):
                        severity = "warning"
        except BsiError as exc:
            error = exc.message
        except Exception as exc:  # noqa: BLE001 - never crash the cockpit on a sync failure
            error = f"{exc.__class__.__name__}: {exc}"
        status, _ = sources.sync_status(self.brain)
        self.call_from_thread(self._sync_done, kind, status, message, error, severity, fetched_at)

    def _sync_done(self, kind: str, status: Mapping[str, Any] | None, message: str, error: str,
                   severity: str, fetched_at: datetime | None = None) -> None:
        previous_error = self.sync_error
        self.sync_busy = ""
        if fetched_at is not None:
            self.fetched_at = fetched_at
        if status is not None:
            self.sync_data = status
        self.sync_error = error
        if error and (kind == "sync" or error != previous_error):
            # A background fetch tells a new error once; the header keeps showing it.
            self.notify(safe_str(f"{'sync' if kind == 'sync' else 'background fetch'} failed: {error}", 400),
                        title="sync", severity="error" if kind == "sync" else "warning", markup=False,
                        timeout=10 if kind == "sync" else 6)
        elif kind == "fetch" and previous_error and not error:
            self.notify("remote reachable again", title="sync", timeout=3, markup=False)
        elif message:
            self.notify(safe_str(message, 400), title="sync", severity=severity, markup=False,  # type: ignore[arg-type]
                        timeout=4)
        self.refresh_snapshot()
        if self._sync_queued:
            self._sync_queued = False
            self.action_sync()

    @work(thread=True, exclusive=True, group="sync-status", exit_on_error=False)
    def _sync_status_worker(self) -> None:
        status, _ = sources.sync_status(self.brain)
        self.call_from_thread(self._sync_status_done, status)

    def _sync_status_done(self, status: Mapping[str, Any] | None) -> None:
        self.sync_data = status
        self.show_snapshot()

    # -- themes --------------------------------------------------------------------------------
    def _on_theme_changed(self, theme: Theme) -> None:
        self.palette = Palette.from_variables(self.get_css_variables())
        if self.remember_theme and self.is_running and theme.name != self.settings.get("theme"):
            self.settings["theme"] = theme.name
            save_settings(self.settings, settings_path())
        self.show_snapshot()

    def action_next_theme(self) -> None:
        """Cycle brain-dark → brain-light → high-contrast → ansi-dark → ansi-light."""
        names = [n for n in THEME_CYCLE if n in self.available_themes]
        extra = [n for n in self.available_themes if n not in THEME_CYCLE and n.startswith(("brain", "high"))]
        names += sorted(extra)
        current = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(current + 1) % len(names)]
        self.notify(f"theme: {self.theme}", timeout=2, markup=False)

    # -- actions shared by screens --------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide and disable actions that change the brain when read-only."""
        return not (self.readonly and action in MUTATING_ACTIONS)

    def refuse_readonly(self) -> bool:
        """True (and a message) when the cockpit is read-only."""
        if self.readonly:
            self.notify("read-only: actions are disabled (--readonly)", severity="warning", markup=False)
        return self.readonly

    def claim(self, sess_id: str | None) -> Claim | None:
        """The claim with this ID in the current snapshot."""
        return self.snapshot.claim(sess_id) if sess_id else None

    def run_core(self, describe: str, call: Callable[[Brain], Any], done: Callable[[Any], str] | None = None) -> None:
        """Run one core action in a thread worker (no dialog) and report the result.

        Args:
            describe: what is being done, for messages.
            call: the function of the writer Brain to run.
            done: turns the result into the success message.
        """
        if self.refuse_readonly():
            return
        self._core_worker(describe, call, done)

    @work(thread=True, group="core", exit_on_error=False)
    def _core_worker(self, describe: str, call: Callable[[Brain], Any], done: Callable[[Any], str] | None) -> None:
        try:
            result = self.call_core(call)
        except BsiError as exc:
            self.call_from_thread(self.report, f"{describe} refused: {exc.message}", "error")
            return
        except Exception as exc:  # noqa: BLE001
            self.call_from_thread(self.report, f"{describe} failed: {exc.__class__.__name__}: {exc}", "error")
            return
        message = done(result) if done else f"{describe}: done"
        self.call_from_thread(self.report, message, "information")

    def call_core(self, call: Callable[[Brain], Any]) -> Any:
        """Run `call(writer)` under the cockpit's write lock (from a worker thread)."""
        with self._write_lock:
            return call(self.writer)

    def report(self, message: str | None, severity: str = "information") -> None:
        """Show the outcome of an action and refresh from disk."""
        if message:
            self.notify(safe_str(message, 400), severity=severity, markup=False,  # type: ignore[arg-type]
                        timeout=8 if severity == "error" else 4)
        self.refresh_snapshot(force=False)
        if not self.sync_busy:
            self._sync_status_worker()  # an action's commit changes what is pending

    def after_dialog(self, message: str | None) -> None:
        """Callback of every action dialog: the core's success message, or None when cancelled."""
        if message:
            self.report(message)
        else:
            self.catch_up()

    # -- app-level key actions ----------------------------------------------------------------------
    def action_gates(self) -> None:
        """Open the gate screen (or go back from it)."""
        from .screens.gates import GateScreen

        if isinstance(self.screen, GateScreen):
            self.pop_screen()
            return
        self.push_screen(GateScreen())

    def action_help(self) -> None:
        """Show the keys."""
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(), callback=lambda _: self.catch_up())

    def action_watchdog(self) -> None:
        """Mark expired claims stale (the core's watchdog)."""

        def done(result: Any) -> str:
            marked = result.get("marked", []) if isinstance(result, Mapping) else []
            active = result.get("active", "?") if isinstance(result, Mapping) else "?"
            stale = result.get("stale", "?") if isinstance(result, Mapping) else "?"
            return f"watchdog: {active} claims actifs, {stale} stale détectés" + (
                f" — marked {', '.join(marked)}" if marked else "")

        self.run_core("watchdog", lambda b: b.watchdog(), done)

    async def action_quit(self) -> None:
        """Quit."""
        self._stop_watch.set()
        self.exit(0)

    # -- command palette ------------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Our commands first (the same table as keys and help), then Textual's own."""
        for command in COMMANDS:
            if self.readonly and command.mutating:
                continue
            target = self if "app" in command.where else screen
            if "app" not in command.where and not hasattr(target, f"action_{command.action}"):
                continue
            yield SystemCommand(f"{command.label} ({command.shown_key})", command.description,
                                partial(self.run_action, command.action, target))
        yield SystemCommand(f"Bell: turn {'off' if self.bell_enabled else 'on'}",
                            "Ring (or not) when a new gate or BLOCKED_ON arrives (remembered)", self.toggle_bell)
        yield from super().get_system_commands(screen)

    def toggle_bell(self) -> None:
        """Turn the new-gate bell on or off, and remember it."""
        self.bell_enabled = not self.bell_enabled
        self.settings["bell"] = self.bell_enabled
        save_settings(self.settings, settings_path())
        self.notify(f"bell {'on' if self.bell_enabled else 'off'}", timeout=2, markup=False)

    def action_lint(self) -> None:
        """Open the lint screen: brain-language header findings across the brain (`bsi lint`)."""
        from .screens.lint import LintScreen

        if isinstance(self.screen, LintScreen):
            self.screen.action_rerun()
            return
        self.push_screen(LintScreen())

    def describe_action(self, action: str) -> str:
        """The help text of an action."""
        command = command_by_action(action)
        return command.description if command else action


def describe_sync(report: Any) -> str:
    """The message after `s`: what the sync did (pushed, rebased, claims lost while offline)."""
    data = report.as_dict() if hasattr(report, "as_dict") else {}
    if not data:
        return "sync: done"
    parts = ["pushed" if data.get("pushed") else "up to date"]
    if data.get("rebased"):
        parts.append("local commits rebased on the remote")
    parts.append(f"↑{data.get('ahead') or 0} ↓{data.get('behind') or 0}")
    message = "sync: " + ", ".join(parts)
    lost = data.get("lost") or []
    if lost:
        names = ", ".join(str(item.get("sess_id")) for item in lost if isinstance(item, Mapping))
        message += f"; lost while offline: {names}"
    return message
