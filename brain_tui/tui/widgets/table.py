"""KeyedTable: a DataTable updated by row key, whose cursor stays on the same row across refreshes.

Rows are given as ``(key, {column: Content})``; each cell is drawn through `styles.ThemedCell`, so its ``$variable``
styles take the current theme's colours whenever the table draws (a theme change redraws, nothing is rebuilt). When the
keys and their order are unchanged only the cells that differ are updated; otherwise the table is rebuilt and the cursor
goes back to the row with the same key (dolphie's pattern). Columns adapt to the width: a column may ask for a minimum
table width to be shown, and the "flex" columns share the room left, each up to what its longest cell needs. Any column
sorts (`>` / a click on its header; `<` reverses): a cell that shows a moment (`Timed`: a TTL, "in 29m", "1h ago", an
age) by that moment, numbers by value, the rest by text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime

from rich.text import Text
from textual.binding import Binding
from textual.content import Content
from textual.events import Resize
from textual.widgets import DataTable

from brain_tui.core.record import record

from ..styles import ThemedCell


@record
class Col:
    """A column of a KeyedTable.

    Attributes:
        key: the column key.
        label: the header.
        width: a fixed width; None for a flex column (shares what is left).
        min_table_width: hide the column when the table is narrower than this.
        wide_width: the width when the table is at least `WIDE` cells wide (default: `width`).
        weight: a flex column's share of the room left (the story gets more than the scope).
        min_width: a flex column never gets less than this.
        keep_end: cut a long cell at its start ("…api/routes.py"): paths differ at their end.
        optional: shown only while some row has a cell for it (e.g. live sessions, when any is known).
    """

    key: str
    label: str
    width: int | None
    min_table_width: int = 0
    wide_width: int | None = None
    weight: int = 1
    min_width: int = 8
    keep_end: bool = False
    optional: bool = False

    def width_at(self, table_width: int) -> int | None:
        """The column's fixed width for a table this wide (None: flex)."""
        if self.width is None:
            return None
        if self.wide_width is not None and table_width >= WIDE:
            return self.wide_width
        return self.width


class Timed(Content):
    """A cell that shows a moment relative to now ("1h20m" left, "in 29m", "1h ago", "35m" old): it sorts by the
    moment itself, earliest first, whatever words its text uses (text order put "in 29m" before "in 3m").

    Attributes:
        moment: the instant the cell shows.
    """

    __slots__ = ("moment",)

    def __init__(self, cell: Content, moment: datetime) -> None:
        super().__init__(cell.plain, list(cell.spans), cell.cell_length, strip_control_codes=False)
        self.moment = moment


class Fitted(Content):
    """A cell drawn for its column's actual width: `fit(width)` gives what the column shows (the text here is the
    whole cell, for sorting and filtering).

    Attributes:
        fit: the cell as `width` cells show it.
    """

    __slots__ = ("fit",)

    def __init__(self, cell: Content, fit: Callable[[int], Content]) -> None:
        super().__init__(cell.plain, list(cell.spans), cell.cell_length, strip_control_codes=False)
        self.fit = fit


def timed(cell: Content, moment: datetime | None) -> Content:
    """`cell`, sorted by `moment` (`Timed`); as it is when the moment is unknown (it shows "—": sorts last)."""
    return cell if moment is None else Timed(cell, moment)


#: The cell of a column a row has nothing for.
EMPTY = Content("")
#: From this table width on, columns take their `wide_width`.
WIDE = 100


Row = tuple[str, dict[str, Content]]


