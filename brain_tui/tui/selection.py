"""Rows under a cursor: which ones the pilot chose, and which a refresh slid there (`KeyedTable.take_slid`).

When a refresh takes the row under a cursor off its list, the cursor stays on the same line, now on
another row; the next action key then does nothing once (`ClaimActions.selection_slid`), as it was meant
for the row that left. When rows left because of the pilot's own action in this cockpit (their
approval, their release), the row then under the cursor is what they expect: nothing is held.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widget import Widget
from textual.widgets import Input

from .widgets.satellite_tree import SatelliteTree
from .widgets.table import KeyedTable


class Slides:
    """Whether the next snapshot shown follows the pilot's own action (then its slides are forgotten)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.after_own = False

    def own_action(self) -> None:
        """An action of this cockpit succeeded: the snapshot that shows it moves rows the pilot expects to move."""
        self.after_own = True

    def shown(self) -> None:
        """A snapshot was shown: after the pilot's own action, the rows now under the cursors count as chosen."""
        if not self.after_own:
            return
        self.after_own = False
        for screen in self.app.screen_stack:
            for table in screen.query(KeyedTable):
                table.take_slid()
            for tree in screen.query(SatelliteTree):
                tree.take_slid()


def keys_target(focused: Widget | None, pane_target: Widget) -> Widget | None:
    """The widget whose selection the keys act on: the focused one, or, while the filter box has focus, the
    current pane's (enter hands it the keys, its cursor on a row the filter still shows, or on none)."""
    if isinstance(focused, Input) and focused.id == "filter":
        return pane_target
    return focused


class CursorsBeforeFilter:
    """The row each cursor was on before the pilot's filter: clearing the filter puts it back there (when the row
    is still listed), unless the pilot chose another row while the filter was on."""

    def __init__(self) -> None:
        self.before: dict[KeyedTable | SatelliteTree, str] = {}
        #: Where the cursors were when the pilot last took the keys from the filter box (enter): one moved since
        #: then was moved by the pilot.
        self.handed: dict[KeyedTable | SatelliteTree, str | None] | None = None
        self.filtering = False

    def typed(self, needle: str, widgets: list[KeyedTable | SatelliteTree]) -> None:
        """The filter's text changed to `needle`: the first one that filters marks where every cursor is."""
        if not needle:
            return  # the box emptied (cleared, or the pilot deleted what they typed): no row was hidden by it
        if not self.filtering:
            self.filtering = True
            self.before = {w: key for w in widgets if (key := _cursor_key(w)) is not None}
        self.handed = None

    def submitted(self, widgets: list[KeyedTable | SatelliteTree]) -> None:
        """The pilot took the keys from the filter box: mark where the filter left the cursors."""
        self.handed = {w: _cursor_key(w) for w in widgets}

    def cleared(self) -> None:
        """The filter was cleared and the lists redrawn: the cursors the pilot did not move go back."""
        before, handed = self.before, self.handed
        self.before, self.handed, self.filtering = {}, None, False
        for widget, key in before.items():
            if handed is not None and _cursor_key(widget) != handed.get(widget):
                continue  # the pilot chose a row under the filter
            if isinstance(widget, KeyedTable):
                widget.select_key(key)
            else:
                widget.select_id(key)


def cursor_widgets(screen: Widget) -> list[KeyedTable | SatelliteTree]:
    """The tables and the tree of `screen`: the widgets with a cursor a filter moves."""
    return [*screen.query(KeyedTable), *screen.query(SatelliteTree)]


def _cursor_key(widget: KeyedTable | SatelliteTree) -> str | None:
    return widget.selected_key if isinstance(widget, KeyedTable) else widget.selected_id
