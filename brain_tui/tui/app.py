"""BrainApp: the cockpit's application — screens, the snapshot it shows, the attention queue, actions.

Data flows one way: files on disk → `feed.steady_read` (a `Brain` read) in a worker thread (`feed.LiveFeed`) → a
`SnapshotLoaded` message → the screens. Actions flow the other way: a key → a dialog → a `Brain` method run in a thread
worker (the same code path as `bsi`) → files and a git commit → the watcher notices → a new snapshot. The cockpit never
writes a brain file itself and never decides a rule: what needs the pilot is `Brain.attention()`, counted one way
everywhere.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.content import Content
from textual.css.query import NoMatches
from textual.message_pump import MessagePump
from textual.screen import ModalScreen, Screen

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.record import replace
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.core.rules.attention import AttentionItem
from brain_tui.core.sessions.agents import Liveness
from brain_tui.core.sync import gitops

from . import heap, selection, sources
from .commands import MUTATING_ACTIONS, bindings_for, readonly_bindings
from .feed import LiveFeed, steady_read
from .messages import CoreDone, EnvRead, FilesChanged, LiveSessionsRead, SnapshotLoaded, SyncFinished, SyncStatusRead
from .navigation import Navigator
from .notices import DesktopNotices, alert_keys, tell_setting_problems
from .palette import BrainPalette, BrainProvider, JumpPalette, system_commands
from .readings import Readings
from .safe import safe_str
from .syncing import SyncController
from .themes import DEFAULT_THEME, THEME_CYCLE, load_settings, load_themes, save_settings, settings_path
from .widgets.header import header_text
from .words import describe_watchdog, plain_refusal

if TYPE_CHECKING:
    from brain_tui.core.environment.env import EnvState

#: Seconds between TTL countdown ticks (no disk read).
TICK_SECONDS = 30.0
#: Seconds between environment readings (thread worker).
ENV_SECONDS = 5.0

EnvProvider = Callable[[Brain], "tuple[EnvState | None, str]"]


class BrainApp(App[int]):
    """The cockpit over one brain.

    Args:
        brain: the brain to show (its clock is the cockpit's clock).
        live: watch the files, tick TTLs, read the environment, ring the bell (tests, screenshots: False).
        readonly: hide and refuse every action that changes the brain.
        gates: open on the attention queue.
        theme: a theme name (else the remembered one, else brain-dark).
        bell: ring the terminal bell when something new needs the pilot (default: the
            remembered setting, else on).
        env_provider: where the environment pane's data comes from (default: `core.env`).
            It runs in a thread worker with a time limit (`readings.ENV_TIMEOUT_SECONDS`).
        remember_theme: the palette's "Theme: keep" saves the theme in the settings file (`t`: this cockpit only).
        title_hint: shown in the header after the brain's name (e.g. "demo").
        demo_path: the temporary demo brain (told once, so `bsi --brain PATH` can drive it).
        progressive: paint first from the blocking claims only (a cheap read), then load the
            steady read (`feed.steady_read`: recently finished claims, ancestors) in a thread worker. Default:
            the same as `live` (tests and screenshots load everything before the first paint).
    """

    CSS_PATH = "cockpit.tcss"
    TITLE = "brain-tui"
    COMMANDS = App.COMMANDS | {BrainProvider}
    BINDINGS = [
        *bindings_for("app"),
        Binding("ctrl+c", "quit", "Quit", show=False, id="quit-ctrl-c", priority=True),
        *readonly_bindings(),
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
        ansi_color: bool | None = None,
    ) -> None:
        super().__init__(ansi_color=ansi_color)
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
        self._write_lock = threading.Lock()
        self.feed = LiveFeed(self, brain)
        self.syncer = SyncController(self)
        self.notices = DesktopNotices(self)
        self._refresh_pending = False
        self._held: BrainSnapshot | None = None
        self._alert_keys: frozenset[str] | None = None
        #: True once `q` was pressed: keys still queued behind it (one burst) do nothing.
        self.quitting = False
        #: Why the last read of the brain failed ("" when it worked): the header marks what is shown as old.
        self.read_problem = ""
        self.branch = ""
        self.env_data: EnvState | None = None
        self.env_note = "environment: collecting…" if live else "environment: live readings off"
        #: `Brain.live_sessions()`: each live claim's agent (state, last tool, last commit, launch).
        self.live_sessions: Mapping[str, Any] = {}
        self.readings = Readings(self)
        self.navigator = Navigator(self)
        loaded = load_themes()
        self.theme_problems = loaded.problems
        for item in loaded.themes.values():
            self.register_theme(item)
        self.theme = self._pick_theme(theme)
        self.progressive = live if progressive is None else progressive
        #: False while only the blocking claims are loaded (progressive start, until the first full read).
        self.full_loaded = not self.progressive
        #: The finished claims of the history page on screen (the steady read holds only recent ones).
        self.history_shown: dict[str, Claim] = {}
        #: `time.time()` when the cockpit screen was first painted (None before).
        self.first_paint_at: float | None = None
        self._wrote = False
        self.slides = selection.Slides(self)
        self.snapshot: BrainSnapshot = (brain.snapshot(only_statuses=BLOCKING_STATUSES) if self.progressive
                                        else steady_read(brain))
        #: The bound agent sessions' liveness, read with each snapshot and with the live sessions (`brain.agents`).
        self.liveness: Mapping[str, Liveness] = brain.read_liveness()
        #: What needs the pilot, ranked (`Brain.attention` on the snapshot shown).
        self.queue: list[AttentionItem] = brain.attention(self.snapshot, self.liveness)
        if not live:
            self.animation_level = "none"

    # -- set-up -------------------------------------------------------------------------------
    def _pick_theme(self, asked: str | None) -> str:
        for candidate in (asked, self.settings.get("theme"), DEFAULT_THEME, "textual-dark"):
            if isinstance(candidate, str) and candidate in self.available_themes:
                return candidate
        return "textual-dark"

    @property
    def read_lock(self) -> threading.RLock:
        """Held by any thread that reads `self.brain` (its store is not thread-safe): the feed's lock."""
        return self.feed.read_lock

    def on_mount(self) -> None:
        """Install the screens, timers, watchers and the hang-up handler."""
        from .screens.cockpit import CockpitScreen

        self.push_screen(CockpitScreen())
        if self.start_on_gates:
            self.action_gates()
        self.call_after_refresh(self._first_painted)
        self._alert_keys = alert_keys(self.queue)
        self.notices.start(self.queue)
        if self.live:
            self.run_worker(self._read_branch, thread=True, group="branch", exit_on_error=False)
            self.feed.start([claim.path for claim in self.snapshot.claims])
            self.set_interval(TICK_SECONDS, self.tick, name="ttl-tick")
            self.set_interval(ENV_SECONDS, self.readings.env_tick, name="env-tick")
            self.readings.env_tick()
            if self.syncer.auto_fetch:
                self.syncer.timer = self.set_interval(self.syncer.fetch_interval_s, self.syncer.background_fetch,
                                                      name="auto-fetch")
                self.syncer.background_fetch()
        elif not self.progressive:
            self.readings.read_now()
        if self.demo_path:
            self.notify(f"demo brain in {self.demo_path} (deleted on quit) — try `bsi --brain {self.demo_path} "
                        "claim open --scope wiki/` in another terminal", title="demo", timeout=6, markup=False)
        tell_setting_problems(self)
        self.show_snapshot()

    def _read_branch(self) -> None:
        self.branch = gitops.current_branch(self.brain.root) if self.brain.is_git() else ""

    def _first_painted(self) -> None:
        """The first frame is on screen: note when, then read the rest of the brain (progressive start)."""
        if self.first_paint_at is None:
            self.first_paint_at = time.time()
            if self.progressive and not self.live:
                self.readings.read_now()
                self.show_snapshot()
        if not self.full_loaded:
            self.feed.request()

    def hang_up(self) -> None:
        """The terminal went away (SSH dropped; `hangup.HangUp` calls this): stop watching and leave."""
        self.feed.stop()
        self.exit(129)

    def header_line(self, snapshot: BrainSnapshot, width: int) -> Content:
        """The header every screen shows: brain, instance, branch, sync state, what needs you, clock."""
        s = self.syncer
        return header_text(brain_name=self.brain.brain_name, instance=self.brain.instance, branch=self.branch,
                           snapshot=snapshot, readonly=self.readonly, hint=self.title_hint,
                           env=self.env_data, width=width, sync=s.data, sync_error=s.error,
                           sync_busy="syncing" if s.busy == "syncing" else "", fetched_at=s.fetched_at,
                           queue=self.queue, unreadable=bool(self.read_problem))

    # -- snapshot & refresh --------------------------------------------------------------------
    def modal_open(self) -> bool:
        """True while a dialog (or the palette) covers the screen: refresh waits."""
        return bool(self.screen_stack) and isinstance(self.screen, ModalScreen)

    def refresh_snapshot(self) -> None:
        """Ask for a fresh read of the brain (in a worker thread; only changed files are parsed), deferred while
        a modal is open until it closes; none once the screens are gone (the watcher, a timer or a worker can
        still answer while the cockpit quits)."""
        if not self.screen_stack:
            return
        if self.modal_open() and not getattr(self.screen, "follows_brain", False):
            self._refresh_pending = True
            return
        self._refresh_pending = False
        self.feed.request()

    @on(SnapshotLoaded)
    def _snapshot_loaded(self, event: SnapshotLoaded) -> None:
        if not self.screen_stack:  # a read that ends while the app closes: nothing left to show it on
            return
        if event.snapshot is None:
            # The last state read stays on screen, marked unreadable in the header; the cause is told once.
            if event.error != self.read_problem:
                self.notify(safe_str(event.error), severity="error", markup=False, timeout=12)
            self.read_problem = event.error or "cannot read the brain"
            self.show_snapshot()
            return
        if event.error:
            self.notify(safe_str(event.error), severity="error", markup=False)
        self.read_problem = ""
        if not self.full_loaded:  # the first full read: what the cockpit holds from now on leaves the collector
            self.call_after_refresh(heap.settle)
        self.full_loaded = True
        if event.liveness is not None:
            self.liveness = event.liveness
        if self.modal_open():
            self._held = event.snapshot  # shown when the dialog closes
            arrived = getattr(self.screen, "snapshot_arrived", None)
            if arrived is not None:  # a decision dialog learns that its claim changed meanwhile
                arrived(event.snapshot)
            return
        self._apply(event.snapshot)
        self.slides.shown()
        if self._wrote:
            self._wrote = False
            heap.release()

    @on(FilesChanged)
    def _files_changed(self, event: FilesChanged) -> None:
        self.refresh_snapshot()
        if event.watched:
            self.feed.restat()

    def _apply(self, snapshot: BrainSnapshot) -> None:
        self.snapshot = snapshot
        if not self.live:
            self.readings.load_live_sessions()
        self.queue = self.readings.attention_of(snapshot)
        self.announce(self.queue)
        self.show_snapshot()
        if self.live:
            self.readings.load_live_sessions()

    def catch_up(self) -> None:
        """A screen comes back from under a modal: show what arrived (or the tick it missed), run a deferred read."""
        held, self._held = self._held, None
        if held is None and (self.brain.now() - self.snapshot.now).total_seconds() >= TICK_SECONDS:
            held = replace(self.snapshot, now=self.brain.now())  # the TTL tick skipped while the modal was open
        if held is not None:
            self._apply(held)
        if self._refresh_pending:
            self.refresh_snapshot()

    def tick(self) -> None:
        """Count TTLs down from the clock, without touching the disk."""
        if not self.screen_stack or self.modal_open():
            return
        self._apply(replace(self.snapshot, now=self.brain.now()))

    def show_snapshot(self) -> None:
        """Push the current snapshot to every screen that shows brain data."""
        for screen in self.screen_stack:
            show = getattr(screen, "show_snapshot", None)
            # NoMatches: its widgets are being removed (the app closes), nothing to show them on
            with contextlib.suppress(NoMatches):
                if show is not None and screen.is_mounted:
                    show(self.snapshot)

    # -- attention -----------------------------------------------------------------------------
    def action_command_palette(self, jump: bool = False) -> None:
        """The palette (`ctrl+p`; `:` to jump), naming its keys in its footer (`palette.BrainPalette`)."""
        if self.use_command_palette and not isinstance(self.screen, BrainPalette):
            self.push_screen(JumpPalette() if jump else BrainPalette())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette: our commands first (`palette.system_commands`), then Textual's own."""
        yield from system_commands(self, screen)
        yield from super().get_system_commands(screen)

    def action_next_item(self) -> None:
        """`n`: go to the next item of the attention queue, from any screen."""
        self.navigator.next_item()

    def on_live_sessions_read(self, event: LiveSessionsRead) -> None:
        """The live sessions' worker answered."""
        self.readings.live_sessions_read(event)

    def on_env_read(self, event: EnvRead) -> None:
        """The environment's worker answered."""
        self.readings.env_read(event)

    def announce(self, queue: list[AttentionItem]) -> None:
        """Bell and toast for what is new in the queue (`DesktopNotices.alert`)."""
        self.notices.alert(queue)

    # -- sync (SPEC 11) ------------------------------------------------------------------------
    def action_sync(self) -> None:
        """`s`: sync with the git remote now (fetch → rebase pending → re-check → push) in a thread worker."""
        if not self.refuse_readonly():
            self.syncer.sync_now()

    @on(SyncFinished)
    def _sync_finished(self, event: SyncFinished) -> None:
        self.syncer.finished(event)

    @on(SyncStatusRead)
    def _sync_status_read(self, event: SyncStatusRead) -> None:
        self.syncer.status_read(event)

    # -- themes --------------------------------------------------------------------------------
    def action_keep_theme(self) -> None:
        """Palette: make the theme shown the one later cockpits (and browser tabs) start with."""
        if not self.remember_theme:
            self.notify("this cockpit does not save settings", severity="warning", markup=False)
            return
        self.settings["theme"] = self.theme
        saved = save_settings(self.settings, settings_path())
        self.notify(f"{self.theme}: later cockpits start with it" if saved else "the settings could not be saved",
                    severity="information" if saved else "warning", timeout=3, markup=False)

    def action_next_theme(self) -> None:
        """Cycle brain-dark → brain-light → high-contrast → ansi-dark → ansi-light."""
        names = [n for n in THEME_CYCLE if n in self.available_themes]
        extra = [n for n in self.available_themes if n not in THEME_CYCLE and n.startswith(("brain", "high"))]
        names += sorted(extra)
        current = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(current + 1) % len(names)]
        # This cockpit only: another terminal or browser tab keeps its own (the palette's "Theme: keep" saves it).
        self.notify(f"theme: {self.theme} (this cockpit; ctrl+p “Theme: keep” for later ones)", timeout=3,
                    markup=False)

    # -- actions shared by screens --------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide and disable actions that change the brain when read-only; every action once quitting."""
        if self.quitting:
            return action == "quit"
        if action == "refuse_readonly":  # the key's own action is off (read-only): say so
            return self.readonly
        return not (self.readonly and action in MUTATING_ACTIONS)

    def action_refuse_readonly(self) -> None:
        """An action key with --readonly (its own binding is off): say so rather than do nothing."""
        self.refuse_readonly()

    def refuse_readonly(self) -> bool:
        """True (and a message) when the cockpit is read-only."""
        if self.readonly:
            self.notify("read-only: actions are disabled (--readonly)", severity="warning", markup=False)
        return self.readonly

    def claim(self, sess_id: str | None) -> Claim | None:
        """The claim with this ID in the current snapshot, else on the history page shown."""
        if not sess_id:
            return None
        return self.snapshot.claim(sess_id) or self.history_shown.get(sess_id)

    def run_core(self, describe: str, call: Callable[[Brain], Any], done: Callable[[Any], str] | None = None, *,
                 reply_to: MessagePump | None = None) -> None:
        """Run one core action in a thread worker; its outcome comes back as `CoreDone` to `reply_to` (default: the
        App), `done` turning a result into the success message.

        The one way the cockpit runs a core call off the event loop: a dialog (`CoreDialog.submit_core`) asks
        for the reply and keeps a refusal inline; without `reply_to` the App shows the outcome as a toast.
        Read-only is checked once, by the action that leads here (a dialog's opening, a key of the App).
        """
        target = self if reply_to is None else reply_to

        def work() -> None:
            try:
                result = self.call_core(call)
            except BsiError as exc:
                target.post_message(CoreDone(plain_refusal(exc.message), "error", describe, refused=True))
                return
            except Exception as exc:  # noqa: BLE001 - said in the cockpit instead of crashing it
                target.post_message(CoreDone(f"{describe} failed: {exc.__class__.__name__}: {exc}", "error",
                                             describe))
                return
            target.post_message(CoreDone.told(done(result) if done else f"{describe}: done", describe, self.brain))

        self.run_worker(work, thread=True, group="core", exit_on_error=False)

    @on(CoreDone)
    def _core_done(self, event: CoreDone) -> None:
        self.report(event.toast, event.severity)

    def call_core(self, call: Callable[[Brain], Any]) -> Any:
        """Run `call(self.brain)` from a worker thread, under the write lock and the store's read lock.

        It writes with the Brain the feed reads with: one store and one parse cache in memory (a second
        Brain doubled the cockpit's memory at 10,000 claims after the first write).
        """
        with self._write_lock, self.feed.read_lock:
            self._wrote, self.brain.last_applied = True, None  # pages back at the next snapshot (`heap.release`)
            return call(self.brain)

    def report(self, message: str | None, severity: str = "information") -> None:
        """Show the outcome of an action and refresh from disk (nothing once the screens are gone)."""
        if not self.screen_stack:
            return
        if message:
            self.notify(safe_str(message, 400), severity=severity, markup=False,  # type: ignore[arg-type]
                        timeout=8 if severity != "information" or len(message) > 120 else 4)
        self.refresh_snapshot()
        self.syncer.read_status()  # an action's commit changes what is pending

    def after_dialog(self, message: str | None) -> None:
        """Callback of every action dialog: the core's success message, or None when cancelled (nothing to show
        once the cockpit quits: a write confirmed just before ctrl+c lands, and its answer finds no screen)."""
        if self.quitting or not self.screen_stack:
            return
        if message:
            self.slides.own_action()
            self.report(message)
        else:
            self.catch_up()

    # -- app-level key actions ----------------------------------------------------------------------
    def action_gates(self) -> None:
        """Open the attention queue (or go back from it)."""
        from .screens.queue import QueueScreen

        if isinstance(self.screen, QueueScreen):
            self.pop_screen()
            return
        self.push_screen(QueueScreen())

    def action_help(self) -> None:
        """Show the keys."""
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(), callback=lambda _: self.catch_up())

    def action_watchdog(self) -> None:
        """Mark expired claims stale (the core's watchdog)."""
        if not self.refuse_readonly():
            self.slides.own_action()  # the stale marks it makes move rows the pilot asked to move
            self.run_core("watchdog", lambda b: b.watchdog(), describe_watchdog)

    async def action_quit(self) -> None:
        """Quit (keys already queued behind `q` are dropped: no dialog opens on the way out)."""
        self.quitting = True
        self.feed.stop()
        self.exit(0)

    def action_lint(self) -> None:
        """Open the lint screen: brain-language header findings across the brain (`bsi lint`)."""
        from .screens.lint import LintScreen

        if isinstance(self.screen, LintScreen):
            self.screen.action_rerun()
            return
        self.push_screen(LintScreen())
