"""The main cockpit: claims, stale claims, signals, the satellite tree, environment, breath, locks, history.

Wide (≥ 120 columns): every pane at once (locks take the breath pane's place with `6`, history the environment's and
the breath pane's with `7`: `bands.pane_shown`). Narrow (80x24 over SSH): one pane at a time, `1`–`7` or a click on a
tab to switch, the same keys.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.events import ScreenResume
from textual.widgets import DataTable, Input, Tab, Tabs, Tree

from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.records.statuses import SignalState
from brain_tui.core.rules import attention
from brain_tui.core.rules.attention import AttentionItem

from .. import corrupt
from ..bands import corner_after
from ..commands import PANES, bindings_for
from ..describe import claim_line, signal_line
from ..grouping import is_grouped, is_heading, toggle
from ..navigation import item_key_at
from ..selection import CursorsBeforeFilter, cursor_widgets, keys_target
from ..styles import MUTED
from ..widgets.breath_panel import BreathPanel, alert_count
from ..widgets.claims_table import ActiveClaimsTable, StaleClaimsTable, active_rows, stale_rows
from ..widgets.env_panel import EnvPanel
from ..widgets.footer import FilterInput, FittingFooter
from ..widgets.header import BrainHeader, SelectionBar
from ..widgets.history import PAGE_SIZE, HistoryTable, LocksTable, history_rows, lock_line, lock_rows
from ..widgets.satellite_tree import SatelliteTree
from ..widgets.signals_table import SignalsTable, signal_rows
from ..widgets.table import KeyedTable
from ..words import KIND_LABELS
from .cockpit_layout import FOCUS_TARGETS, TAB_NAMES, CockpitLayout, Pane


class CockpitScreen(CockpitLayout):
    """The screen a pilot keeps open all day."""

    BINDINGS = [
        *bindings_for("cockpit"),
        *(Binding(key, f"pane({key})", f"Pane {name}", show=False, id=f"pane-{key}") for key, name in PANES),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="clear-filter"),
    ]

    def __init__(self) -> None:
        super().__init__(id="cockpit")
        self.current_pane = 1
        #: The pane shown at the bottom right in the wide layout (breath, locks or history).
        self.corner = 5
        self.wide = True
        self.needle = ""
        self._last_claim: str | None = None
        self._before_filter = CursorsBeforeFilter()
        self._laid_out = None
        self._resumed = False

    def compose(self) -> ComposeResult:
        yield BrainHeader(id="header")
        tabs = Tabs(*(Tab(f"{key} {TAB_NAMES.get(key, name)}", id=f"tab-{key}") for key, name in PANES),
                    id="panebar")
        tabs.can_focus = False
        yield tabs
        yield FilterInput(placeholder="filter: ID, instance, scope, story, type… (history: ID)",
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
                yield Pane(LocksTable(id="locks"), group=6, title="Locks", id="pane-locks")
                yield Pane(HistoryTable(id="history"), group=7, title="History", id="pane-history")
        yield SelectionBar(id="selection")
        yield FittingFooter(compact=True)

    def on_mount(self) -> None:
        """Lay out for the current size and show the snapshot."""
        filter_input = self.query_one("#filter", Input)
        filter_input.display = False
        if not self.brain_app.live:
            filter_input.cursor_blink = False
        self._show_panes(self.app.size.width)  # which panes show (the history pane reads only when shown)
        self.show_snapshot(self.brain_app.snapshot)  # fills them, then lays them out
        self.query_one("#active", ActiveClaimsTable).focus()

    def action_pane(self, number: str) -> None:
        """Show (narrow) and focus pane `number`."""
        self.current_pane = int(number)
        self.corner = corner_after(self.current_pane, self.corner)
        self._apply_layout(self.app.size.width)
        if self.current_pane == 7:
            self._show_history(self.brain_app.snapshot)
            self._titles(self.brain_app.snapshot)
        target = self.query_one(FOCUS_TARGETS[self.current_pane])
        if target.can_focus:
            self.focus_now(target)

    @on(Tabs.TabActivated, "#panebar")
    def _tab_clicked(self, event: Tabs.TabActivated) -> None:
        if event.tabs.active != event.tab.id:
            return  # an older activation (`n`, 1–7 moved on since): acting on it would pull the focus back
        number = (event.tab.id or "tab-1").removeprefix("tab-")
        if number != str(self.current_pane):
            self.action_pane(number)

    # -- data ----------------------------------------------------------------------------------
    def show_snapshot(self, snapshot: BrainSnapshot) -> None:
        """Update every pane from `snapshot` (rows by key: the cursor does not move)."""
        app = self.brain_app
        needle, name = self.needle, app.brain.brain_name
        with app.batch_update():
            self.query_one("#header", BrainHeader).refresh()
            active = self.query_one("#active", ActiveClaimsTable)
            active.update_rows(active_rows(snapshot, name, needle, live=app.live_sessions,
                                           grouped=is_grouped(app.settings)))
            stale = self.query_one("#stale", StaleClaimsTable)
            stale.update_rows(stale_rows(snapshot, name, needle, readonly=app.readonly,
                                         live=app.live_sessions, grouped=is_grouped(app.settings)))
            self.query_one("#signals", SignalsTable).update_rows(signal_rows(snapshot, name, needle))
            waiting = attention.waiting_inside(snapshot, app.queue)
            self.query_one("#tree", SatelliteTree).update_tree(snapshot, needle, waiting=waiting,
                                                                 live=app.live_sessions)
            self.query_one("#env", EnvPanel).show(app.env_data, app.env_note, sync=app.syncer.data,
                                                  sync_error=app.syncer.error, now=snapshot.now,
                                                  tz=snapshot.tz)
            self.query_one("#breath", BreathPanel).show(*app.readings.breath())
            self.query_one("#locks", LocksTable).update_rows(lock_rows(snapshot, needle))
            self._show_history(snapshot)
            self._titles(snapshot)
            self._apply_layout(self.app.size.width)
            self._update_selection()
        self.land(snapshot)  # on a claim the open form just made, once shown (`ClaimActions.land_on`)

    def _show_history(self, snapshot: BrainSnapshot) -> None:
        history = self.query_one("#history", HistoryTable)
        if not self.query_one("#pane-history", Pane).display:
            return  # sorting 10,000 finished claims on every refresh is for when the pane is shown
        app = self.brain_app
        with app.read_lock:  # only this page's files are read (through the parse cache)
            found = app.brain.audit.history_page(history.page, PAGE_SIZE, self.needle, snapshot=snapshot)
        history.page, history.total = found.page, found.total
        app.history_shown = {claim.sess_id: claim for claim in found.claims}
        history.update_rows(history_rows(found.claims, snapshot.now, snapshot.tz))

    @on(HistoryTable.PageChanged)
    def _history_page(self) -> None:
        self._show_history(self.brain_app.snapshot)
        self._titles(self.brain_app.snapshot)
        self.query_one("#history", HistoryTable).take_slid()  # the pilot turned the page: the rows are chosen

    def _show_chosen(self, *, filtered: bool = False) -> None:
        """Redraw for the pilot's own change of the lists (filter, grouping): a row gone from under the cursor
        is one the pilot removed, not one a refresh slid away (`ClaimActions.selection_slid`). A filter that hid
        it puts the cursor on the first row it shows (a row it still shows keeps the cursor)."""
        self.show_snapshot(self.brain_app.snapshot)
        for table in self.query(KeyedTable):
            if table.take_slid() is not None and filtered:
                table.action_first_row()
        self.query_one("#tree", SatelliteTree).take_slid(to_first=filtered)

    def _titles(self, snapshot: BrainSnapshot) -> None:
        extra = f"filter “{self.needle}”" if self.needle else ""
        active = sum(1 for key in self.query_one("#active", ActiveClaimsTable).row_keys if not is_heading(key))
        self.query_one("#pane-claims", Pane).set_title(" · ".join(x for x in (f"{active}", extra) if x))
        stale = sum(1 for key in self.query_one("#stale", StaleClaimsTable).row_keys if not is_heading(key))
        self.query_one("#pane-stale", Pane).set_title(f"{stale}")
        pending = sum(1 for s in snapshot.signals if s.state == SignalState.PENDING)
        self.query_one("#pane-signals", Pane).set_title(f"{pending} pending" + (f" · {extra}" if extra else ""))
        self.query_one("#pane-tree", Pane).set_title("pilot → domain → leaf")
        self.query_one("#pane-env", Pane).set_title()
        sprints = self.brain_app.readings.breath()[0]
        alerts = alert_count(sprints, self.query_one("#breath", BreathPanel).chart_width)
        self.query_one("#pane-breath", Pane).set_title(
            f"{len(sprints)} sprint{'s' if len(sprints) != 1 else ''} · "
            f"{alerts} alert{'s' if alerts != 1 else ''}" if sprints else "")
        self.query_one("#pane-locks", Pane).set_title(f"{len(snapshot.locks)}")
        history = self.query_one("#history", HistoryTable)
        pages = max(1, -(-history.total // PAGE_SIZE))
        self.query_one("#pane-history", Pane).set_title(
            f"{history.total} finished · page {history.page + 1}/{pages} · [ ] pages")

    # -- selection -----------------------------------------------------------------------------
    def selected_claim_id(self) -> str | None:
        """The claim under the cursor of the focused claims table or tree (else the last one selected)."""
        focused = keys_target(self.focused, self.query_one(FOCUS_TARGETS[self.current_pane]))
        if isinstance(focused, (ActiveClaimsTable, StaleClaimsTable, HistoryTable)):
            key = focused.selected_key
            return None if is_heading(key) else key  # a group's heading (`G`) is no claim
        if isinstance(focused, SatelliteTree):
            return focused.selected_id
        if isinstance(focused, (SignalsTable, LocksTable)):
            return None
        return self._last_claim

    def selected_signal_id(self) -> str | None:
        """The signal under the cursor of the signals table, when it has focus."""
        focused = keys_target(self.focused, self.query_one(FOCUS_TARGETS[self.current_pane]))
        return focused.selected_key if isinstance(focused, SignalsTable) else None

    def slid_selection(self) -> tuple[str, str] | None:
        """Once: the focused table's row a refresh removed from under the cursor, and the row now there."""
        focused = self.focused
        return focused.take_slid() if isinstance(focused, (KeyedTable, SatelliteTree)) else None

    def hold_cursor(self) -> None:
        """After an ack the signals table keeps its cursor line (the acknowledged row moves down)."""
        self.query_one("#signals", SignalsTable).hold_index_once()

    @on(DataTable.RowHighlighted)
    @on(Tree.NodeHighlighted)
    def _highlighted(self) -> None:
        self._update_selection()

    @on(Tree.NodeExpanded, "#tree")
    @on(Tree.NodeCollapsed, "#tree")
    def _tree_toggled(self) -> None:
        self._fit_bands(self.app.size.width)  # the lines it shows changed: their widest, their count

    def on_descendant_focus(self) -> None:
        """The selection bar follows the focus."""
        self._update_selection()

    def _update_selection(self) -> None:
        app = self.brain_app
        bar = self.query_one("#selection", SelectionBar)
        claim = app.claim(self.selected_claim_id())
        sig = self.selected_signal()
        out = Content()
        if claim is not None:
            self._last_claim = claim.sess_id
            out = claim_line(claim, app.snapshot.now, app.live_sessions.get(claim.sess_id), wide=self.wide)
        elif sig is not None:
            out = signal_line(sig)
        elif (bad := corrupt.corrupt_line(app.snapshot, self.selected_claim_id())) is not None:
            out = bad
        elif (lock := lock_line(app.snapshot, self.focused)) is not None:
            out = lock
        else:
            out = out.append_text("no selection — tab moves between panes, 1–7 jumps to one, n to what needs you",
                                  style=MUTED)
        bar.update(out)
        self.refresh_bindings()  # the footer offers what the selection can do (`footer_offers`)

    def on_screen_resume(self, event: ScreenResume) -> None:
        """Back from a dialog: run the refresh that waited.

        The first resume is the push at start: each widget was styled as it mounted, and every class or focus
        change since restyled what it touched, so Textual's restyle of the whole screen there is skipped (it runs
        after this handler). Back from a dialog it runs as before."""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False
        self.brain_app.catch_up()
        self._keep_focus_shown()

    # -- going to things -----------------------------------------------------------------------
    def current_item_key(self) -> str | None:
        """For `n`: the queue item under the cursor (a claim's or a signal's), if any."""
        return item_key_at(self.brain_app.queue, self.selected_signal_id(), self.selected_claim_id())

    def go_to_item(self, item: AttentionItem, rank: int, total: int) -> None:
        """`n`: put the cursor on the item's row (its signal, else its claim)."""
        snapshot = self.brain_app.snapshot
        found = self._select_row("#signals", "2", item.sig_id) if item.sig_id else False
        if not found and item.sess_id:
            found = self.jump_to(item.sess_id)
        if not found and item.path:  # a claim file that does not read: its row among the stale claims
            found = self._select_row("#stale", "1", corrupt.PREFIX + item.path)
        who = corrupt.item_name(item, snapshot)
        self.notify(f"{rank}/{total} · {KIND_LABELS.get(item.kind, item.kind)} · {who}", timeout=3, markup=False)

    def _select_row(self, table_id: str, pane: str, key: str) -> bool:
        table = self.query_one(table_id, KeyedTable)
        if key not in table.row_keys:
            return False
        self.action_pane(pane)
        self.focus_now(table)  # the keys (and the next `n`) go to the row landed on, not to the pane's first table
        return table.select_key(key)

    def jump_to(self, sess_id: str) -> bool:
        """Show and select the claim `sess_id` in the table that lists it (clearing a filter that hides it)."""
        for table_id, pane in (("#active", "1"), ("#stale", "1"), ("#history", "7")):
            table = self.query_one(table_id, KeyedTable)
            if sess_id not in table.row_keys and self.needle:
                self.action_clear_filter()
            if sess_id in table.row_keys:
                self.action_pane(pane)
                self.focus_now(table)
                return table.select_key(sess_id)
        claim = self.brain_app.claim(sess_id)
        if claim is None or claim.is_terminal:  # on another history page (or before the recent window)
            history = self.query_one("#history", HistoryTable)
            app = self.brain_app
            with app.read_lock:
                page = app.brain.audit.history_page_of(sess_id, PAGE_SIZE, snapshot=app.snapshot)
            if page is None:
                return False
            history.page = page
            self._show_history(self.brain_app.snapshot)
            self.action_pane("7")
            return history.select_key(sess_id)
        return False

    def action_jump(self) -> None:
        """`:`: the palette, which finds claims by ID, slug or story (and panes, and commands)."""
        self.brain_app.action_command_palette(jump=True)

    # -- sorting -------------------------------------------------------------------------------
    def _focused_table(self) -> KeyedTable | None:
        return self.focused if isinstance(self.focused, KeyedTable) else None

    def action_group_by_state(self) -> None:
        """`G`: group the active claims by their agent's state, or not (kept for later cockpits)."""
        app = self.brain_app
        app.notify(toggle(app.settings, save=app.remember_theme), timeout=3, markup=False)
        self._show_chosen()

    def action_sort_next(self) -> None:
        """`>`: sort the focused table by its next column."""
        table = self._focused_table()
        if table is not None:
            table.sort_next()
            self.notify(f"sorted by {table.sort_column or 'default order'}", timeout=2, markup=False)

    def action_sort_reverse(self) -> None:
        """`<`: reverse the focused table's sort."""
        if (table := self._focused_table()) is not None:
            table.sort_by(table.sort_column, reverse=not table.sort_reverse)

    # -- filter --------------------------------------------------------------------------------
    def action_filter(self) -> None:
        """Show the filter box and focus it."""
        box = self.query_one("#filter", Input)
        box.display = True
        self.set_focus(box)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._before_filter.typed(event.value.strip(), cursor_widgets(self))
        self.needle = event.value.strip()
        self.query_one("#history", HistoryTable).page = 0
        self._show_chosen(filtered=True)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        box = self.query_one("#filter", Input)
        if not box.value.strip():
            box.display = False
        self.action_pane(str(self.current_pane))
        self._before_filter.submitted(cursor_widgets(self))

    def action_clear_filter(self) -> None:
        """Clear and hide the filter."""
        box = self.query_one("#filter", Input)
        was_focused = box.has_focus
        box.value = ""
        box.display = False
        self.needle = ""
        self._show_chosen(filtered=True)
        self._before_filter.cleared()
        if was_focused:
            self.action_pane(str(self.current_pane))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter, `/` and `:` belong to the filter box while it has focus; esc only matters with a filter."""
        if action in ("detail", "filter", "jump") and isinstance(self.focused, Input):
            return False  # enter, `/` and `:` are the box's own text there
        if action == "clear_filter":
            box = self.query_one("#filter", Input)
            return box.display or bool(self.needle)
        return super().check_action(action, parameters)
