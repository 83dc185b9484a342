"""The cockpit's slow readings, each in a thread worker that posts a typed message: the environment (every
5 s) and the live sessions (`Brain.live_sessions`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from brain_tui.core.attention import AttentionItem
from brain_tui.core.live import runways_of
from brain_tui.core.model import BrainSnapshot

from . import sources
from .messages import EnvRead, LiveSessionsRead

if TYPE_CHECKING:
    from .app import BrainApp


class Readings:
    """Mixed into `BrainApp`: the environment, breath and live-session readings and their messages."""

    def _env_tick(self: BrainApp) -> None:
        self.feed.check_files()  # the safety net for missed watch events (network filesystems), in a thread
        if not self._env_busy:
            self._env_busy = True
            self.run_worker(self._collect_env, thread=True, group="env", exclusive=True, exit_on_error=False)
        self.load_live_sessions()
        self.syncer.read_status()

    def attention_of(self: BrainApp, snapshot: BrainSnapshot) -> list[AttentionItem]:
        """`Brain.attention` on `snapshot`, the liveness read with it and the runways of the live sessions
        already read in their worker (no transcript is read here, on the UI thread)."""
        return self.brain.attention(snapshot, self.liveness, runways_of(self.live_sessions))

    def load_live_sessions(self: BrainApp) -> None:
        """Read the agents' liveness and last commits: in a thread when live, at once in tests."""
        if not self.live:
            self.live_sessions = self.brain.live_sessions(self.snapshot)
            return
        if not self._live_busy:
            self._live_busy = True
            snapshot = self.snapshot

            def work() -> None:
                try:
                    found: Mapping[str, Any] | None = self.brain.live_sessions(snapshot)
                except Exception:  # noqa: BLE001 - a missing git or unreadable record: keep what is shown
                    found = None
                self.post_message(LiveSessionsRead(found))

            self.run_worker(work, thread=True, group="live-sessions", exclusive=True, exit_on_error=False)

    def on_live_sessions_read(self: BrainApp, event: LiveSessionsRead) -> None:
        self._live_busy = False
        if event.sessions is not None and event.sessions != self.live_sessions:
            self.live_sessions = event.sessions
            self.queue = self.attention_of(self.snapshot)  # a runway changed: context items come and go
            self._announce(self.queue)
            self.show_snapshot()

    def _collect_env(self: BrainApp) -> None:
        try:
            data, note = self._env_guard(lambda: self.env_provider(self.brain))
        except sources.SourceTimeout as exc:
            data, note = None, f"{exc} (a slow pm2, git or disk?)"
        except Exception as exc:  # noqa: BLE001
            data, note = None, f"environment: {exc}"
        self.post_message(EnvRead(data, note))

    def on_env_read(self: BrainApp, event: EnvRead) -> None:
        self._env_busy = False
        self.env_data, self.env_note = event.data, event.note
        branch = event.data.git_reading.branch if event.data is not None else None
        if branch is not None:
            self.branch = branch
        self.show_snapshot()
