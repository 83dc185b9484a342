"""The environment pane (SPEC 16): host, git, pm2, ports, system — as collected by `core.env`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text
from textual.widgets import Static

from brain_tui.core.clock import humanize_delta

from ..present import PLAIN_PALETTE, Palette
from ..safe import safe_text, styled

LABEL_WIDTH = 7
MAX_LISTED = 6


def _size(value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "?"
    size = float(value)
    for unit in ("B", "K", "M", "G", "T"):
        if size < 1024 or unit == "T":
            return f"{size:.0f}{unit}" if unit in ("B", "K") else f"{size:.1f}{unit}"
        size /= 1024
    return "?"


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


def render_env(data: Mapping[str, Any] | None, palette: Palette = PLAIN_PALETTE, note: str = "") -> Text:
    """The environment as Text (every value through safe_text).

    Args:
        data: `EnvState.as_dict()` (hostname, instance, git, pm2, ports, system), or None.
        palette: theme styles.
        note: a line shown when there is no data (placeholder, or why it failed).
    """
    out = _Lines(palette)
    if not data:
        out.line("env", safe_text(note or "collecting…", 200, style=palette.muted))
        return out.text
    ok, warn, err, muted = palette.ok, palette.warn, palette.error, palette.muted
    out.line("host", safe_text(data.get("hostname") or "?", 60), styled(" · ", muted),
             safe_text(data.get("instance") or "?", 80))
    git = _dict(data.get("git"))
    if git.get("error"):
        out.line("git", safe_text(git["error"], 160, style=err))
    elif git:
        parts = [safe_text(git.get("branch") or "(detached)", 40, style=palette.strong)]
        count = git.get("dirty_count") or 0
        parts += [styled(" · ", muted),
                  safe_text(f"{count} dirty" if count else "clean", 20, style=warn if count else ok)]
        if git.get("ahead") is not None or git.get("behind") is not None:
            parts += [styled(" · ", muted),
                      safe_text(f"↑{git.get('ahead') or 0} ↓{git.get('behind') or 0}", 20)]
        if git.get("remote"):
            synced = git.get("last_sync_age_s")
            when = "never fetched" if git.get("last_sync") is None else (
                f"fetched {_seconds(synced)} ago" if synced is not None else "fetched")
            parts += [styled(" · ", muted), safe_text(f"{git['remote']} {when}", 60, style=muted)]
        else:
            parts += [styled(" · ", muted), styled("no remote", muted)]
        out.line("git", *parts)
        if git.get("version"):
            out.line("", safe_text(git["version"], 120, style=muted))
    pm2 = _dict(data.get("pm2"))
    processes = _list(pm2.get("processes"))
    if pm2.get("error") and not processes:
        out.line("pm2", safe_text(pm2["error"], 160, style=muted if not pm2.get("available") else err))
    elif not processes:
        out.line("pm2", styled("no processes", muted))
    for index, proc in enumerate(processes[:MAX_LISTED]):
        proc = _dict(proc)
        status = str(proc.get("status") or "?")
        line = [safe_text(proc.get("name") or "?", 24, style=palette.strong), Text(" ", end=""),
                safe_text(status, 12, style=ok if status == "online" else err),
                safe_text((f" up {_seconds(proc.get('uptime_s'))}" if status == "online" else "")
                          + f" ↻{proc.get('restarts') or 0} {proc.get('cpu') or 0}% {_size(proc.get('memory'))}",
                          60, style=muted)]
        if proc.get("port"):
            line.append(safe_text(f" :{proc['port']}", 8))
        out.line("pm2" if index == 0 else "", *line)
    if len(processes) > MAX_LISTED:
        out.line("", styled(f"… {len(processes) - MAX_LISTED} more", muted))
    ports = _dict(data.get("ports"))
    configured = _list(ports.get("configured"))
    first = True
    for entry in configured[:MAX_LISTED]:
        entry = _dict(entry)
        up = bool(entry.get("up"))
        line = [safe_text(entry.get("name") or "?", 24), safe_text(f" :{entry.get('port') or '?'} ", 10),
                styled("● up" if up else "○ down", ok if up else err)]
        out.line("ports" if first else "", *line)
        first = False
    listening = _list(ports.get("listening"))
    if listening:
        shown = ", ".join(f"{_dict(r).get('port')} {_dict(r).get('process') or '?'}" for r in listening[:8])
        more = f" (+{len(listening) - 8})" if len(listening) > 8 else ""
        out.line("ports" if first else "", safe_text(f"listening: {shown}{more}", 200, style=muted))
    elif ports.get("error"):
        out.line("ports" if first else "", safe_text(ports["error"], 160, style=err))
    system = _dict(data.get("system"))
    if system:
        load, mem, disk = _dict(system.get("load")), _dict(system.get("memory")), _dict(system.get("disk"))
        parts: list[Text] = []
        if "1m" in load:
            parts.append(safe_text(f"load {load.get('1m')} {load.get('5m')} {load.get('15m')}", 40))
        if mem.get("percent") is not None:
            parts.append(safe_text(f"mem {mem['percent']}%", 20))
        if disk.get("percent") is not None:
            parts.append(safe_text(f"disk {disk['percent']}% ({_size(disk.get('free'))} free)", 40))
        joined = Text(end="")
        for index, part in enumerate(parts):
            if index:
                joined.append(" · ", style=muted)
            joined.append_text(part)
        out.line("system", joined if parts else styled("unavailable", muted))
    return out.text


class EnvPanel(Static):
    """Shows the environment; updated every few seconds by the app's thread worker."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Text("collecting…", end=""), id=id, markup=False)
        self.data: Mapping[str, Any] | None = None
        self.note = ""

    def show(self, data: Mapping[str, Any] | None, palette: Palette, note: str = "") -> None:
        """Render `data` (None shows `note`)."""
        self.data, self.note = data, note
        self.update(render_env(data, palette, note))
