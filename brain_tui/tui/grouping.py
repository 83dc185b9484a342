"""Group the active claims by their agent's state: needs you, working, idle, ended, no agent.

`G` toggles it; the choice is kept in the cockpit's settings file (``group_claims``) like the theme. Each group
opens with a heading row (key ``group:<name>``, never a claim ID); a sort orders the rows inside each group.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from typing import Any

from textual.content import Content

from .live import LiveMap
from .styles import MUTED, OK, STRONG, WARN
from .themes import save_settings, settings_path
from .widgets.table import Row

#: The groups in order, and the agent states each holds (a launch not yet reporting counts as working).
GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("needs-you", "needs you", ("needs_input",)),
    ("working", "working", ("working", "launched")),
    ("idle", "idle", ("idle",)),
    ("ended", "ended", ("ended",)),
    ("no-agent", "no agent", ()),
)
HEADING_PREFIX = "group:"
SETTING = "group_claims"


def is_grouped(settings: MutableMapping[str, Any]) -> bool:
    """True when the active claims are grouped (the cockpit's settings, in memory: ``group_claims``)."""
    return settings.get(SETTING) is True


def toggle(settings: MutableMapping[str, Any], save: bool) -> str:
    """`G`: flip the grouping in `settings`; written to the settings file when `save`. Returns what to tell."""
    settings[SETTING] = not is_grouped(settings)
    said = "grouped by agent state" if settings[SETTING] else "in opening order"
    if save and not save_settings(settings, settings_path()):
        said += " (the settings could not be saved)"
    return f"active claims: {said}"


def is_heading(key: str | None) -> bool:
    """True for a group's heading row (no claim)."""
    return key is not None and key.startswith(HEADING_PREFIX)


def group_of(state: str | None) -> str:
    """The group of an agent state (None or unknown: ``no-agent``)."""
    for name, _label, states in GROUPS:
        if state in states:
            return name
    return "no-agent"


def grouped_rows(rows: Sequence[Row], live: LiveMap) -> list[Row]:
    """`rows` (keyed by claim ID) in their groups, each non-empty group under a heading row in the `id` column."""
    buckets: dict[str, list[Row]] = {name: [] for name, _label, _states in GROUPS}
    for row in rows:
        session = live.get(row[0])
        buckets[group_of(session.state if session is not None else None)].append(row)
    out: list[Row] = []
    for name, label, _states in GROUPS:
        members = buckets[name]
        if not members:
            continue
        style = WARN if name == "needs-you" else OK if name == "working" else MUTED
        heading = Content.styled(f"{label} · {len(members)}", f"{style} bold" if style != MUTED else STRONG)
        out.append((f"{HEADING_PREFIX}{name}", {"id": heading}))
        out.extend(members)
    return out


def sort_within_groups(rows: list[Row], sort: Callable[[list[Row]], list[Row]]) -> list[Row]:
    """Apply `sort` (rows → rows) to each group's rows, keeping each heading at its group's head."""
    if not any(is_heading(key) for key, _ in rows):
        return sort(rows)
    out: list[Row] = []
    segment: list[Row] = []
    for row in rows:
        if is_heading(row[0]):
            out.extend(sort(segment))
            segment = []
            out.append(row)
        else:
            segment.append(row)
    out.extend(sort(segment))
    return out
