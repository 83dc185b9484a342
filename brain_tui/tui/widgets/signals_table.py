"""The signals queue: pending first (oldest first), then delivered (newest first)."""

from __future__ import annotations

from brain_tui.core.records.model import BrainSnapshot, Signal
from brain_tui.core.records.statuses import SignalState

from ..present import SIGNAL_STATE_ICONS, age, short_party, signal_matches
from ..safe import safe_text, styled
from ..styles import MUTED, WARN, role
from .table import Col, KeyedTable, Row, timed

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
        route = safe_text(short_party(sig.sender, snapshot, brain_name, slug_only=True), 60) + "→"
        route += safe_text(short_party(sig.to, snapshot, brain_name, slug_only=True), 60)
        muted = sig.state != SignalState.PENDING
        rows.append((sig.sig_id, {
            "state": styled(icon, role(role_name)),
            "type": safe_text(sig.type, 24, style=type_style or (MUTED if muted else None)),
            "age": timed(safe_text(age(sig.created_at, snapshot.now, column=True), 10, style=MUTED), sig.created_at),
            "route": route,
            "payload": safe_text(sig.payload or "—", 240, style=MUTED if muted else None),
        }))
    return rows
