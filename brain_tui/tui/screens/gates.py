"""The gate screen: everything waiting for a human, oldest first, with what deciding it unblocks.

Rows are `waiting_human` claims and pending BLOCKED_ON / HUMAN_GATE signals (a
HUMAN_GATE signal whose claim is listed is folded into the claim's row). The
panel below shows the selected item: gate message, result, files, children and
the effect of approving, as the core computes it.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.events import ScreenResume
from textual.widgets import DataTable, Footer, Static

from brain_tui.core.clock import format_timestamp
from brain_tui.core.model import BrainSnapshot

from ..commands import bindings_for
from ..describe import gate_details, signal_details
from ..present import (
    EPOCH,
    age,
    gate_message,
    gate_raised_at,
    is_gate_signal,
    short_id,
    short_party,
    status_icon,
)
from ..safe import safe_text, styled
from ..widgets.header import BrainHeader
from ..widgets.table import Col, KeyedTable, Row
from .actions import ClaimActions


class GateTable(KeyedTable):
    """The waiting items."""

    COLUMNS = (
        Col("icon", "", 1),
        Col("age", "Waiting", 7),
        Col("kind", "Kind", 10, wide_width=12),
        Col("who", "Who", 18, wide_width=24),
        Col("message", "Gate message / payload", None),
    )


def gate_items(snapshot: BrainSnapshot) -> list[tuple[datetime, str, str]]:
    """(since, kind, id) of every item waiting for a human, oldest first.

    Kind is "claim" or "signal"; a pending HUMAN_GATE signal sent by a listed
    waiting claim is not listed again.
    """
    items: list[tuple[datetime, str, str]] = []
    waiting = set()
    for claim in snapshot.claims:
        if claim.status == "waiting_human":
            waiting.add(claim.sess_id)
            items.append((gate_raised_at(claim, snapshot.tz) or EPOCH, "claim", claim.sess_id))
    for sig in snapshot.signals:
        if not is_gate_signal(sig):
            continue
        if sig.type == "HUMAN_GATE" and sig.sender.partition("@")[0] in waiting:
            continue
        items.append((sig.created_at or EPOCH, "signal", sig.sig_id))
    items.sort(key=lambda item: (item[0], item[2]))
    return items


def gate_rows(snapshot: BrainSnapshot, app_palette, brain_name: str) -> list[Row]:  # noqa: ANN001
    """Rows of the gate table (keys ``claim:<id>`` / ``signal:<id>``)."""
    palette = app_palette
    signals = {s.sig_id: s for s in snapshot.signals}
    rows: list[Row] = []
    for since, kind, item_id in gate_items(snapshot):
        if kind == "claim":
            claim = snapshot.claim(item_id)
            assert claim is not None
            origin = "gate·close" if claim.gate_origin == "close" else "gate"
            rows.append((f"claim:{item_id}", {
                "icon": status_icon(claim.status, palette),
                "age": safe_text(age(since, snapshot.now), 10, style=palette.warn),
                "kind": safe_text(origin, 12, style=palette.warn),
                "who": safe_text(short_id(item_id, snapshot.now, snapshot.tz), 40, style=palette.strong),
                "message": safe_text(gate_message(claim) or claim.story or "—", 300),
            }))
        else:
            sig = signals[item_id]
            route = safe_text(short_party(sig.sender, snapshot, brain_name, slug_only=True), 40)
            route.append("→")
            route.append_text(safe_text(short_party(sig.to, snapshot, brain_name, slug_only=True), 40))
            rows.append((f"signal:{item_id}", {
                "icon": styled("●", palette.warn),
                "age": safe_text(age(since, snapshot.now), 10),
                "kind": safe_text(sig.type, 16, style=palette.error if sig.type == "BLOCKED_ON" else palette.warn),
                "who": route,
                "message": safe_text(sig.payload or "—", 300),
            }))
    return rows


class GateScreen(ClaimActions):
    """Everything waiting for a human; a/x decide, k acknowledges, enter shows the detail, esc goes back."""

    BINDINGS = [
        *bindings_for("gates"),
        Binding("escape", "back", "Back", id="gates-back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="gates")

    def compose(self) -> ComposeResult:
        yield BrainHeader(id="header")
        with Vertical(id="gate-body"):
            with Vertical(id="gate-list", classes="pane"):
                yield GateTable(id="gate-table")
            with VerticalScroll(id="gate-detail", classes="pane"):
                yield Static(Text("", end=""), id="gate-info", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        """Show the snapshot and focus the list."""
        self.show_snapshot(self.brain_app.snapshot)
        self.query_one("#gate-table", GateTable).focus()

    def on_screen_resume(self, event: ScreenResume) -> None:
        """Back from a dialog: run the refresh that waited."""
        self.brain_app.catch_up()

    def show_snapshot(self, snapshot: BrainSnapshot) -> None:
        """Update the list and the detail of the selected item."""
        app = self.brain_app
        with app.batch_update():
            header = self.query_one("#header", BrainHeader)
            header.update(app.header_line(snapshot, header.content_region.width or self.app.size.width - 2))
            table = self.query_one("#gate-table", GateTable)
            table.update_rows(gate_rows(snapshot, app.palette, app.brain.brain_name))
            count = table.row_count
            title = Text(f" Waiting for a human · {count} · oldest first ", end="")
            self.query_one("#gate-list").border_title = title
            self._show_detail()

    def _selected(self) -> tuple[str, str] | None:
        key = self.query_one("#gate-table", GateTable).selected_key
        if not key:
            return None
        kind, _, item_id = key.partition(":")
        return kind, item_id

    def selected_claim_id(self) -> str | None:
        """The selected waiting claim."""
        selected = self._selected()
        return selected[1] if selected and selected[0] == "claim" else None

    def selected_signal_id(self) -> str | None:
        """The selected pending signal."""
        selected = self._selected()
        return selected[1] if selected and selected[0] == "signal" else None

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        app = self.brain_app
        snapshot, palette = app.snapshot, app.palette
        info = self.query_one("#gate-info", Static)
        detail = self.query_one("#gate-detail")
        claim = app.claim(self.selected_claim_id())
        sig = self.selected_signal()
        if claim is not None:
            detail.border_title = Text(" enter detail " if app.readonly else " a approve · x reject · enter detail ",
                                       end="")
            info.update(gate_details(claim, snapshot, palette))
        elif sig is not None:
            detail.border_title = Text(" enter detail " if app.readonly else " k acknowledge · enter detail ",
                                       end="")
            info.update(signal_details(sig, snapshot, palette, app.brain.brain_name))
        else:
            detail.border_title = None
            done = styled("✓ nothing is waiting for a human", palette.ok)
            done.append(f"\n{format_timestamp(snapshot.now, snapshot.tz)}", style=palette.muted)
            info.update(done)

    def action_back(self) -> None:
        """Back to the cockpit (or quit when the cockpit was never shown)."""
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
