"""The main cockpit: active and stale claims, signals, the satellite tree, environment and breath.

Wide (≥ 120 columns): every pane at once. Narrow (80x24 over SSH): one pane
at a time, `1`–`5` to switch, the same keys.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize, ScreenResume
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Input, Tree

from brain_tui.core import protocol
from brain_tui.core.model import BLOCKING_STATUSES, BrainSnapshot

from ..commands import PANES, bindings_for
from ..live import live_text
from ..present import status_icon
from ..safe import safe_text, styled
from ..widgets.breath_panel import BreathPanel, alert_count
from ..widgets.claims_table import ActiveClaimsTable, StaleClaimsTable, active_rows, stale_rows
from ..widgets.env_panel import EnvPanel
from ..widgets.header import BrainHeader, SelectionBar
from ..widgets.satellite_tree import SatelliteTree
from ..widgets.signals_table import SignalsTable, signal_rows
from .actions import ClaimActions

#: From this width on, every pane is shown at once.
WIDE_WIDTH = 120

PANE_IDS = {1: "pane-claims", 2: "pane-signals", 3: "pane-tree", 4: "pane-env", 5: "pane-breath"}
FOCUS_TARGETS = {1: "#active", 2: "#signals", 3: "#tree", 4: "#env-scroll", 5: "#breath-scroll"}


class Pane(Vertical):
    """A bordered pane with a title; `group` is its number for `1`–`5`."""

    can_focus = False

    def __init__(self, *children: Widget, group: int, title: str, id: str) -> None:  # noqa: A002
        super().__init__(*children, id=id, classes="pane")
        self.group = group
        self.base_title = title

    def set_title(self, extra: str = "") -> None:
        """`N Title · extra` as the border title (plain Text, never markup)."""
        title = Text(f" {self.group} {self.base_title}" if self.group else f" {self.base_title}", end="")
        if extra:
            title.append_text(safe_text(f" · {extra}", 60))
        title.append(" ")
        self.border_title = title


class CockpitScreen(ClaimActions):
    """The screen a pilot keeps open all day."""

    BINDINGS = [
        *bindings_for("cockpit"),
        *(Binding(key, f"pane({key})", f"Pane {name}", show=False, id=f"pane-{key}") for key, name in PANES),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="clear-filter"),
    ]

    def __init__(self) -> None:
        super().__init__(id="cockpit")
        self.current_pane = 1
        self.wide = True
        self._last_claim: str | None = None

    def compose(self) -> ComposeResult:
        yield BrainHeader(id="header")
        yield SelectionBar(id="panebar")
        yield Input(placeholder="filter: ID, instance, scope, story, type… (enter keeps it, esc clears)",
                    id="filter")
        with Vertical(id="body"):
            with Vertical(id="row-top", classes="band"):
                yield Pane(ActiveClaimsTable(id="active"), group=1, title="Active claims", id="pane-claims")
                yield Pane(StaleClaimsTable(id="stale"), group=0,
                           title="Stale — human control required", id="pane-stale")
            with Horizontal(id="row-mid", classes="band"):
                yield Pane(SignalsTable(id="signals"), group=2, title="Signals", id="pane-signals")
                yield Pane(SatelliteTree(id="tree"), group=3, title="Satellites", id="pane-tree")
            with Horizontal(id="row-bottom", classes="band"):
                yield Pane(VerticalScroll(EnvPanel(id="env"), id="env-scroll"), group=4, title="Environment",
                           id="pane-env")
                yield Pane(VerticalScroll(BreathPanel(id="breath"), id="breath-scroll"), group=5, title="Breath",
                           id="pane-breath")
        yield SelectionBar(id="selection")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        """Lay out for the current size and show the snapshot."""
        filter_input = self.query_one("#filter", Input)
        filter_input.display = False
        if not self.brain_app.live:
            filter_input.cursor_blink = False
        self._apply_layout(self.app.size.width)
        self.show_snapshot(self.brain_app.snapshot)
        self.query_one("#active", ActiveClaimsTable).focus()

    # -- layout --------------------------------------------------------------------------------
    def on_resize(self, event: Resize) -> None:
        """Switch between the wide and the one-pane layout."""
        self._apply_layout(event.size.width)

    def _apply_layout(self, width: int) -> None:
        self.wide = width >= WIDE_WIDTH
        self.set_class(not self.wide, "narrow")
        current = self.current_pane
        for pane in self.query(Pane):
            group = pane.group or 1
            pane.display = self.wide or group == current
        stale = self.query_one("#pane-stale", Pane)
        stale.display = stale.display and bool(self.query_one("#stale", StaleClaimsTable).row_count)
        self.query_one("#row-top").display = self.wide or current == 1
        self.query_one("#row-mid").display = self.wide or current in (2, 3)
        self.query_one("#row-bottom").display = self.wide or current in (4, 5)
        self.query_one("#panebar").display = not self.wide
        self._update_panebar()

    def action_pane(self, number: str) -> None:
        """Show (narrow) and focus pane `number`."""
        self.current_pane = int(number)
        self._apply_layout(self.app.size.width)
        target = self.query_one(FOCUS_TARGETS[self.current_pane])
        if target.can_focus:
            target.focus()

    def _update_panebar(self) -> None:
        snapshot = self.brain_app.snapshot
        palette = self.brain_app.palette
        counts = {
            1: sum(1 for c in snapshot.claims if c.status in BLOCKING_STATUSES),
            2: sum(1 for s in snapshot.signals if s.state == "pending"),
        }
        bar = Text(end="")
        for key, name in PANES:
            number = int(key)
            label = f" {key} {name}" + (f" {counts[number]}" if number in counts else "") + " "
            bar.append(label, style="reverse bold" if number == self.current_pane else palette.muted)
        self.query_one("#panebar", SelectionBar).update(bar)

    # -- data ----------------------------------------------------------------------------------
    def show_snapshot(self, snapshot: BrainSnapshot) -> None:
        """Update every pane from `snapshot` (rows by key: the cursor does not move)."""
        app = self.brain_app
        palette, needle, name = app.palette, app.needle, app.brain.brain_name
        with app.batch_update():
            header = self.query_one("#header", BrainHeader)
            header.update(app.header_line(snapshot, header.content_region.width or self.app.size.width - 2))
            active = self.query_one("#active", ActiveClaimsTable)
            active.update_rows(active_rows(snapshot, palette, name, needle, live=app.live_sessions))
            stale = self.query_one("#stale", StaleClaimsTable)
            stale.update_rows(stale_rows(snapshot, palette, name, needle, readonly=app.readonly,
                                         live=app.live_sessions))
            self.query_one("#signals", SignalsTable).update_rows(signal_rows(snapshot, palette, name, needle))
            self.query_one("#tree", SatelliteTree).update_tree(snapshot, palette, needle, live=app.live_sessions)
            self.query_one("#env", EnvPanel).show(app.env_data, palette, app.env_note, sync=app.sync_data,
                                                  sync_error=app.sync_error, now=snapshot.now,
                                                  tz=snapshot.tz)
            self.query_one("#breath", BreathPanel).show(app.breath_data, palette, app.breath_note)
            self._titles(snapshot)
            self._apply_layout(self.app.size.width)
            self._update_selection()

    def _titles(self, snapshot: BrainSnapshot) -> None:
        needle = self.brain_app.needle
        extra = f"filter “{needle}”" if needle else ""
        active = self.query_one("#active", ActiveClaimsTable).row_count
        self.query_one("#pane-claims", Pane).set_title(" · ".join(x for x in (f"{active}", extra) if x))
        stale = self.query_one("#stale", StaleClaimsTable).row_count
        self.query_one("#pane-stale", Pane).set_title(f"{stale}")
        pending = sum(1 for s in snapshot.signals if s.state == "pending")
        self.query_one("#pane-signals", Pane).set_title(f"{pending} pending" + (f" · {extra}" if extra else ""))
        self.query_one("#pane-tree", Pane).set_title("pilot → domain → leaf")
        self.query_one("#pane-env", Pane).set_title()
        sprints = self.brain_app.breath_data
        breath = self.query_one("#breath", BreathPanel)
        alerts = alert_count(sprints, breath.chart_width)
        self.query_one("#pane-breath", Pane).set_title(
            f"{len(sprints)} sprint{'s' if len(sprints) != 1 else ''} · "
            f"{alerts} alert{'s' if alerts != 1 else ''}" if sprints else "")

    # -- selection -----------------------------------------------------------------------------
    def selected_claim_id(self) -> str | None:
        """The claim under the cursor of the focused claims table or tree (else the last one selected)."""
        focused = self.focused
        if isinstance(focused, (ActiveClaimsTable, StaleClaimsTable)):
            return focused.selected_key
        if isinstance(focused, SatelliteTree):
            return focused.selected_id
        if isinstance(focused, SignalsTable):
            return None
        return self._last_claim

    def selected_signal_id(self) -> str | None:
        """The signal under the cursor of the signals table, when it has focus."""
        focused = self.focused
        if isinstance(focused, SignalsTable):
            return focused.selected_key
        return None

    @on(DataTable.RowHighlighted)
    @on(Tree.NodeHighlighted)
    def _highlighted(self) -> None:
        self._update_selection()

    def on_descendant_focus(self) -> None:
        """The selection bar follows the focus."""
        self._update_selection()

    def _update_selection(self) -> None:
        app = self.brain_app
        palette = app.palette
        bar = self.query_one("#selection", SelectionBar)
        claim = app.claim(self.selected_claim_id())
        sig = self.selected_signal()
        out = Text(end="")
        if claim is not None:
            self._last_claim = claim.sess_id
            out.append_text(status_icon(claim.status, palette))
            out.append(" ")
            out.append_text(safe_text(claim.sess_id, 60, style=palette.strong))
            tier = protocol.tier_of(claim)
            where = claim.instance or "?"
            details = (f" · {claim.status} · {where} · " if not self.wide else
                       f" · {claim.status} · tier {tier} {protocol.TIER_NAMES[tier]} · {where} · ")
            out.append_text(safe_text(details, 80, style=palette.muted))
            session = app.live_sessions.get(claim.sess_id)
            if session is not None:
                out.append_text(live_text(session, self.brain_app.snapshot.now, palette))
                out.append(" · ", style=palette.muted)
            out.append_text(safe_text(claim.story or "—", 300))
        elif sig is not None:
            out.append_text(safe_text(sig.sig_id, 60, style=palette.strong))
            out.append_text(safe_text(f" · {sig.type} · {sig.state} · ", 60, style=palette.muted))
            if sig.type == "HANDOFF" and sig.state == "pending":
                out.append_text(styled("o opens the claim it asks for · ", palette.warn))
            out.append_text(safe_text(sig.payload or "—", 300))
        else:
            out.append("no selection — tab moves between panes, 1–5 jumps to one", style=palette.muted)
        bar.update(out)

    def on_screen_resume(self, event: ScreenResume) -> None:
        """Back from a dialog: run the refresh that waited."""
        self.brain_app.catch_up()

    # -- filter --------------------------------------------------------------------------------
    def action_filter(self) -> None:
        """Show the filter box and focus it."""
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.brain_app.needle = event.value.strip()
        self.show_snapshot(self.brain_app.snapshot)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        box = self.query_one("#filter", Input)
        if not box.value.strip():
            box.display = False
        self.action_pane(str(self.current_pane))

    def action_clear_filter(self) -> None:
        """Clear and hide the filter."""
        box = self.query_one("#filter", Input)
        was_focused = box.has_focus
        box.value = ""
        box.display = False
        self.brain_app.needle = ""
        self.show_snapshot(self.brain_app.snapshot)
        if was_focused:
            self.action_pane(str(self.current_pane))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter belongs to the filter box while it has focus; esc only matters with a filter."""
        if action == "detail" and isinstance(self.focused, Input):
            return False
        if action == "clear_filter":
            box = self.query_one("#filter", Input)
            return box.display or bool(self.brain_app.needle)
        return super().check_action(action, parameters)
