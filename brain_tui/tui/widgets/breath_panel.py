"""The breath pane (SPEC 17): each metric over the last sprints as a bar chart with its threshold line, and the alerts.

Each metric is a two-row bar chart, one bar per sprint (oldest left). For the
three metrics with a threshold the lower row spans 0 → threshold and the upper
row threshold → twice the threshold, so the threshold is the line between the
two rows, drawn as ``▁`` wherever a bar stays below it::

    sprint wiki be5  be6  be6b be7•   last
    load   ▁▁▁▁▁▁▁▁▁▁▂▂▂▁▁▁▁▁▁▁▁▁▁▁▁
    >2.0   ▄▄▄  ▄▄▄  ███  ▅▅▅  ▅▅▅    1.33

A bar is red when the core flagged that metric for that sprint (the rules stay in `core.breath_metrics`; this module
only draws), green otherwise, and dim while the sprint is still open for the exhale-side metrics (nothing can be
released before the sprint's expire). `breath_depth` has no fixed threshold (its alert is "grew 3 sprints in a row"), so
it is scaled to its largest value. A row below shows the inhale rule (at most 2 sources per agent) per sprint, then the
alerts, newest first. Sprint names come from the brain, so they go through `safe_text`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from textual.content import Content
from textual.events import Resize
from textual.widgets import Static

from brain_tui.core.environment import breath_metrics
from brain_tui.core.environment.breath_metrics import SprintMetrics

from ..safe import safe_text
from ..styles import ERROR, MUTED, OK, STRONG, WARN

#: Bar heights in eighths of a cell.
BLOCKS = " ▁▂▃▄▅▆▇█"
#: The threshold line (the bottom eighth of the upper row is exactly the threshold).
LINE = "▁"
#: Width of the label column, of one bar, of the gap after it, and of the value column.
LABEL = 7
BAR = 3
GAP = 2
VALUE = 6
#: Sprints shown at most (the most recent ones), and at least when the pane is narrow.
MAX_SPRINTS = 8
MIN_SPRINTS = 3
#: Width assumed before the widget is laid out.
DEFAULT_WIDTH = 44
#: (metric key, label, alert direction). Thresholds come from `core.breath_metrics.THRESHOLDS`.
METRICS: tuple[tuple[str, str, str], ...] = (
    ("context_load", "load", ">"),
    ("stale_ratio", "stale", ">"),
    ("breath_depth", "depth", "↗"),
    ("exhale_rate", "exhale", "<"),
)
#: Metrics that are only final once the sprint is expired.
EXHALE_SIDE = frozenset({"breath_depth", "exhale_rate"})
PERCENT = breath_metrics.PERCENT_METRICS


def _limits() -> tuple[dict[str, tuple[str, float]], int, int]:
    """(thresholds, sources allowed per agent, depth trend length): the core's, never a copy."""
    return dict(breath_metrics.THRESHOLDS), breath_metrics.MAX_SOURCES_PER_AGENT, breath_metrics.DEPTH_TREND_SPRINTS


def fmt_value(key: str, value: Any) -> str:
    """A metric value for display: ``1.33``, ``25%``, ``4``; ``—`` when null."""
    if value is None or isinstance(value, bool):
        return "—"
    if isinstance(value, float) or (key in PERCENT and isinstance(value, int)):
        return breath_metrics.metric_text(key, value)
    return str(value)


def fmt_limit(key: str, direction: str, threshold: float | None, trend: int) -> str:
    """The alert condition shown under a metric's name: ``>2.0``, ``>30%``, ``↗3×``, ``<50%``."""
    if threshold is None:
        return f"↗{trend}×"
    return f"{direction}{threshold:.0%}" if key in PERCENT else f"{direction}{threshold:.1f}"


def short_sprint(sprint: str) -> str:
    """``sprint-20261129-1000-be6`` → ``be6`` (any other ID loses only its ``sprint-`` prefix)."""
    parts = sprint.split("-", 3)
    return parts[3] if len(parts) == 4 and parts[1].isdigit() else sprint.removeprefix("sprint-")


def bar_cells(value: Any, threshold: float | None, scale: float) -> tuple[int, int] | None:
    """(lower-row eighths, upper-row eighths) of one bar for `value`, or None for a null value; `threshold` is the
    line between the rows (None: both rows share `scale`)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    value = max(0.0, float(value))
    unit = threshold if threshold else max(scale, 1e-9) / 2
    lower = min(value, unit) / unit * 8
    upper = min(max(value - unit, 0.0), unit) / unit * 8
    low, up = round(lower), round(upper)
    if value > 0 and low == 0:
        low = 1  # a small non-zero value stays visible
    if value > unit and up == 0:
        up = 1  # past the line, if only just
    return low, up


def _flagged(sprint: SprintMetrics) -> dict[str, Mapping[str, Any]]:
    """metric → the core's alert for it in this sprint."""
    out: dict[str, Mapping[str, Any]] = {}
    for alert in sprint.alerts:
        if isinstance(alert, Mapping):
            metric = str(alert.get("metric"))
            if metric == "inhale" and metric in out:
                worst = out[metric].get("value") or 0
                if not isinstance(alert.get("value"), int) or alert["value"] <= worst:
                    continue
            out[metric] = alert
    return out


def shown_count(width: int, total: int) -> int:
    """How many of the last sprints fit in `width` cells."""
    room = (width - LABEL - VALUE) // (BAR + GAP)
    return max(1, min(total, MAX_SPRINTS, max(MIN_SPRINTS, room)))


