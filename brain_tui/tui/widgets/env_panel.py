"""The environment pane (SPEC 16): host, git, pm2, ports, system — as collected by `core.env`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.widgets import Static

from brain_tui.core.clock import humanize_delta, try_parse_timestamp

from ..present import ago
from ..safe import safe_text, styled
from ..styles import ACCENT, ERROR, MUTED, OK, STRONG, WARN

if TYPE_CHECKING:
    from brain_tui.core.environment.env import EnvState
    from brain_tui.core.environment.env_readings import GitReading, Pm2Reading, PortsReading, SystemReading
    from brain_tui.core.sync.remote import SyncStatus

LABEL_WIDTH = 7
MAX_LISTED = 6
MAX_LISTENING = 8
MAX_DIRTY = 3
#: Words of a placeholder note (not a failure): shown dim rather than red.
QUIET_NOTES = ("collecting", "live readings off", "not available")


def _size(value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "?"
    size = float(value)
    for unit in ("B", "K", "M", "G", "T"):
        if size < 1024 or unit == "T":
            return f"{size:.0f}{unit}" if unit in ("B", "K") else f"{size:.1f}{unit}"
        size /= 1024
    return "?"


def _percent(value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "?"
    return f"{value:.0f}%"


def _seconds(value: Any) -> str:
    from datetime import timedelta

    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "—"
    return humanize_delta(timedelta(seconds=float(value)))


class _Lines:
    """Builds the panel's Content line by line."""

    def __init__(self) -> None:
        self.text = Content()
        self.count = 0

    def line(self, label: str, *parts: Content) -> None:
        if self.count:
            self.text += "\n"
        self.count += 1
        self.text += Content.styled(label.ljust(LABEL_WIDTH), MUTED)
        for part in parts:
            self.text += part


def _joined(parts: Sequence[Content], sep: Content) -> Content:
    out = Content()
    for index, part in enumerate(parts):
        if index:
            out += sep
        out += part
    return out


def sync_line(sync: SyncStatus | None, error: str, now: datetime | None, tz: tzinfo | None) -> Content | None:
    """The `sync` line: mode (and fetch interval), last sync, pending local changes, the last error; None when
    there is nothing to say (no remote, nothing pending, no error)."""
    if sync is None:
        return None
    zone = tz or UTC
    last = try_parse_timestamp(sync.last_sync, zone)
    pending = try_parse_timestamp(sync.pending_since, zone)
    if not sync.has_remote and pending is None and not error:
        return None
    parts: list[Content] = [safe_text(f"auto · fetch every {sync.fetch_interval_s}s"
                                   if sync.mode == "auto" else sync.mode, 40, style=STRONG)]
    if not sync.has_remote:
        parts.append(styled("no remote", ERROR))
    elif last is None:
        parts.append(styled("never synced", MUTED))
    else:
        when = f"{last.astimezone(zone):%H:%M}"
        parts.append(styled(f"last sync {when}" + (f" ({ago(last, now)})" if now else ""), MUTED))
    ahead = sync.ahead or 0
    if pending is not None or ahead:
        since = f" since {pending.astimezone(zone):%H:%M}" if pending is not None else ""
        parts.append(styled(f"{ahead} pending{since} — s pushes", WARN))
    if sync.behind:
        parts.append(styled(f"{sync.behind} behind", ACCENT))
    if error:
        parts.append(safe_text(f"✗ {error}", 160, style=ERROR))
    return _joined(parts, styled(" · ", MUTED))


def _git_lines(out: _Lines, git: GitReading) -> None:
    sep = styled(" · ", MUTED)
    if git.error:
        out.line("git", safe_text(f"✗ {git.error}", 160, style=ERROR))
        return
    if not git.known:
        return
    parts = [safe_text(git.branch or "(detached)", 40, style=STRONG)]
    count = git.dirty_count
    parts += [sep, safe_text(f"{count} dirty" if count else "clean", 20, style=WARN if count else OK)]
    if git.ahead is not None or git.behind is not None:
        parts += [sep, safe_text(f"↑{git.ahead or 0} ↓{git.behind or 0}", 20)]
    if git.remote:
        synced = git.last_sync_age_s
        when = "never fetched" if git.last_sync is None else (
            f"fetched {_seconds(synced)} ago" if synced is not None else "fetched")
        parts += [sep, safe_text(f"{git.remote} {when}", 60, style=MUTED)]
    else:
        parts += [sep, styled("no remote", MUTED)]
    out.line("git", *parts)
    if git.version:
        out.line("", safe_text(git.version, 120, style=MUTED))
    if git.operation_said:
        out.line("git op", safe_text(git.operation_said, 200, style=WARN))
    if count and git.dirty:
        listed = git.dirty[:MAX_DIRTY]
        more = f" (+{count - len(listed)})" if count > len(listed) else ""
        out.line("dirty", safe_text(", ".join(listed) + more, 200, style=WARN))


