"""The environment pane (SPEC 16): host, git, pm2, ports, system — as collected by `core.env`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, tzinfo
from typing import Any

from rich.text import Text
from textual.widgets import Static

from brain_tui.core.clock import humanize_delta, try_parse_timestamp

from ..present import PLAIN_PALETTE, Palette, age
from ..safe import safe_text, styled

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
    """Builds the panel's Text line by line."""

    def __init__(self, palette: Palette) -> None:
        self.palette = palette
        self.text = Text(end="")
        self.count = 0

    def line(self, label: str, *parts: Text) -> None:
        if self.count:
            self.text.append("\n")
        self.count += 1
        self.text.append(label.ljust(LABEL_WIDTH), style=self.palette.muted)
        for part in parts:
            self.text.append_text(part)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, (list, tuple)) else []


def _joined(parts: Sequence[Text], sep: Text) -> Text:
    out = Text(end="")
    for index, part in enumerate(parts):
        if index:
            out.append_text(sep)
        out.append_text(part)
    return out


def sync_line(sync: Mapping[str, Any] | None, error: str, now: datetime | None, tz: tzinfo | None,
              palette: Palette) -> Text | None:
    """The `sync` line: mode (and fetch interval), last sync, pending local changes, the last error.

    Returns:
        None when there is nothing to say (no remote, nothing pending, no error).
    """
    if not isinstance(sync, Mapping):
        return None
    zone = tz or UTC
    last = try_parse_timestamp(sync.get("last_sync"), zone)
    pending = try_parse_timestamp(sync.get("pending_since"), zone)
    if not sync.get("has_remote") and pending is None and not error:
        return None
    muted = palette.muted
    mode = str(sync.get("mode") or "manual")
    parts: list[Text] = [safe_text(f"auto · fetch every {sync.get('fetch_interval_s') or 30}s"
                                   if mode == "auto" else mode, 40, style=palette.strong)]
    if not sync.get("has_remote"):
        parts.append(styled("no remote", palette.error))
    elif last is None:
        parts.append(styled("never synced", muted))
    else:
        when = f"{last.astimezone(zone):%H:%M}"
        parts.append(styled(f"last sync {when}" + (f" ({age(last, now)} ago)" if now else ""), muted))
    ahead = sync.get("ahead") or 0
    if pending is not None or ahead:
        since = f" since {pending.astimezone(zone):%H:%M}" if pending is not None else ""
        parts.append(styled(f"{ahead} pending{since} — s pushes", palette.warn))
    if sync.get("behind"):
        parts.append(styled(f"{sync['behind']} behind", palette.accent))
    if error:
        parts.append(safe_text(f"✗ {error}", 160, style=palette.error))
    return _joined(parts, styled(" · ", muted))