class KeyedTable(DataTable[ThemedCell]):
    """A DataTable of Content cells updated in place by row key."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="table-j"),
        Binding("k", "cursor_up", "Up", show=False, id="table-k"),
        Binding("home", "first_row", "First row", show=False, id="table-home"),
        Binding("end", "last_row", "Last row", show=False, id="table-end"),
    ]

    COLUMNS: Sequence[Col] = ()

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=False, show_row_labels=False)
        self._keyed_rows: list[Row] = []
        self._shown: tuple[tuple[str, int], ...] = ()
        #: The column the rows are sorted by (None: the order given) and the direction.
        self.sort_column: str | None = None
        self.sort_reverse = False
        self._hold_index = False
        #: (the row that vanished, the row the cursor then stayed on) after a refresh removed the row under the
        #: cursor; the next action key is told, once, instead of acting on a row the pilot never chose.
        self._slid: tuple[str, str] | None = None

    # -- keys ---------------------------------------------------------------------------------
    def action_first_row(self) -> None:
        """Home: the first row."""
        if self.row_count:
            self.move_cursor(row=0, animate=False)

    def action_last_row(self) -> None:
        """End: the last row."""
        if self.row_count:
            self.move_cursor(row=self.row_count - 1, animate=False)

    def hold_index_once(self) -> None:
        """At the next rebuild keep the cursor on the same line, not on the same row (after an ack)."""
        self._hold_index = True

    def take_slid(self) -> tuple[str, str] | None:
        """Once: (vanished key, key under the cursor) after a refresh removed the row under the cursor, while the
        cursor is still there (a pilot who moved it chose a row); else None."""
        slid, self._slid = self._slid, None
        return slid if slid is not None and slid[1] == self.selected_key else None

    # -- columns ------------------------------------------------------------------------------
    def _layout_for(self, width: int) -> tuple[tuple[str, int], ...]:
        usable = max(20, width - 2)  # the vertical scrollbar
        cols = [c for c in self.COLUMNS if usable >= c.min_table_width
                and (not c.optional or any(c.key in cells for _, cells in self._keyed_rows))]
        widths = {c.key: c.width_at(usable) for c in cols}
        fixed = sum((w or 0) + 2 * self.cell_padding for w in widths.values() if w is not None)
        flex = [c for c in cols if widths[c.key] is None]
        room = max(0, usable - fixed - 2 * self.cell_padding * len(flex))
        widths.update(self._share(flex, room))
        return tuple((c.key, widths[c.key] or c.min_width) for c in cols)

    def _share(self, flex: list[Col], room: int) -> dict[str, int]:
        """Split `room` between the flex columns by weight; a column never takes more than its longest cell."""
        need = {c.key: max([c.min_width, len(c.label)] + [cells[c.key].cell_length for _, cells in self._keyed_rows
                                                          if c.key in cells]) for c in flex}
        given: dict[str, int] = {}
        left = list(flex)
        while left:
            total = sum(c.weight for c in left)
            share = {c.key: max(c.min_width, room * c.weight // total) for c in left}
            capped = [c for c in left if need[c.key] <= share[c.key]]
            if not capped:
                given.update(share)
                break
            for c in capped:
                given[c.key] = need[c.key]
                room -= need[c.key]
                left.remove(c)
            room = max(0, room)
        if flex and room > 0 and not left:
            last = flex[-1]
            given[last.key] = given.get(last.key, last.min_width) + room  # the rest goes to the last one
        return given

    def _apply_columns(self, layout: tuple[tuple[str, int], ...]) -> None:
        labels = {c.key: c.label for c in self.COLUMNS}
        self.clear(columns=True)
        for key, width in layout:
            label = labels[key]
            if key == self.sort_column:
                label += " ▼" if self.sort_reverse else " ▲"
            self.add_column(Text(label, end=""), key=key, width=width)
        self._shown = layout

    def on_resize(self, event: Resize) -> None:
        """Re-lay the columns when the table's width changes."""
        layout = self._layout_for(event.size.width)
        if layout != self._shown:
            self._rebuild(layout)

    # -- sorting ------------------------------------------------------------------------------
    def sort_by(self, column: str | None, reverse: bool = False) -> None:
        """Sort the rows by `column` (its plain text; None: the order given) and redraw."""
        self.sort_column, self.sort_reverse = column, reverse
        self._keyed_rows = self._sorted(self._keyed_rows)
        self._rebuild(self._shown, force=True)  # (it notes the row under the cursor before it clears the table)

    def sort_next(self) -> None:
        """The next column (the cycle ends with the order given)."""
        keys = [key for key, _ in self._shown]
        if not keys:
            return
        if self.sort_column not in keys:
            self.sort_by(keys[0] if keys[0] != "status" or len(keys) == 1 else keys[1])
            return
        index = keys.index(self.sort_column) + 1
        self.sort_by(keys[index] if index < len(keys) else None)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        """A click on a header sorts by it (again: reversed)."""
        key = str(event.column_key.value)
        self.sort_by(key, reverse=not self.sort_reverse if key == self.sort_column else False)

    def _sorted(self, rows: list[Row]) -> list[Row]:
        column = self.sort_column
        if column is None:
            return rows
        return sorted(rows, key=lambda row: _sort_key(row[1].get(column)), reverse=self.sort_reverse)

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
        """Show `rows`, changing only what changed; the cursor stays on its row key. A key given twice (two files of
        a hand-edited brain carrying one ID) shows its first row only: a table refuses a row key twice."""
        rows = self._sorted(_first_of_each_key(rows))
        old_keys = [key for key, _ in self._keyed_rows]
        new_keys = [key for key, _ in rows]
        previous = dict(self._keyed_rows)
        self._keyed_rows = rows
        layout = self._layout_for(self.size.width or 80)
        if not self._shown or layout != self._shown:
            self._rebuild(layout)
            return
        if old_keys == new_keys:
            shown = [key for key, _ in self._shown]
            for key, cells in rows:
                before = previous.get(key, {})
                for column in shown:
                    value = cells.get(column, EMPTY)
                    old = before.get(column)
                    if old is None or not old.is_same(value):
                        self.update_cell(key, column, self._fit(column, value))
            return
        self._rebuild(self._shown)

    def _rebuild(self, layout: tuple[tuple[str, int], ...], force: bool = False) -> None:
        keep = None if self._hold_index else self.selected_key
        self._hold_index = False
        old_row = self.cursor_row
        if layout != self._shown or force:
            self._apply_columns(layout)
        else:
            self.clear()
        columns = [key for key, _ in layout]
        for key, cells in self._keyed_rows:
            self.add_row(*(self._fit(column, cells.get(column, EMPTY)) for column in columns), key=key)
        if keep is not None and self.select_key(keep):
            return
        if self.row_count:
            self.move_cursor(row=min(max(old_row, 0), self.row_count - 1), animate=False)
            landed = self.selected_key
            if keep is not None and landed is not None:  # not after an ack (`hold_index_once`): that one is asked for
                self._slid = (keep, landed)

    def _fit(self, column: str, cell: Content) -> ThemedCell:
        """The cell as drawn: a `Fitted` cell made for the column's width; a `keep_end` column's cell cut at its
        start to it."""
        width = dict(self._shown).get(column)
        if isinstance(cell, Fitted) and width is not None:
            return ThemedCell(cell.fit(width))
        col = next((c for c in self.COLUMNS if c.key == column), None)
        if col is None or not col.keep_end or width is None or cell.cell_length <= width:
            return ThemedCell(cell)
        return ThemedCell(Content("…") + cell[len(cell.plain) - (width - 1):])

    @property
    def row_keys(self) -> list[str]:
        """The keys of the rows shown, in order."""
        return [key for key, _ in self._keyed_rows]


