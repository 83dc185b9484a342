"""Breath metrics of the context-broker (SPEC 17): per-sprint ratios and their alerts.

Metrics (seed formulas), where `loaded` is the number of distinct files inhaled by all agents:

- ``context_load = loaded / referenced``                 alert > 2.0
- ``stale_ratio  = loaded not referenced / loaded``      alert > 0.30
- ``breath_depth = loaded − released``                   alert when it grows 3 sprints in a row
- ``exhale_rate  = released / loaded``                   alert < 0.50

`released` counts only released files that were loaded, so a stray release can neither push the exhale rate above 1
nor the depth below 0. A division by zero gives a null metric and no alert. The exhale-side alerts (exhale rate, depth
trend) wait for the sprint's expire: before it nothing can have been released. The inhale rule "at most 2 sources per
agent" is reported as an alert, never refused.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from brain_tui.core.record import record
from brain_tui.core.records.breath_records import BreathRecord, order_records, record_from_mapping

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

MAX_SOURCES_PER_AGENT = 2
#: The trend alert fires when breath_depth grew over this many consecutive (closed) sprints.
DEPTH_TREND_SPRINTS = 3
#: Alert thresholds (SPEC 17), for display next to each metric.
THRESHOLDS: dict[str, tuple[str, float]] = {
    "context_load": (">", 2.0),
    "stale_ratio": (">", 0.30),
    "exhale_rate": ("<", 0.50),
}


#: Metrics shown as a percentage.
PERCENT_METRICS = frozenset({"stale_ratio", "exhale_rate"})


def metric_text(metric: str, value: float) -> str:
    """`value` of `metric` as shown everywhere (``1.44``, ``25%``): two decimals for a ratio, none for a percentage,
    and more (up to three more) when rounding would land it on the other side of its threshold or onto it, so that a
    stale ratio of 30.4 % that alerts reads ``30.4%``, never ``30%``."""
    percent = metric in PERCENT_METRICS
    scaled = value * 100 if percent else value
    digits = 0 if percent else 2
    limit = THRESHOLDS.get(metric)
    if limit is not None and math.isfinite(scaled):
        # rounded to 9 places: 0.3 * 100 is 30.000000000000004, and 3/10 must read as exactly on the line
        line = round(limit[1] * 100 if percent else limit[1], 9)
        exact = round(scaled, 9)
        side = (exact > line) - (exact < line)
        for extra in range(4):
            shown = round(float(f"{scaled:.{digits + extra}f}"), 9)
            if (shown > line) - (shown < line) == side:
                digits += extra
                break
        else:
            digits += 3
    return f"{scaled:.{digits}f}%" if percent else f"{scaled:.{digits}f}"


def thresholds_text() -> str:
    """The alert thresholds in one line (shown under the metrics table)."""
    load, stale, exhale = THRESHOLDS["context_load"], THRESHOLDS["stale_ratio"], THRESHOLDS["exhale_rate"]
    return (f"thresholds: context_load {load[0]} {load[1]:.1f}, stale_ratio {stale[0]} {stale[1]:.0%}, "
            f"exhale_rate {exhale[0]} {exhale[1]:.0%}, breath_depth growing {DEPTH_TREND_SPRINTS} sprints in a row, "
            f"at most {MAX_SOURCES_PER_AGENT} sources per agent")


@record
class SprintMetrics:
    """The four breath metrics of one sprint and its alerts.

    Attributes:
        sprint: the sprint ID.
        opened_at / closed_at: as recorded (None when absent).
        loaded / referenced / released / stale / kept: counts of distinct files.
        context_load / stale_ratio / exhale_rate: ratios, None on a division by zero.
        breath_depth: loaded − released (released ∩ loaded).
        alerts: ``{"metric", "message", …}`` dicts.
    """

    sprint: str
    opened_at: datetime | None
    closed_at: datetime | None
    loaded: int
    referenced: int
    released: int
    stale: int
    kept: int
    context_load: float | None
    stale_ratio: float | None
    breath_depth: int
    exhale_rate: float | None
    alerts: tuple[dict[str, Any], ...] = ()

    @property
    def is_open(self) -> bool:
        """True before the sprint's expire."""
        return self.closed_at is None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi breath show --json` (ratios rounded to 4 places)."""

        def r(value: float | None) -> float | None:
            return None if value is None else round(value, 4)

        return {
            "sprint": self.sprint,
            "context_load": r(self.context_load),
            "stale_ratio": r(self.stale_ratio),
            "breath_depth": self.breath_depth,
            "exhale_rate": r(self.exhale_rate),
            "alerts": [dict(a) for a in self.alerts],
            "open": self.is_open,
            "opened_at": self.opened_at.isoformat() if self.opened_at else None,
            "closed_at": self.closed_at.isoformat() if self.closed_at else None,
            "loaded": self.loaded,
            "referenced": self.referenced,
            "released": self.released,
            "stale": self.stale,
            "kept": self.kept,
        }


def inhale_alerts(inhale_map: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
    """Alerts of the inhale rule: at most 2 sources per agent."""
    alerts = []
    for agent, files in inhale_map.items():
        count = len(dict.fromkeys(files))
        if count > MAX_SOURCES_PER_AGENT:
            alerts.append({
                "metric": "inhale",
                "agent": agent,
                "value": count,
                "threshold": MAX_SOURCES_PER_AGENT,
                "message": f"{agent} inhaled {count} sources (rule: at most {MAX_SOURCES_PER_AGENT} per agent)",
            })
    return alerts


def _ratio(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


def metrics(records: Iterable[BreathRecord | Mapping[str, Any]]) -> list[SprintMetrics]:
    """The breath metrics of every sprint of BreathRecords (or raw record mappings with a `sprint` key), ordered by
    opened_at then ID: one SprintMetrics each, with its alerts (the depth trend is computed over the closed sprints
    in order)."""
    recs = order_records(r if isinstance(r, BreathRecord) else record_from_mapping(r) for r in records)
    out: list[SprintMetrics] = []
    closed_depths: list[int] = []
    for rec in recs:
        loaded = rec.loaded
        loaded_set = set(loaded)
        referenced_set = set(rec.referenced)
        released = len(loaded_set & set(rec.released))
        stale = len(loaded_set - referenced_set)
        n_loaded = len(loaded_set)
        context_load = _ratio(n_loaded, len(referenced_set))
        stale_ratio = _ratio(stale, n_loaded)
        exhale_rate = _ratio(released, n_loaded)
        depth = n_loaded - released
        alerts = inhale_alerts(rec.inhale)
        load_max = THRESHOLDS["context_load"][1]
        stale_max = THRESHOLDS["stale_ratio"][1]
        if context_load is not None and context_load > load_max:
            alerts.append({"metric": "context_load", "value": round(context_load, 4), "threshold": load_max,
                           "message": f"context_load {metric_text('context_load', context_load)} > {load_max:.1f}: "
                                      "over-loading"})
        if stale_ratio is not None and stale_ratio > stale_max:
            alerts.append({"metric": "stale_ratio", "value": round(stale_ratio, 4), "threshold": stale_max,
                           "message": f"stale_ratio {metric_text('stale_ratio', stale_ratio)} > {stale_max:.0%}: "
                                      "noise"})
        if rec.is_closed:
            exhale_min = THRESHOLDS["exhale_rate"][1]
            if exhale_rate is not None and exhale_rate < exhale_min:
                alerts.append({"metric": "exhale_rate", "value": round(exhale_rate, 4), "threshold": exhale_min,
                               "message": f"exhale_rate {metric_text('exhale_rate', exhale_rate)} < {exhale_min:.0%}: "
                                          "retention"})
            closed_depths.append(depth)
            window = closed_depths[-DEPTH_TREND_SPRINTS:]
            if len(window) == DEPTH_TREND_SPRINTS and all(a < b for a, b in zip(window, window[1:], strict=False)):
                trend = " → ".join(str(d) for d in window)
                alerts.append({"metric": "breath_depth", "value": depth, "threshold": DEPTH_TREND_SPRINTS,
                               "message": f"breath_depth grew {DEPTH_TREND_SPRINTS} sprints in a row "
                                          f"({trend}): accumulation"})
        out.append(SprintMetrics(
            sprint=rec.sprint, opened_at=rec.opened_at, closed_at=rec.closed_at, loaded=n_loaded,
            referenced=len(referenced_set), released=released, stale=stale, kept=len(rec.kept),
            context_load=context_load, stale_ratio=stale_ratio, breath_depth=depth, exhale_rate=exhale_rate,
            alerts=tuple(alerts),
        ))
    return out