def _pm2_lines(out: _Lines, pm2: Pm2Reading) -> None:
    processes = pm2.processes
    if pm2.error and not processes:
        failed = pm2.available
        out.line("pm2", safe_text(("✗ " if failed else "") + pm2.error, 160, style=ERROR if failed else MUTED))
    elif not processes:
        out.line("pm2", styled("no processes", MUTED))
    for index, proc in enumerate(processes[:MAX_LISTED]):
        online = proc.status == "online"
        line_parts = [safe_text(proc.name, 24, style=STRONG), Content(" "),
                      safe_text(proc.status, 12, style=OK if online else ERROR),
                      safe_text((f" up {_seconds(proc.uptime_s)}" if online else "")
                                + f" ↻{proc.restarts} {proc.cpu:.1f}".rstrip("0").rstrip(".")
                                + f"% {_size(proc.memory)}",
                                60, style=MUTED)]
        if proc.port:
            line_parts.append(safe_text(f" :{proc.port}", 8))
        out.line("pm2" if index == 0 else "", *line_parts)
    if len(processes) > MAX_LISTED:
        out.line("", styled(f"… {len(processes) - MAX_LISTED} more", MUTED))


def _ports_lines(out: _Lines, ports: PortsReading) -> None:
    for index, entry in enumerate(ports.configured[:MAX_LISTED]):
        if entry.error:
            state = safe_text(f"✗ {entry.error}", 80, style=ERROR)
        else:
            state = styled("● up" if entry.up else "○ down", OK if entry.up else ERROR)
        out.line("ports" if index == 0 else "", safe_text(entry.name, 24),
                 safe_text(f" :{entry.port or '?'} ", 10), state)
    if len(ports.configured) > MAX_LISTED:
        out.line("", styled(f"… {len(ports.configured) - MAX_LISTED} more", MUTED))
    listening = ports.listening
    if ports.error:
        out.line("listen", safe_text(f"✗ {ports.error}", 160, style=ERROR))
    elif listening:
        shown = " · ".join(f"{row.port} {row.process or '?'}" for row in listening[:MAX_LISTENING])
        more = f" (+{len(listening) - MAX_LISTENING})" if len(listening) > MAX_LISTENING else ""
        out.line("listen", safe_text(shown + more, 400))
    else:
        out.line("listen", styled("no listening TCP ports", MUTED))
    if ports.note:
        out.line("", safe_text(ports.note, 160, style=MUTED))


def _system_line(out: _Lines, system: SystemReading) -> None:
    if system.error:
        out.line("system", safe_text(f"✗ {system.error}", 160, style=ERROR))
        return
    if not system.known:
        return
    load, mem, disk = system.load, system.memory, system.disk
    parts: list[Content] = []
    if load.error:
        parts.append(safe_text(f"load ✗ {load.error}", 80, style=ERROR))
    elif load.one is not None:
        parts.append(safe_text(f"load {load.one} {load.five} {load.fifteen}", 40))
    if mem.error:
        parts.append(safe_text(f"mem ✗ {mem.error}", 80, style=ERROR))
    elif mem.percent is not None:
        parts.append(safe_text(f"mem {_percent(mem.percent)}", 20))
    if disk.error:
        parts.append(safe_text(f"disk ✗ {disk.error}", 80, style=ERROR))
    elif disk.percent is not None:
        parts.append(safe_text(f"disk {_percent(disk.percent)} ({_size(disk.free)} free)", 40))
    out.line("system", _joined(parts, styled(" · ", MUTED)) if parts else styled("unavailable", MUTED))


def render_env(state: EnvState | None, note: str = "", *,
               sync: SyncStatus | None = None, sync_error: str = "", now: datetime | None = None,
               tz: tzinfo | None = None) -> Content:
    """The environment reading (`Brain.env`; None: the `note` says why: placeholder, or failure) and the `sync`
    line (`sync_line`) as Content, every value through safe_text."""
    out = _Lines()
    if state is None:
        calm = not note or any(word in note for word in QUIET_NOTES)
        out.line("env", safe_text(note or "collecting…", 200, style=MUTED if calm else ERROR))
        line = sync_line(sync, sync_error, now, tz)
        if line is not None:
            out.line("sync", line)
        return out.text
    out.line("host", safe_text(state.hostname or "?", 60), styled(" · ", MUTED),
             safe_text(state.instance or "?", 80))
    _git_lines(out, state.git_reading)
    line = sync_line(sync, sync_error, now, tz)
    if line is not None:
        out.line("sync", line)
    _pm2_lines(out, state.pm2_reading)
    _ports_lines(out, state.ports_reading)
    _system_line(out, state.system_reading)
    return out.text


class EnvPanel(Static):
    """Shows the environment; updated every few seconds by the app's thread worker."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Content("collecting…"), id=id, markup=False)
        self.state: EnvState | None = None
        self.note = ""

    def show(self, state: EnvState | None, note: str = "", *,
             sync: SyncStatus | None = None, sync_error: str = "", now: datetime | None = None,
             tz: tzinfo | None = None) -> None:
        """Render `state` (None shows `note`) and the sync line."""
        self.state, self.note = state, note
        self.update(render_env(state, note, sync=sync, sync_error=sync_error, now=now, tz=tz))
