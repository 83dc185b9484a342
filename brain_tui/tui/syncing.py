"""The cockpit's sync controller (SPEC 11): `s`, the background fetch of `sync: auto`, and the sync state.

Every git call runs in a thread worker that posts `SyncFinished` or `SyncStatusRead`; the app hands those back here. The
state it keeps (ahead/ behind, the last error, what runs now) is what the header shows.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from brain_tui.core.errors import BsiError

from . import sources
from .messages import SyncFinished, SyncStatusRead
from .safe import safe_str

if TYPE_CHECKING:
    from brain_tui.core.rules.reconcile import SyncReport
    from brain_tui.core.sync.remote import SyncStatus

    from .app import BrainApp

#: The words shown when the remote cannot be reached (never a command-line flag).
UNREACHABLE_HINT = "changes stay local and are sent at the next sync"


class SyncController:
    """What the cockpit knows about the remote, and the workers that talk to it.

    Attributes:
        data: `brain.remote.status()`: ahead/behind, last sync, pending changes (None: unknown yet).
        error: the last sync/fetch error ("" once one works again).
        busy: "syncing" while `s` runs, "fetching" during a background fetch, "" when idle.
        fetched_at: when the last background fetch worked (brain clock; kept in memory only).
    """

    def __init__(self, app: BrainApp) -> None:
        self.app = app
        self.data: SyncStatus | None = None
        self.error = ""
        self.busy = ""
        self.queued = False
        self.fetched_at: datetime | None = None
        #: The background fetch timer (`sync: auto` only).
        self.timer: Any = None

    @property
    def auto_fetch(self) -> bool:
        """True when brain-compose.yml says `sync: auto`: the cockpit fetches in the background."""
        return self.app.brain.config.sync == "auto"

    @property
    def fetch_interval_s(self) -> float:
        """Seconds between background fetches (`fetch_interval` in brain-compose.yml, default 30)."""
        return float(self.app.brain.config.fetch_interval_s)

    def background_fetch(self) -> None:
        """One background fetch: fetch and integrate the remote tip (read-only cockpits only fetch)."""
        if self.busy:
            return
        self.busy = "fetching"
        self._start("fetch")

    def sync_now(self) -> None:
        """`s`: fetch → rebase pending → re-check → push, in a thread worker."""
        app = self.app
        if self.busy == "syncing":
            app.notify("sync: already running", timeout=3, markup=False)
            return
        if self.busy:  # a background fetch: sync right after it
            self.queued = True
            app.notify("sync: after the running fetch", timeout=2, markup=False)
            return
        self.busy = "syncing"
        app.show_snapshot()
        self._start("sync")

    def read_status(self) -> None:
        """Read ahead/behind and the last sync (local git only) in a thread worker."""
        if self.busy:
            return
        self.app.run_worker(self._status_worker, thread=True, group="sync-status", exclusive=True,
                            exit_on_error=False)

    def _status_worker(self) -> None:
        status, _ = sources.sync_status(self.app.brain)
        self.app.post_message(SyncStatusRead(status))

    def _start(self, kind: str) -> None:
        work: Callable[[], None] = lambda: self._worker(kind)  # noqa: E731
        self.app.run_worker(work, thread=True, group="sync", exclusive=True, exit_on_error=False)

    def _worker(self, kind: str) -> None:
        """Run a fetch (`kind="fetch"`) or a full sync (`kind="sync"`) off the UI thread."""
        app = self.app
        message, error, severity = "", "", "information"
        fetched_at: datetime | None = None
        try:
            if kind == "fetch":
                integrate = not app.readonly
                if app.call_core(lambda brain: sources.fetch_remote(brain, integrate=integrate)):
                    fetched_at = app.brain.now()
            else:
                sync_now, reason = sources.sync_function(app.brain)
                if sync_now is None:
                    message, severity = reason, "warning"
                else:
                    report = app.call_core(sync_now)
                    message = describe_sync(report)
                    if report.lost or report.dropped:
                        severity = "warning"
        except BsiError as exc:
            error = plain_remote_error(exc.message, exc.exit_code)
        except Exception as exc:  # noqa: BLE001 - never crash the cockpit on a sync failure
            error = f"{exc.__class__.__name__}: {exc}"
        status, _ = sources.sync_status(app.brain)
        app.post_message(SyncFinished(kind, status, message, error, severity, fetched_at))

    def finished(self, event: SyncFinished) -> None:
        """A worker ended: keep the state, tell what happened (a background error only once)."""
        app = self.app
        previous_error = self.error
        self.busy = ""
        if event.fetched_at is not None:
            self.fetched_at = event.fetched_at
        if event.status is not None:
            self.data = event.status
        self.error = event.error
        if event.error and (event.kind == "sync" or event.error != previous_error):
            what = "sync" if event.kind == "sync" else "background fetch"
            app.notify(safe_str(f"{what} failed: {event.error}", 400), title="sync",
                       severity="error" if event.kind == "sync" else "warning", markup=False,
                       timeout=10 if event.kind == "sync" else 6)
        elif event.kind == "fetch" and previous_error and not event.error:
            app.notify("remote reachable again", title="sync", timeout=3, markup=False)
        elif event.message:
            app.notify(safe_str(event.message, 400), title="sync", severity=event.severity,  # type: ignore[arg-type]
                       markup=False, timeout=4)
        app.refresh_snapshot()
        if self.queued:
            self.queued = False
            self.sync_now()

    def status_read(self, event: SyncStatusRead) -> None:
        """Keep the state a status worker read."""
        self.data = event.status
        self.app.show_snapshot()


def plain_remote_error(message: str, exit_code: int = 0) -> str:
    """A sync error in a pilot's words: an unreachable remote says so, without a command-line flag."""
    if exit_code == 69 or "unreachable" in message.lower():
        return f"remote unreachable — {UNREACHABLE_HINT}"
    return message


def describe_sync(report: SyncReport) -> str:
    """The message after `s`: what the sync did (pushed, rebased, claims lost while offline)."""
    parts = ["pushed" if report.pushed else "up to date"]
    if report.rebased:
        parts.append("local commits rebased on the remote")
    parts.append(f"↑{report.ahead} ↓{report.behind}")
    message = "sync: " + ", ".join(parts)
    if report.lost:
        message += f"; lost while offline: {', '.join(item.sess_id for item in report.lost)}"
    if report.dropped:
        message += f"; not kept (the other machine's side won): {'; '.join(report.dropped)}"
    if report.notes:
        message += "; " + "; ".join(report.notes)
    return message
