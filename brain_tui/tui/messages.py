"""The typed messages thread workers post to the app (never callbacks into the UI from a thread)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from textual.message import Message

from brain_tui.core.record import record
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.sessions.agents import Liveness

if TYPE_CHECKING:
    from brain_tui.core.brain import Brain
    from brain_tui.core.environment.env import EnvState
    from brain_tui.core.sync.remote import SyncStatus


@record(frozen=False)
class SnapshotLoaded(Message):
    """A fresh snapshot read off the UI thread (`snapshot` None when the read failed: `error` says why, "" on
    success)."""

    snapshot: BrainSnapshot | None
    error: str = ""
    #: The bound agent sessions (`brain.agents.liveness()`), read in the same thread.
    liveness: Mapping[str, Liveness] | None = None


@record(frozen=False)
class FilesChanged(Message):
    """The watcher (or the stat poll) saw files change under the watched folders."""

    paths: tuple[str, ...]
    #: True when watchfiles told (the fingerprint is taken again after the refresh).
    watched: bool = False


@record(frozen=False)
class SyncFinished(Message):
    """A background fetch or a sync (`s`) ended.

    Attributes:
        kind: "fetch" or "sync".
        status: `brain.remote.status()` after it (None when unknown).
        message: what it did, for the toast ("" when nothing to say).
        error: why it failed ("" on success).
        severity: the toast's severity.
        fetched_at: when the fetch worked (brain clock), else None.
    """

    kind: str
    status: SyncStatus | None
    message: str = ""
    error: str = ""
    severity: str = "information"
    fetched_at: datetime | None = None


@record(frozen=False)
class SyncStatusRead(Message):
    """The sync state (ahead/behind, last sync, pending) was read."""

    status: SyncStatus | None


@record(frozen=False)
class EnvRead(Message):
    """The environment reading ended (`data` None: `note` says why)."""

    data: EnvState | None
    note: str


@record(frozen=False)
class CoreDone(Message):
    """A core call run in a thread (`BrainApp.run_core`) ended; told to whoever asked: a dialog, else the App.

    Attributes:
        message: the success message, or why it did not happen (the core's refusal in plain words).
        severity: "information", or "error" when the core refused or the call failed.
        describe: what was done (a toast names it before a refusal).
        refused: the core refused: `message` is its reason.
    """

    message: str
    severity: str = "information"
    describe: str = ""
    refused: bool = False

    @classmethod
    def told(cls, message: str, describe: str, brain: Brain) -> CoreDone:
        """A success, with what the write this thread made says besides (a pause git could not commit yet):
        shown as a warning then."""
        warnings = brain.last_applied.warnings if brain.last_applied is not None else []
        if not warnings:
            return cls(message, describe=describe)
        return cls("; ".join([message, *warnings]), "warning", describe)

    @property
    def ok(self) -> bool:
        """True when the call succeeded."""
        return self.severity != "error"

    @property
    def toast(self) -> str:
        """The message as a toast says it (a refusal names what was refused)."""
        return f"{self.describe} refused: {self.message}" if self.refused else self.message


@record(frozen=False)
class LiveSessionsRead(Message):
    """The live sessions were read (`Brain.live_sessions`; None: the read failed, keep what is shown), and with
    them the agents' liveness (`Brain.read_liveness`; None: not read) — a hook changes it without any protocol
    write, so no new snapshot brings it."""

    sessions: Mapping[str, Any] | None
    liveness: Mapping[str, Liveness] | None = None
