"""The attention queue (`g`): everything that needs the pilot, ranked by what deciding it unblocks.

The rows are `Brain.attention()` as the core ranks it — gates, BLOCKED_ON signals, circuit breaks, agent sessions
waiting for input, paused trees close to expiry, stale claims — each with its time left. The panel below shows the
selected item: the gate message, result, files, children and the effect of approving, as the core computes it.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.events import ScreenResume
from textual.widgets import DataTable, Static

from brain_tui.core.clock import format_timestamp, humanize_countdown
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import Status
from brain_tui.core.rules.attention import AttentionItem
from brain_tui.core.rules.effective import renew_can_extend

from ..commands import bindings_for
from ..corrupt import PREFIX, corrupt_icon, corrupt_what, item_name
from ..describe import claim_summary, gate_details, signal_details
from ..present import age, status_icon
from ..safe import safe_text, styled
from ..styles import ERROR, MUTED, OK, STRONG, WARN
from ..widgets.footer import FittingFooter
from ..widgets.header import BrainHeader, expiry_counts
from ..widgets.table import Col, KeyedTable, Row, timed
from ..words import KIND_LABELS
from .actions import ClaimActions

#: The kinds shown as errors (the others as warnings): attention kinds (`attention.KINDS`), not claim statuses.
ERROR_KINDS = frozenset({"held", "unreadable", "blocked", "circuit", "stale"})


class QueueTable(KeyedTable):
    """The ranked items (row key: the item's key)."""

    COLUMNS = (
        Col("icon", "", 1),
        Col("rank", "#", 2),
        Col("kind", "Kind", 10, wide_width=11),
        Col("who", "Who", 18, wide_width=26),
        Col("holds", "Holds", 5),
        Col("left", "Left", 8, wide_width=12),
        Col("age", "Waiting", 7, min_table_width=90),
        Col("what", "What", None),
    )


def queue_rows(snapshot: BrainSnapshot, queue: list[AttentionItem]) -> list[Row]:
    """Rows of the queue table, in the core's order."""
    rows: list[Row] = []
    for rank, item in enumerate(queue, 1):
        claim = snapshot.claim(item.sess_id) if item.sess_id else None
        # a file that does not read: as its stale row shows it (its mark, the claim it names, why and its repair)
        bad = corrupt_what(snapshot, item.path) if claim is None else None
        icon = status_icon(claim.status) if claim is not None else corrupt_icon() if bad else styled("●", WARN)
        kind_style = ERROR if item.kind in ERROR_KINDS else WARN
        left = "—" if item.time_left is None else humanize_countdown(item.time_left)
        rows.append((item.key, {
            "icon": icon,
            "rank": safe_text(str(rank), 4, style=MUTED),
            "kind": safe_text(KIND_LABELS.get(item.kind, item.kind), 16, style=kind_style),
            "who": safe_text(item_name(item, snapshot), 60, style=STRONG),
            "holds": safe_text(str(item.unblocks), 6),
            "left": timed(safe_text(left, 24, style=ERROR if item.warning else MUTED),
                          None if item.time_left is None else snapshot.now + item.time_left),
            "age": timed(safe_text(age(item.since, snapshot.now, column=True), 10, style=MUTED), item.since),
            "what": bad or safe_text(item.summary or "—", 300),
        }))
    return rows


class QueueScreen(ClaimActions):
    """What needs the pilot; a/x decide a gate, R releases, r renews, K acknowledges, enter shows the detail."""

    BINDINGS = [
        *bindings_for("gates"),
        Binding("escape", "back", "Back", id="queue-back"),
        Binding("q", "back", "Back", show=False, id="queue-back-q"),
        Binding("d", "gate_diff", "Diff", show=False, id="queue-gate-diff"),
    ]

    def __init__(self) -> None:
        super().__init__(id="gates")

    def compose(self) -> ComposeResult:
        yield BrainHeader(id="header")
        with Vertical(id="gate-body"):
            with Vertical(id="gate-list", classes="pane"):
                yield QueueTable(id="gate-table")
            with VerticalScroll(id="gate-detail", classes="pane"):
                yield Static(Content(""), id="gate-info", markup=False)
        yield FittingFooter(compact=True)

    def on_mount(self) -> None:
        """Show the snapshot and focus the list."""
        self.show_snapshot(self.brain_app.snapshot)
        self.query_one("#gate-table", QueueTable).focus()

    def on_screen_resume(self, event: ScreenResume) -> None:
        """Back from a dialog: run the refresh that waited."""
        self.brain_app.catch_up()

    def show_snapshot(self, snapshot: BrainSnapshot) -> None:
        """Update the list and the detail of the selected item."""
        app = self.brain_app
        with app.batch_update():
            self.query_one("#header", BrainHeader).refresh()
            table = self.query_one("#gate-table", QueueTable)
            table.update_rows(queue_rows(snapshot, app.queue))
            expiring, expired = expiry_counts(app.queue)
            title = (f" Needs you · {table.row_count}" + (f" · {expiring} expiring" if expiring else "")
                     + (f" · {expired} expired" if expired else ""))
            self.query_one("#gate-list").border_title = Text(title + " · most unblocking first ", end="")
            self._show_detail()

    # -- selection -----------------------------------------------------------------------------
    def selected_item(self) -> AttentionItem | None:
        """The item under the cursor."""
        key = self.query_one("#gate-table", QueueTable).selected_key
        return next((item for item in self.brain_app.queue if item.key == key), None)

    def slid_selection(self) -> tuple[str, str] | None:
        """Once: the item a refresh removed from under the cursor, and the item now there (by their claim or signal)."""
        slid = self.query_one("#gate-table", QueueTable).take_slid()
        if slid is None:
            return None
        gone, now = (key.split(":")[1] if ":" in key else key for key in slid)  # "gate:<sess_id>:<ts>"
        return gone, now

    def selected_claim_id(self) -> str | None:
        """The claim the selected item is about."""
        item = self.selected_item()
        return item.sess_id if item is not None else None

    def selected_signal_id(self) -> str | None:
        """The signal behind the selected item, if any."""
        item = self.selected_item()
        return item.sig_id if item is not None else None

    def selected_row_key(self) -> str | None:
        """A file that does not read: ``corrupt:<path>``, as the stale pane keys its row (its keys name the file and
        its repair); else the selected claim's ID."""
        item = self.selected_item()
        if item is not None and item.sess_id is None and item.path:
            return PREFIX + item.path
        return self.selected_claim_id()

    def footer_offers(self, action: str) -> bool:
        """As on any screen (`ClaimActions.footer_offers`); here a/x also on a claim's own item only when the core's
        dry run lets it be decided: a stale claim is released (`R`, as its title says), never approved; and never on
        an item with neither claim nor signal (a file that does not read, a breath alert)."""
        sess_id = self.selected_claim_id()
        if action in ("approve", "reject") and self.selected_signal() is None:
            app = self.brain_app
            return sess_id is not None and app.brain.preview(action, sess_id, app.snapshot).allowed
        return super().footer_offers(action)

    def current_item_key(self) -> str | None:
        """For `n`: the item under the cursor."""
        item = self.selected_item()
        return item.key if item is not None else None

    def go_to_item(self, item: AttentionItem, rank: int, total: int) -> None:
        """`n`: put the cursor on `item`."""
        table = self.query_one("#gate-table", QueueTable)
        table.focus()
        table.select_key(item.key)

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        self.refresh_bindings()  # the footer offers what the selected item can do (`footer_offers`)
        app = self.brain_app
        snapshot = app.snapshot
        info = self.query_one("#gate-info", Static)
        detail = self.query_one("#gate-detail")
        item = self.selected_item()
        claim = app.claim(item.sess_id) if item is not None else None
        sig = self.selected_signal()
        if item is None:
            detail.border_title = None
            done = styled("✓ nothing is waiting for a human", OK)
            done += Content.styled(f"\n{format_timestamp(snapshot.now, snapshot.tz)}", MUTED)
            info.update(done)
            return
        detail.border_title = Content(f" {hint_for(item, app.readonly, claim, snapshot.now)} ")
        if item.kind == "gate" and claim is not None and claim.status == Status.WAITING_HUMAN:
            info.update(gate_details(claim, snapshot))
        elif sig is not None:
            info.update(signal_details(sig, snapshot, app.brain.brain_name))
        elif claim is not None:
            out = safe_text(item.summary, 300, style=WARN) + "\n\n" + claim_summary(claim, snapshot)
            info.update(out)
        else:  # no claim behind it (a claim file that does not read, a breath alert): what it says is all there is
            info.update(safe_text(item.summary, 600, style=WARN))

    def action_gate_diff(self) -> None:
        """`d`: the diff of what the selected gate asks to approve."""
        from .gate_diff import open_gate_diff

        claim = self.target_claim("show the diff of")
        if claim is not None:
            open_gate_diff(self, claim.sess_id)

    def action_back(self) -> None:
        """Back to the cockpit (or stay when the cockpit was never shown)."""
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()


def hint_for(item: AttentionItem, readonly: bool, claim: Claim | None = None, now: datetime | None = None) -> str:
    """The keys that decide this kind of item (`r` only while renewing would extend `claim`, as of `now`)."""
    if readonly:
        return "enter detail"
    if claim is not None and now is not None and not renew_can_extend(claim, now):
        return hint_for(item, readonly).replace(" · r renew", "")
    keys = {
        "gate": "a approve · x reject · r renew · enter detail",
        "blocked": "K acknowledge · enter detail",
        "circuit": "enter detail",
        "needs_input": "enter detail",
        "paused": "u resume · r renew · enter detail",
        "stale": "R release · enter detail",
        "unreadable": "X abort · enter detail",
    }
    if item.kind == "unreadable" and item.sess_id is None:
        return "repair it from a shell: see below"
    return keys.get(item.kind, "enter detail")
