"""The cockpit's layout: which panes show at a width (wide: all at once; narrow: one), the bands' heights, the
pane bar, and the focus kept on a pane on screen."""

from __future__ import annotations

from textual.containers import Vertical
from textual.content import Content
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Input, Static, Tab, Tabs

from brain_tui.core.records.statuses import SignalState

from ..bands import BORDER, HISTORY, BandNeeds, band_heights, pane_shown, tree_pane_width
from ..commands import PANES
from ..safe import safe_text
from ..widgets.claims_table import StaleClaimsTable
from ..widgets.footer import FittingFooter
from ..widgets.satellite_tree import SatelliteTree
from ..widgets.table import KeyedTable
from .actions import ClaimActions

#: From this width on, every pane is shown at once.
WIDE_WIDTH = 120
#: Below this width the footer leaves out the palette hint (it would be cut mid-word).
FOOTER_PALETTE_WIDTH = 70

FOCUS_TARGETS = {1: "#active", 2: "#signals", 3: "#tree", 4: "#env-scroll", 5: "#breath-scroll", 6: "#locks",
                 7: "#history"}
#: Short tab names (the seven tabs fit in 80 columns).
TAB_NAMES = {"3": "Tree", "4": "Env"}
#: Which band holds each pane.
BANDS = {1: "#row-top", 2: "#row-mid", 3: "#row-mid", 4: "#row-bottom", 5: "#row-bottom", 6: "#row-bottom",
         7: "#row-bottom"}


class Pane(Vertical):
    """A bordered pane with a title; `group` is its number for `1`–`7`."""

    can_focus = False

    def __init__(self, *children: Widget, group: int, title: str, id: str) -> None:  # noqa: A002
        super().__init__(*children, id=id, classes="pane")
        self.group = group
        self.base_title = title

    def set_title(self, extra: str = "") -> None:
        """`N Title · extra` as the border title (Content, never markup)."""
        title = Content(f" {self.group} {self.base_title}" if self.group else f" {self.base_title}")
        if extra:
            title += safe_text(f" · {extra}", 60)
        title += " "
        self.border_title = title


