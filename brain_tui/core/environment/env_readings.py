"""Typed views of one environment reading (SPEC 16): git, pm2, ports and system, field by field.

`EnvState` keeps each source as the mapping `bsi env --json` prints (a failing source is ``{"error": ...}``, a key may
be missing); the cockpit reads these frozen views instead, so a misspelt key is a type error rather than a silent
``None``. Each ``of`` takes whatever mapping a source gave and never raises: a value of the wrong type reads as
missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from brain_tui.core.record import record


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _rows(value: Any) -> list[Mapping[str, Any]]:
    if not isinstance(value, (list, tuple)):
        return []
    return [row for row in value if isinstance(row, Mapping)]


def _text(value: Any) -> str | None:
    """A string value; a number or other scalar as its text; None when missing or a container."""
    if value is None or isinstance(value, (Mapping, list, tuple, set)):
        return None
    return value if isinstance(value, str) else str(value)


def number(value: Any) -> float | None:
    """An int or float value as it is; None for anything else (a bool included)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


@record
class GitReading:
    """The brain's git work tree: branch, dirty paths, ahead/behind, remote and last fetch."""

    error: str | None = None
    version: str | None = None
    branch: str | None = None
    dirty: tuple[str, ...] = ()
    dirty_count: int = 0
    upstream: str | None = None
    ahead: int | None = None
    behind: int | None = None
    remote: str | None = None
    remote_url: str | None = None
    last_sync: str | None = None
    last_sync_age_s: float | None = None
    #: The operation git is in the middle of (rebase, merge, cherry-pick, revert, detached, ref-lock; broken: git cannot
    #: run; unborn: HEAD's branch has no commit while the repository holds others), None when idle.
    operation: str | None = None
    #: How a person ends it (`git rebase --continue` or `--abort`…).
    operation_end: str | None = None
    #: False for an empty reading (git not read, or not a git work tree).
    known: bool = False

    @classmethod
    def of(cls, data: Any) -> GitReading:
        """The view of `EnvState.git`."""
        d = _map(data)
        return cls(error=_text(d.get("error")), version=_text(d.get("version")), branch=_text(d.get("branch")),
                   dirty=tuple(str(p) for p in d.get("dirty") or () if isinstance(p, str)),
                   dirty_count=_count(d.get("dirty_count")) or 0, upstream=_text(d.get("upstream")),
                   ahead=_count(d.get("ahead")), behind=_count(d.get("behind")), remote=_text(d.get("remote")),
                   remote_url=_text(d.get("remote_url")), last_sync=_text(d.get("last_sync")),
                   last_sync_age_s=number(d.get("last_sync_age_s")), operation=_text(d.get("operation")),
                   operation_end=_text(d.get("operation_end")), known=bool(d))

    @property
    def operation_said(self) -> str | None:
        """The operation git is in the middle of, what it means for bsi and how it ends, in one line (`bsi env`'s
        text and the cockpit's pane); None when git is idle."""
        if not self.operation:
            return None
        state = {"detached": "HEAD is detached", "ref-lock": "a lock file holds the branch's ref or HEAD",
                 "broken": "git cannot run in this repository",
                 "unborn": "HEAD's branch has no commit while the repository holds others"}.get(
                     self.operation, f"a {self.operation} is in progress")
        until = "it is fixed" if self.operation in ("broken", "unborn") else "it ends"
        end = f" ({self.operation_end})" if self.operation_end else ""
        return f"{state}: bsi writes refuse until {until}{end}; a pause still goes on"


@record
class Pm2Process:
    """One pm2 process: name, status, uptime, restarts, cpu %, memory bytes and port."""

    name: str = "?"
    pid: int | None = None
    status: str = "?"
    uptime_s: float | None = None
    restarts: float = 0
    cpu: float = 0
    memory: float | None = None
    port: int | None = None

    @classmethod
    def of(cls, data: Any) -> Pm2Process:
        """The view of one row of `EnvState.pm2["processes"]`."""
        d = _map(data)
        return cls(name=_text(d.get("name")) or "?", pid=_count(d.get("pid")), status=_text(d.get("status")) or "?",
                   uptime_s=number(d.get("uptime_s")), restarts=number(d.get("restarts")) or 0,
                   cpu=number(d.get("cpu")) or 0, memory=number(d.get("memory")), port=_count(d.get("port")))


