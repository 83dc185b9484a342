"""The signals queue: pending first (oldest first), then delivered (newest first)."""

from __future__ import annotations

from textual.content import Content

from brain_tui.core.records.model import BrainSnapshot, Signal
from brain_tui.core.records.statuses import SignalState

from ..present import SIGNAL_STATE_ICONS, age, short_party, signal_matches
from ..safe import safe_text, styled
from ..styles import MUTED, WARN, role
from .table import Col, Fitted, KeyedTable, Row, timed

#: At most this many delivered signals are listed under the pending ones.
MAX_DELIVERED = 50


class SignalsTable(KeyedTable):
    """Pending and recently delivered signals."""

    COLUMNS = (
        Col("state", "", 1),
        Col("type", "Type", 10, wide_width=16),
        Col("age", "Age", 5),
        Col("route", "From → To", 22, wide_width=34),
        Col("payload", "Payload", None),
    )


#: The cells of the From → To column at its narrowest (`SignalsTable.COLUMNS`).
ROUTE_WIDTH = 22


def route_text(sender: str, to: str, width: int = ROUTE_WIDTH) -> Content:
    """From → To in `width` cells with both ends readable: a long sender (a human's ``Name <email>``) no longer
    pushes the recipient out of the column; when both are long, the recipient keeps at least half.

    Args:
        sender: the sender as shown (`short_party`), brain text.
        to: the recipient as shown, brain text.
        width: the cells the column gives the route.

    Returns:
        The route, made inert by `safe_text`, each end cut with "…" only as far as needed.
    """
    left, right = safe_text(sender, 60), safe_text(to, 60)
    room = width - 1  # the arrow
    if left.cell_length + right.cell_length > room:
        right_room = min(right.cell_length, max(room // 2, room - left.cell_length))
        left, right = safe_text(sender, room - right_room), safe_text(to, right_room)
    return left + "→" + right


def fitted_route(sender: str, to: str) -> Fitted:
    """The From → To cell, cut for the column's actual width when drawn (22 cells, or 34 in a wide table)."""
    return Fitted(route_text(sender, to, width=121), lambda width: route_text(sender, to, width))


def ordered_signals(snapshot: BrainSnapshot, needle: str = "") -> list[Signal]:
    """Pending signals oldest first, then delivered ones newest first (archived ones are history)."""
    pending = [s for s in snapshot.signals if s.state == SignalState.PENDING and signal_matches(s, needle)]
    delivered = [s for s in snapshot.signals if s.state == SignalState.DELIVERED and signal_matches(s, needle)]
    delivered.reverse()
    return pending + delivered[:MAX_DELIVERED]


def signal_rows(snapshot: BrainSnapshot, brain_name: str, needle: str = "") -> list[Row]:
    """Rows of the signals table."""
    rows: list[Row] = []
    for sig in ordered_signals(snapshot, needle):
        icon, role_name = SIGNAL_STATE_ICONS.get(sig.state, ("?", "muted"))
        type_style = WARN if sig.state == SignalState.PENDING and sig.type in ("BLOCKED_ON", "HUMAN_GATE") else None
        route = fitted_route(short_party(sig.sender, snapshot, brain_name, slug_only=True),
                             short_party(sig.to, snapshot, brain_name, slug_only=True))
        muted = sig.state != SignalState.PENDING
        rows.append((sig.sig_id, {
            "state": styled(icon, role(role_name)),
            "type": safe_text(sig.type, 24, style=type_style or (MUTED if muted else None)),
            "age": timed(safe_text(age(sig.created_at, snapshot.now, column=True), 10, style=MUTED), sig.created_at),
            "route": route,
            "payload": safe_text(sig.payload or "—", 240, style=MUTED if muted else None),
        }))
    return rows
