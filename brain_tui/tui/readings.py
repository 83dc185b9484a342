"""The cockpit's slow readings, each in a thread worker that posts a typed message: the environment (every
5 s), the live sessions (`Brain.live_sessions`), and the breath metrics of the snapshot shown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.rules.attention import AttentionItem
from brain_tui.core.sessions.live import runways_of
from brain_tui.core.sync import gitops

from . import sources
from .messages import EnvRead, LiveSessionsRead
from .notices import alert_keys

if TYPE_CHECKING:
    from brain_tui.core.environment.breath_metrics import SprintMetrics

    from .app import BrainApp

#: Seconds the environment reading may take before the pane says it timed out.
ENV_TIMEOUT_SECONDS = 20.0


class Readings:
    """Held by `BrainApp`: the environment, breath and live-session readings; the app hands it their messages."""

    def __init__(self, app: BrainApp) -> None:
        self.app = app
        self.env_busy = False
        self.live_busy = False
        #: Bounds each environment reading (`ENV_TIMEOUT_SECONDS`; tests shorten it).
        self.env_guard = sources.Bounded("environment", ENV_TIMEOUT_SECONDS)
        self._breath_for: BrainSnapshot | None = None
        self._breath: tuple[tuple[SprintMetrics, ...] | None, str] = (None, "")

    def breath(self) -> tuple[tuple[SprintMetrics, ...] | None, str]:
        """The breath metrics of the snapshot shown (None when they could not be computed) and why not, or how
        many breath files did not load ("" when all did); computed once per snapshot."""
        if self._breath_for is not self.app.snapshot:
            self._breath_for = self.app.snapshot
            self._breath = sources.breath_of(self.app.brain, self.app.snapshot)
        return self._breath

    def read_now(self) -> None:
        """Without the live workers (`live=False`): the branch, sync state, live sessions and environment, read on
        the UI thread (before the first paint, or right after it on a progressive start)."""
        app = self.app
        app.branch = gitops.current_branch(app.brain.root) if app.brain.is_git() else ""
        app.syncer.data, _ = sources.sync_status(app.brain)
        app.live_sessions = app.brain.live_sessions(app.snapshot)
        app.queue = self.attention_of(app.snapshot)
        app._alert_keys = alert_keys(app.queue)  # what is there at the start is not news
        if app.env_provider is not sources.collect_env:
            app.env_data, app.env_note = app.env_provider(app.brain)

    def env_tick(self) -> None:
        """Every `ENV_SECONDS`: check the files, read the environment, the live sessions and the sync status."""
        app = self.app
        app.feed.check_files()  # the safety net for missed watch events (network filesystems), in a thread
        if not self.env_busy:
            self.env_busy = True
            app.run_worker(self._collect_env, thread=True, group="env", exclusive=True, exit_on_error=False)
        self.load_live_sessions()
        app.syncer.read_status()

    def attention_of(self, snapshot: BrainSnapshot) -> list[AttentionItem]:
        """`Brain.attention` on `snapshot`, the liveness read with it and the runways of the live sessions
        already read in their worker (no transcript is read here, on the UI thread)."""
        app = self.app
        return app.brain.attention(snapshot, app.liveness, runways_of(app.live_sessions))

    def load_live_sessions(self) -> None:
        """Read the agents' liveness and last commits: in a thread when live, at once in tests."""
        app = self.app
        if not app.live:
            app.live_sessions = app.brain.live_sessions(app.snapshot)
            return
        if not self.live_busy:
            self.live_busy = True
            snapshot = app.snapshot

            def work() -> None:
                try:
                    found: Mapping[str, Any] | None = app.brain.live_sessions(snapshot)
                except Exception:  # noqa: BLE001 - a missing git or unreadable record: keep what is shown
                    found = None
                app.post_message(LiveSessionsRead(found, app.brain.read_liveness()))

            app.run_worker(work, thread=True, group="live-sessions", exclusive=True, exit_on_error=False)

    def live_sessions_read(self, event: LiveSessionsRead) -> None:
        """The live sessions' worker answered: a runway or state that changed reaches the queue and the screen."""
        app = self.app
        self.live_busy = False
        changed = False
        if event.liveness is not None and event.liveness != app.liveness:
            app.liveness = event.liveness  # a hook's needs input / idle / ended: the queue counts it now
            changed = True
        if event.sessions is not None and event.sessions != app.live_sessions:
            app.live_sessions = event.sessions
            changed = True
        if changed:
            app.queue = self.attention_of(app.snapshot)  # a runway or an agent's state changed: items come and go
            app.announce(app.queue)
            app.show_snapshot()

    def _collect_env(self) -> None:
        app = self.app
        try:
            data, note = self.env_guard(lambda: app.env_provider(app.brain))
        except sources.SourceTimeout as exc:
            data, note = None, f"{exc} (a slow pm2, git or disk?)"
        except Exception as exc:  # noqa: BLE001
            data, note = None, f"environment: {exc}"
        app.post_message(EnvRead(data, note))

    def env_read(self, event: EnvRead) -> None:
        """The environment's worker answered: show it (and the branch it read)."""
        app = self.app
        self.env_busy = False
        app.env_data, app.env_note = event.data, event.note
        branch = event.data.git_reading.branch if event.data is not None else None
        if branch is not None:
            app.branch = branch
        app.show_snapshot()