def render_breath(sprints: Sequence[SprintMetrics] | None,
                  note: str = "", width: int = DEFAULT_WIDTH) -> Content:
    """The breath metrics of the last `sprints` (oldest first; None: not loaded) as bar charts with threshold
    lines, then the alerts; `note` is shown when there is nothing to show, or below the charts; `width` (cells)
    decides how many sprints are shown."""
    out = Content()
    if not sprints:
        out += safe_text(note or "no breath records (breath/)", 200, style=MUTED)
        return out
    thresholds, max_sources, trend = _limits()
    recent = list(sprints)[-shown_count(width, len(sprints)):]
    flags = [_flagged(s) for s in recent]
    line_style = WARN
    # header: the sprint names under which the bars stand
    out += Content.styled("sprint".ljust(LABEL), MUTED)
    for sprint in recent:
        name = short_sprint(sprint.sprint or "?") + ("•" if sprint.is_open else "")
        shown = safe_text(name, BAR + GAP - 1, style=STRONG)
        out += shown + " " * (BAR + GAP - shown.cell_length)
    out += Content.styled("last".rjust(VALUE), MUTED)
    for key, label, direction in METRICS:
        limit = thresholds.get(key)
        threshold = limit[1] if limit else None
        values = [getattr(s, key) for s in recent]
        numbers = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        scale = max(numbers, default=0.0) or 1.0
        upper = Content()
        lower = Content()
        upper += Content.styled(label.ljust(LABEL), STRONG)
        lower += Content.styled(fmt_limit(key, direction, threshold, trend).ljust(LABEL), MUTED)
        for sprint, flagged, value in zip(recent, flags, values, strict=True):
            cells = bar_cells(value, threshold, scale)
            if key in flagged:
                style: str = ERROR
            elif sprint.is_open and key in EXHALE_SIDE:
                style = MUTED
            else:
                style = OK
            if cells is None:
                upper += Content.styled(LINE * BAR if threshold else " " * BAR, line_style)
                lower += Content.styled("·".center(BAR), MUTED)
            else:
                low, up = cells
                if up:
                    upper += Content.styled(BLOCKS[up] * BAR, style)
                elif threshold:
                    upper += Content.styled(LINE * BAR, line_style)
                else:
                    upper += " " * BAR
                lower += Content.styled(BLOCKS[low] * BAR, style)
            upper += Content.styled(LINE * GAP if threshold else " " * GAP, line_style)
            lower += " " * GAP
        last_flagged = key in flags[-1]
        provisional = recent[-1].is_open and key in EXHALE_SIDE
        lower = lower.append_text(fmt_value(key, values[-1]).rjust(VALUE),
                                  style=ERROR if last_flagged else MUTED if provisional else STRONG)
        out += "\n"
        out += upper + "\n" + lower
    # the inhale rule: at most N sources per agent
    out += "\n"
    out += Content.styled("inhale".ljust(LABEL), STRONG)
    for flagged in flags:
        alert = flagged.get("inhale")
        if alert is not None:
            cell = f"{alert.get('value') or '?'}!"
            out += Content.styled(cell.ljust(BAR + GAP)[: BAR + GAP], ERROR)
        else:
            out += Content.styled("✓".ljust(BAR + GAP), OK)
    out += Content.styled(f"≤{max_sources}/ag".rjust(VALUE), MUTED)
    # the alerts, newest sprint first
    alerts: list[tuple[str, str]] = []
    for sprint in reversed(recent):
        for alert in sprint.alerts:
            if isinstance(alert, Mapping):
                alerts.append((short_sprint(sprint.sprint or "?"),
                               str(alert.get("message") or alert.get("metric") or "?")))
    if not alerts:
        out += "\n"
        out += Content.styled("✓ no alerts", OK)
    for name, message in alerts:
        out += "\n"
        out += Content.styled("⚠ ", WARN) + safe_text(name, 12, style=STRONG) + " "
        out += safe_text(message, 200, style=WARN)
    if note:
        out += "\n"
        out += safe_text(note, 200, style=MUTED)
    return out


def alert_count(sprints: Sequence[SprintMetrics] | None, width: int = DEFAULT_WIDTH) -> int:
    """How many alerts the pane lists (for its title)."""
    if not sprints:
        return 0
    recent = list(sprints)[-shown_count(width, len(sprints)):]
    return sum(1 for s in recent for a in s.alerts if isinstance(a, Mapping))


class BreathPanel(Static):
    """Shows the breath charts; reloaded when `breath/` changes, redrawn when its width changes."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Content("loading…"), id=id, markup=False)
        self.sprints: Sequence[SprintMetrics] | None = None
        self.note = ""
        self._drawn_width = 0

    @property
    def chart_width(self) -> int:
        """The cells the charts may use."""
        return self.size.width or DEFAULT_WIDTH

    def show(self, sprints: Sequence[SprintMetrics] | None, note: str = "") -> None:
        """Render `sprints` (None shows `note`)."""
        self.sprints, self.note = sprints, note
        self._draw()

    def _draw(self) -> None:
        self._drawn_width = self.chart_width
        self.update(render_breath(self.sprints, self.note, self._drawn_width))

    def on_resize(self, event: Resize) -> None:
        """More or fewer sprints fit: draw again."""
        if event.size.width and event.size.width != self._drawn_width:
            self._draw()