@record
class Pm2Reading:
    """pm2: whether it runs here, why it could not be read, and its processes."""

    available: bool = False
    error: str | None = None
    processes: tuple[Pm2Process, ...] = ()

    @classmethod
    def of(cls, data: Any) -> Pm2Reading:
        """The view of `EnvState.pm2`."""
        d = _map(data)
        return cls(available=bool(d.get("available")), error=_text(d.get("error")),
                   processes=tuple(Pm2Process.of(row) for row in _rows(d.get("processes"))))


@record
class ConfiguredPort:
    """A port the brain expects (brain-compose.yml or a BRAIN_*_PORT variable) and whether it answers."""

    name: str = "?"
    port: int | None = None
    up: bool = False
    source: str | None = None
    error: str | None = None

    @classmethod
    def of(cls, data: Any) -> ConfiguredPort:
        """The view of one row of `EnvState.ports["configured"]`."""
        d = _map(data)
        return cls(name=_text(d.get("name")) or "?", port=_count(d.get("port")), up=bool(d.get("up")),
                   source=_text(d.get("source")), error=_text(d.get("error")))


@record
class ListeningPort:
    """A TCP port some process listens on."""

    port: int | None = None
    address: str | None = None
    pid: int | None = None
    process: str | None = None

    @classmethod
    def of(cls, data: Any) -> ListeningPort:
        """The view of one row of `EnvState.ports["listening"]`."""
        d = _map(data)
        return cls(port=_count(d.get("port")), address=_text(d.get("address")), pid=_count(d.get("pid")),
                   process=_text(d.get("process")))


@record
class PortsReading:
    """Configured ports and listening sockets; `note` says when the list is partial."""

    configured: tuple[ConfiguredPort, ...] = ()
    listening: tuple[ListeningPort, ...] = ()
    error: str | None = None
    note: str | None = None

    @classmethod
    def of(cls, data: Any) -> PortsReading:
        """The view of `EnvState.ports`."""
        d = _map(data)
        return cls(configured=tuple(ConfiguredPort.of(row) for row in _rows(d.get("configured"))),
                   listening=tuple(ListeningPort.of(row) for row in _rows(d.get("listening"))),
                   error=_text(d.get("error")), note=_text(d.get("note")))


@record
class LoadReading:
    """The 1, 5 and 15 minute load averages (None when not read)."""

    one: float | None = None
    five: float | None = None
    fifteen: float | None = None
    cpus: int | None = None
    error: str | None = None

    @classmethod
    def of(cls, data: Any) -> LoadReading:
        """The view of `EnvState.system["load"]`."""
        d = _map(data)
        return cls(one=number(d.get("1m")), five=number(d.get("5m")), fifteen=number(d.get("15m")),
                   cpus=_count(d.get("cpus")), error=_text(d.get("error")))


@record
class UsageReading:
    """Memory or disk use: percent, bytes used, free and total (None when not read)."""

    percent: float | None = None
    used: float | None = None
    free: float | None = None
    total: float | None = None
    error: str | None = None

    @classmethod
    def of(cls, data: Any) -> UsageReading:
        """The view of `EnvState.system["memory"]` or `["disk"]`."""
        d = _map(data)
        return cls(percent=number(d.get("percent")), used=number(d.get("used")), free=number(d.get("free")),
                   total=number(d.get("total")), error=_text(d.get("error")))


@record
class SystemReading:
    """Load, memory and disk of the brain's machine; `error` when none could be read."""

    load: LoadReading = LoadReading()
    memory: UsageReading = UsageReading()
    disk: UsageReading = UsageReading()
    error: str | None = None
    #: False for an empty reading (the system was not read).
    known: bool = False

    @classmethod
    def of(cls, data: Any) -> SystemReading:
        """The view of `EnvState.system`."""
        d = _map(data)
        return cls(load=LoadReading.of(d.get("load")), memory=UsageReading.of(d.get("memory")),
                   disk=UsageReading.of(d.get("disk")), error=_text(d.get("error")), known=bool(d))