def _sort_key(cell: Content | None) -> tuple[int, float, str]:
    """A moment (`Timed`) by itself, numbers (and durations such as 1h20m) by value, the rest by text; empty cells
    last."""
    plain = cell.plain.strip() if cell is not None else ""
    if not plain or plain == "—":
        return (2, 0.0, "")
    if isinstance(cell, Timed):
        return (0, cell.moment.timestamp(), plain)
    minutes = _minutes(plain)
    if minutes is not None:
        return (0, minutes, plain)
    return (1, 0.0, plain.lower())


def _minutes(text: str) -> float | None:
    """``12`` → 12, ``1h20m`` → 80, ``-5m`` → -5, ``2d03h`` → 2,1620; None when not a number or duration."""
    match = re.fullmatch(r"(-)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?!?", text.replace(" ago", ""))
    if text.isdigit():
        return float(text)
    if not match or not any(match.groups()[1:]):
        return None
    sign, days, hours, mins, secs = match.groups()
    value = int(days or 0) * 1440 + int(hours or 0) * 60 + int(mins or 0) + int(secs or 0) / 60
    return -value if sign else value


def _first_of_each_key(rows: list[Row]) -> list[Row]:
    """`rows` in order, each key's first row only."""
    seen: set[str] = set()
    kept: list[Row] = []
    for key, cells in rows:
        if key not in seen:
            seen.add(key)
            kept.append((key, cells))
    return kept