def render_env(data: Mapping[str, Any] | None, palette: Palette = PLAIN_PALETTE, note: str = "", *,
               sync: Mapping[str, Any] | None = None, sync_error: str = "", now: datetime | None = None,
               tz: tzinfo | None = None) -> Text:
    """The environment as Text (every value through safe_text).

    Args:
        data: `EnvState.as_dict()` (hostname, instance, git, pm2, ports, system), or None.
        palette: theme styles.
        note: a line shown when there is no data (placeholder, or why it failed).
        sync: `brain.remote.status().as_dict()` for the `sync` line (mode, last sync, pending).
        sync_error: the last sync or fetch error.
        now: the brain's time (ages).
        tz: the brain's display zone.
    """
    out = _Lines(palette)
    ok, warn, err, muted = palette.ok, palette.warn, palette.error, palette.muted
    sep = styled(" · ", muted)
    if not data:
        calm = not note or any(word in note for word in QUIET_NOTES)
        out.line("env", safe_text(note or "collecting…", 200, style=muted if calm else err))
        line = sync_line(sync, sync_error, now, tz, palette)
        if line is not None:
            out.line("sync", line)
        return out.text
    out.line("host", safe_text(data.get("hostname") or "?", 60), sep, safe_text(data.get("instance") or "?", 80))
    git = _dict(data.get("git"))
    if git.get("error"):
        out.line("git", safe_text(f"✗ {git['error']}", 160, style=err))
    elif git:
        parts = [safe_text(git.get("branch") or "(detached)", 40, style=palette.strong)]
        count = git.get("dirty_count") or 0
        parts += [sep, safe_text(f"{count} dirty" if count else "clean", 20, style=warn if count else ok)]
        if git.get("ahead") is not None or git.get("behind") is not None:
            parts += [sep, safe_text(f"↑{git.get('ahead') or 0} ↓{git.get('behind') or 0}", 20)]
        if git.get("remote"):
            synced = git.get("last_sync_age_s")
            when = "never fetched" if git.get("last_sync") is None else (
                f"fetched {_seconds(synced)} ago" if synced is not None else "fetched")
            parts += [sep, safe_text(f"{git['remote']} {when}", 60, style=muted)]
        else:
            parts += [sep, styled("no remote", muted)]
        out.line("git", *parts)
        if git.get("version"):
            out.line("", safe_text(git["version"], 120, style=muted))
        dirty = [str(p) for p in _list(git.get("dirty"))]
        if count and dirty:
            shown = ", ".join(dirty[:MAX_DIRTY])
            more = f" (+{count - len(dirty[:MAX_DIRTY])})" if count > len(dirty[:MAX_DIRTY]) else ""
            out.line("dirty", safe_text(shown + more, 200, style=warn))
    line = sync_line(sync, sync_error, now, tz, palette)
    if line is not None:
        out.line("sync", line)
    pm2 = _dict(data.get("pm2"))
    processes = _list(pm2.get("processes"))
    if pm2.get("error") and not processes:
        failed = bool(pm2.get("available"))
        out.line("pm2", safe_text(("✗ " if failed else "") + str(pm2["error"]), 160, style=err if failed else muted))
    elif not processes:
        out.line("pm2", styled("no processes", muted))
    for index, proc in enumerate(processes[:MAX_LISTED]):
        proc = _dict(proc)
        status = str(proc.get("status") or "?")
        line_parts = [safe_text(proc.get("name") or "?", 24, style=palette.strong), Text(" ", end=""),
                      safe_text(status, 12, style=ok if status == "online" else err),
                      safe_text((f" up {_seconds(proc.get('uptime_s'))}" if status == "online" else "")
                                + f" ↻{proc.get('restarts') or 0} {proc.get('cpu') or 0}% {_size(proc.get('memory'))}",
                                60, style=muted)]
        if proc.get("port"):
            line_parts.append(safe_text(f" :{proc['port']}", 8))
        out.line("pm2" if index == 0 else "", *line_parts)
    if len(processes) > MAX_LISTED:
        out.line("", styled(f"… {len(processes) - MAX_LISTED} more", muted))
    ports = _dict(data.get("ports"))
    configured = _list(ports.get("configured"))
    first = True
    for entry in configured[:MAX_LISTED]:
        entry = _dict(entry)
        up = bool(entry.get("up"))
        if entry.get("error"):
            state = safe_text(f"✗ {entry['error']}", 80, style=err)
        else:
            state = styled("● up" if up else "○ down", ok if up else err)
        out.line("ports" if first else "", safe_text(entry.get("name") or "?", 24),
                 safe_text(f" :{entry.get('port') or '?'} ", 10), state)
        first = False
    if len(configured) > MAX_LISTED:
        out.line("", styled(f"… {len(configured) - MAX_LISTED} more", muted))
    listening = _list(ports.get("listening"))
    if ports.get("error"):
        out.line("listen", safe_text(f"✗ {ports['error']}", 160, style=err))
    elif listening:
        shown = " · ".join(f"{_dict(r).get('port')} {_dict(r).get('process') or '?'}"
                           for r in listening[:MAX_LISTENING])
        more = f" (+{len(listening) - MAX_LISTENING})" if len(listening) > MAX_LISTENING else ""
        out.line("listen", safe_text(shown + more, 400))
    else:
        out.line("listen", styled("no listening TCP ports", muted))
    if ports.get("note"):
        out.line("", safe_text(ports["note"], 160, style=muted))
    system = _dict(data.get("system"))
    if system.get("error"):
        out.line("system", safe_text(f"✗ {system['error']}", 160, style=err))
    elif system:
        load, mem, disk = _dict(system.get("load")), _dict(system.get("memory")), _dict(system.get("disk"))
        parts: list[Text] = []
        if load.get("error"):
            parts.append(safe_text(f"load ✗ {load['error']}", 80, style=err))
        elif "1m" in load:
            parts.append(safe_text(f"load {load.get('1m')} {load.get('5m')} {load.get('15m')}", 40))
        if mem.get("error"):
            parts.append(safe_text(f"mem ✗ {mem['error']}", 80, style=err))
        elif mem.get("percent") is not None:
            parts.append(safe_text(f"mem {_percent(mem['percent'])}", 20))
        if disk.get("error"):
            parts.append(safe_text(f"disk ✗ {disk['error']}", 80, style=err))
        elif disk.get("percent") is not None:
            parts.append(safe_text(f"disk {_percent(disk['percent'])} ({_size(disk.get('free'))} free)", 40))
        out.line("system", _joined(parts, sep) if parts else styled("unavailable", muted))
    return out.text


class EnvPanel(Static):
    """Shows the environment; updated every few seconds by the app's thread worker."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Text("collecting…", end=""), id=id, markup=False)
        self.data: Mapping[str, Any] | None = None
        self.note = ""

    def show(self, data: Mapping[str, Any] | None, palette: Palette, note: str = "", *,
             sync: Mapping[str, Any] | None = None, sync_error: str = "", now: datetime | None = None,
             tz: tzinfo | None = None) -> None:
        """Render `data` (None shows `note`) and the sync line."""
        self.data, self.note = data, note
        self.update(render_env(data, palette, note, sync=sync, sync_error=sync_error, now=now, tz=tz))
