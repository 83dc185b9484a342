"""KeyedTable: a DataTable updated by row key, whose cursor stays on the same row across refreshes.

Rows are given as ``(key, {column: Text})``. When the keys and their order are
unchanged only the cells that differ are updated; otherwise the table is
rebuilt and the cursor goes back to the row with the same key (dolphie's
pattern). Columns adapt to the width: a column may ask for a minimum table
width to be shown, and one "flex" column takes the room left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.events import Resize
from textual.widgets import DataTable


@dataclass(frozen=True)
class Col:
    """A column of a KeyedTable.

    Attributes:
        key: the column key.
        label: the header.
        width: a fixed width; None for the flex column (takes what is left).
        min_table_width: hide the column when the table is narrower than this.
        wide_width: the width when the table is at least `WIDE` cells wide (default: `width`).
        optional: shown only while some row has a cell for it (e.g. live sessions, when any is known).
    """

    key: str
    label: str
    width: int | None
    min_table_width: int = 0
    wide_width: int | None = None
    optional: bool = False

    def width_at(self, table_width: int) -> int | None:
        """The column's fixed width for a table this wide (None: flex)."""
        if self.width is None:
            return None
        if self.wide_width is not None and table_width >= WIDE:
            return self.wide_width
        return self.width


#: From this table width on, columns take their `wide_width`.
WIDE = 100


Row = tuple[str, dict[str, Text]]


class KeyedTable(DataTable[Text]):
    """A DataTable of Text cells updated in place by row key."""

    COLUMNS: Sequence[Col] = ()
    MIN_FLEX = 8

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=False, show_row_labels=False)
        self._keyed_rows: list[Row] = []
        self._shown: tuple[tuple[str, int], ...] = ()

    # -- columns ------------------------------------------------------------------------------
    def _layout_for(self, width: int) -> tuple[tuple[str, int], ...]:
        usable = max(20, width - 2)  # the vertical scrollbar
        cols = [c for c in self.COLUMNS if usable >= c.min_table_width
                and (not c.optional or any(c.key in cells for _, cells in self._keyed_rows))]
        widths = {c.key: c.width_at(usable) for c in cols}
        fixed = sum((w or 0) + 2 * self.cell_padding for w in widths.values() if w is not None)
        flex_room = max(self.MIN_FLEX, usable - fixed - 2 * self.cell_padding)
        return tuple((c.key, w if (w := widths[c.key]) is not None else flex_room) for c in cols)

    def _apply_columns(self, layout: tuple[tuple[str, int], ...]) -> None:
        labels = {c.key: c.label for c in self.COLUMNS}
        self.clear(columns=True)
        for key, width in layout:
            self.add_column(Text(labels[key], end=""), key=key, width=width)
        self._shown = layout

    def on_resize(self, event: Resize) -> None:
        """Re-lay the columns when the table's width changes."""
        layout = self._layout_for(event.size.width)
        if layout != self._shown:
            self._rebuild(layout)

    # -- rows ---------------------------------------------------------------------------------
    @property
    def selected_key(self) -> str | None:
        """The key of the row under the cursor, or None."""
        if not self.row_count:
            return None
        try:
            row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        except Exception:  # noqa: BLE001 - an out-of-range cursor means "nothing selected"
            return None
        return str(row_key.value) if row_key.value is not None else None

    def select_key(self, key: str) -> bool:
        """Move the cursor to the row `key`; False when there is no such row."""
        try:
            index = self.get_row_index(key)
        except Exception:  # noqa: BLE001 - unknown key
            return False
        self.move_cursor(row=index, animate=False)
        return True

    def update_rows(self, rows: list[Row]) -> None:
        """Show `rows`, changing only what changed; the cursor stays on its row key."""
        old_keys = [key for key, _ in self._keyed_rows]
        new_keys = [key for key, _ in rows]
        previous = dict(self._keyed_rows)
        self._keyed_rows = rows
        layout = self._layout_for(self.size.width or 80)
        if not self._shown or layout != self._shown:  # first rows, or an optional column comes or goes
            self._rebuild(layout)
            return
        if old_keys == new_keys:
            shown = [key for key, _ in self._shown]
            for key, cells in rows:
                before = previous.get(key, {})
                for column in shown:
                    value = cells.get(column, Text(""))
                    old = before.get(column)
                    if old is None or not _same(old, value):
                        self.update_cell(key, column, value)
            return
        self._rebuild(self._shown)

    def _rebuild(self, layout: tuple[tuple[str, int], ...]) -> None:
        keep = self.selected_key
        old_row = self.cursor_row
        if layout != self._shown:
            self._apply_columns(layout)
        else:
            self.clear()
        columns = [key for key, _ in layout]
        for key, cells in self._keyed_rows:
            self.add_row(*(cells.get(column, Text("")) for column in columns), key=key)
        if keep is not None and self.select_key(keep):
            return
        if self.row_count:
            self.move_cursor(row=min(max(old_row, 0), self.row_count - 1), animate=False)

    @property
    def row_keys(self) -> list[str]:
        """The keys of the rows shown, in order."""
        return [key for key, _ in self._keyed_rows]


def _same(a: Text, b: Text) -> bool:
    """True when two cells render the same (text, spans and base style)."""
    return a.plain == b.plain and a.spans == b.spans and a.style == b.style
