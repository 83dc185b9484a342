"""The breath pane (SPEC 17): each metric over the last sprints, with its threshold and the alerts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text
from textual.widgets import Static

from ..present import PLAIN_PALETTE, Palette
from ..safe import safe_text

#: How many sprints are shown (most recent last).
SHOWN_SPRINTS = 5
MAX_ALERTS = 3
SPRINT_WIDTH = 12
CELL = 7
#: (metric key, header, limit shown under the header).
COLUMNS = (("context_load", "load", "≤2.0"), ("stale_ratio", "stale", "≤30%"),
           ("breath_depth", "depth", "↗3×"), ("exhale_rate", "exhale", "≥50%"))


def _fmt(key: str, value: Any) -> str:
    if value is None:
        return "—"
    if key in ("stale_ratio", "exhale_rate") and isinstance(value, (int, float)):
        return f"{value:.0%}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _short_sprint(sprint: str) -> str:
    parts = sprint.split("-", 3)
    return parts[3] if len(parts) == 4 and parts[1].isdigit() else sprint.removeprefix("sprint-")


def render_breath(sprints: Sequence[Mapping[str, Any]] | None, palette: Palette = PLAIN_PALETTE,
                  note: str = "") -> Text:
    """The breath metrics of the last sprints as a small table, with the limits and the alerts.

    Args:
        sprints: `SprintMetrics.as_dict()` items, oldest first; None when not loaded.
        palette: theme styles.
        note: shown when there is nothing to show.
    """
    out = Text(end="")
    if not sprints:
        out.append_text(safe_text(note or "no breath records (breath/)", 200, style=palette.muted))
        return out
    recent = list(sprints)[-SHOWN_SPRINTS:]
    out.append("sprint".ljust(SPRINT_WIDTH), style=palette.strong)
    for _, label, _ in COLUMNS:
        out.append(label.rjust(CELL), style=palette.strong)
    out.append("\n")
    out.append("  limit".ljust(SPRINT_WIDTH), style=palette.muted)
    for _, _, limit in COLUMNS:
        out.append(limit.rjust(CELL), style=palette.muted)
    alerts: list[tuple[str, Any]] = []
    for sprint in recent:
        name = str(sprint.get("sprint") or "?")
        flagged = {str(a.get("metric")) for a in sprint.get("alerts") or [] if isinstance(a, Mapping)}
        out.append("\n")
        label = safe_text(_short_sprint(name) + (" •" if sprint.get("open") else ""), SPRINT_WIDTH - 1)
        out.append_text(label)
        out.append(" " * (SPRINT_WIDTH - label.cell_len))
        for key, _, _ in COLUMNS:
            cell = _fmt(key, sprint.get(key)) + ("!" if key in flagged else " ")
            out.append_text(safe_text(cell.rjust(CELL), CELL, style=palette.error if key in flagged else None))
        for alert in sprint.get("alerts") or []:
            if isinstance(alert, Mapping):
                alerts.append((name, alert.get("message") or alert.get("metric")))
    for name, message in list(reversed(alerts))[:MAX_ALERTS]:
        out.append("\n")
        out.append("⚠ ", style=palette.warn)
        out.append_text(safe_text(f"{_short_sprint(name)}: {message}", 160, style=palette.warn))
    if len(alerts) > MAX_ALERTS:
        out.append(f"\n… {len(alerts) - MAX_ALERTS} more alert(s)", style=palette.muted)
    if not alerts:
        out.append("\n")
        out.append("no alerts", style=palette.ok)
    return out


class BreathPanel(Static):
    """Shows the breath metrics; reloaded when `breath/` changes."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Text("loading…", end=""), id=id, markup=False)
        self.sprints: Sequence[Mapping[str, Any]] | None = None
        self.note = ""

    def show(self, sprints: Sequence[Mapping[str, Any]] | None, palette: Palette, note: str = "") -> None:
        """Render `sprints` (None shows `note`)."""
        self.sprints, self.note = sprints, note
        self.update(render_breath(sprints, palette, note))