class CockpitLayout(ClaimActions):
    """The cockpit screen's layout (`CockpitScreen` holds the panes' content and keys)."""

    #: The pane shown (narrow) and focused with `1`–`7`.
    current_pane: int
    #: The pane shown at the bottom right in the wide layout (breath, locks or history).
    corner: int
    wide: bool
    needle: str
    #: What the last full layout was made for (`_layout_inputs`): a resize to the same is no change.
    _laid_out: tuple[object, ...] | None = None

    # -- layout --------------------------------------------------------------------------------
    def on_resize(self, event: Resize) -> None:
        """Switch between the wide and the one-pane layout (Textual's resizes at mount change nothing: skipped).

        Textual sends the screen a resize to the size it was just laid out at, twice as it starts (the screen's
        own first layout, then the terminal's size the app kept): each a full layout and render of every pane
        again. A resize to the size the screen is laid out at skips Textual's handling too (`prevent_default`);
        a layout a widget asked for still runs on Textual's next refresh."""
        if event.size == self._compositor.size:
            event.stop()
            event.prevent_default()
        if self._layout_inputs(event.size.width) != self._laid_out:
            self._apply_layout(event.size.width)

    def _layout_inputs(self, width: int) -> tuple[object, ...]:
        """What a layout depends on that a resize could change, and what the pilot changes between layouts."""
        return (width, self.app.size.height, self.current_pane, self.corner, self.needle,
                self.query_one("#filter", Input).display, id(self.brain_app.snapshot))

    def _apply_layout(self, width: int) -> None:
        with self.app.batch_update():
            self._show_panes(width)
            self._fit_bands(width)
            self._update_panebar()
            self._keep_focus_shown()
        self._laid_out = self._layout_inputs(width)

    def _show_panes(self, width: int) -> None:
        """Which panes and bands show at `width` (wide: all but the other corners; narrow: the current one)."""
        self.wide = width >= WIDE_WIDTH
        self.set_class(not self.wide, "narrow")
        current = self.current_pane
        for pane in self.query(Pane):
            pane.display = pane_shown(pane.group or 1, wide=self.wide, current=current, corner=self.corner)
        stale = self.query_one("#pane-stale", Pane)
        stale.display = stale.display and bool(self.query_one("#stale", StaleClaimsTable).row_count)
        for band in ("#row-top", "#row-mid", "#row-bottom"):
            self.query_one(band).display = self.wide or BANDS[current] == band
        self.query_one("#panebar").display = not self.wide
        self.query_one(FittingFooter).show_command_palette = width >= FOOTER_PALETTE_WIDTH

    def _keep_focus_shown(self) -> None:
        """A pane hidden with the keys in it (the stale pane, emptied) hands them to the pane on screen."""
        focused = self.focused
        if self.is_current and (focused is None or not all(n.display for n in focused.ancestors_with_self)):
            self.focus_now(self.query_one(FOCUS_TARGETS[self.current_pane]))

    def _fit_bands(self, width: int) -> None:
        """Wide: the middle and bottom bands take the rows their panes hold, the claims the rest (tree: its width)."""
        top, mid, bottom, pane = (self.query_one(i) for i in ("#row-top", "#row-mid", "#row-bottom", "#pane-tree"))
        if not self.wide:
            pane.styles.width = None
            for band in (top, mid, bottom):
                band.styles.height = None  # the stylesheet's: one band at a time, the whole body
            return
        body = self.app.size.height - 3 - (3 if self.query_one("#filter", Input).display else 0)
        rows, bottom.styles.height = band_heights(body, self._band_needs(width))
        mid.styles.height, top.styles.height, tree = rows, "1fr", self.query_one("#tree", SatelliteTree)
        scrolls = tree.last_line + 1 > rows - BORDER  # more lines than rows: a scrollbar shows
        pane.styles.width = tree_pane_width(width, tree.widest, scrollbar=scrolls)

    def _band_needs(self, width: int) -> BandNeeds:
        """What each band would need to show everything it holds (a table: its rows and header)."""
        def table(widget_id: str) -> int:
            return self.query_one(widget_id, KeyedTable).row_count + 1

        def text(widget_id: str, share: float) -> int:
            widget = self.query_one(widget_id, Static)
            # the pane's share of the width, less its border, padding and scrollbar
            return widget.visual.get_height(widget.styles, max(10, int(width * share) - 5))  # type: ignore[arg-type]

        stale = min(8, table("#stale") + BORDER) if self.query_one("#pane-stale", Pane).display else 0
        tree = self.query_one("#tree", SatelliteTree).last_line + 2  # its lines, and its horizontal scrollbar
        corner = {5: lambda: text("#breath", 2 / 5), 6: lambda: table("#locks"),
                  7: lambda: table("#history")}[self.corner]()
        env = text("#env", 3 / 5) if self.corner != HISTORY else 0
        return BandNeeds(top=table("#active") + BORDER + stale, mid=max(table("#signals"), tree) + BORDER,
                         bottom=max(env, corner) + BORDER)

    def focus_now(self, widget: Widget) -> None:
        """Focus `widget` before the next key is read (`Widget.focus` waits a turn of the loop: a key typed
        in the same burst would act on the table focused before)."""
        self.set_focus(widget)
        if self.focused is not widget:
            widget.focus()

    def _update_panebar(self) -> None:
        snapshot = self.brain_app.snapshot
        counts = {
            1: sum(1 for c in snapshot.claims if not c.is_terminal),  # unknown statuses too: they block
            2: sum(1 for s in snapshot.signals if s.state == SignalState.PENDING),
            6: len(snapshot.locks),
        }
        tabs = self.query_one("#panebar", Tabs)
        for key, name in PANES:
            number = int(key)
            tab = tabs.query_one(f"#tab-{key}", Tab)
            label = f"{key} {TAB_NAMES.get(key, name)}" + (f" {counts[number]}" if number in counts else "")
            if str(tab.label) != label:
                tab.label = label
        if tabs.active != f"tab-{self.current_pane}":
            tabs.active = f"tab-{self.current_pane}"
