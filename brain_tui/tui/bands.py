"""The wide layout's three bands get their rows by what their panes hold (issue 19 item 6).

In the middle band the satellite tree takes the columns its widest line needs, between its share (2 of 5)
and half the width, and the signals the rest (`tree_pane_width`): its labels end with what waits inside.

Claims on top, signals and the satellite tree in the middle, the environment and the breath (or locks) pane at the
bottom; History, a table of claims as wide as the claims' own (ID, scope, end, result, story), takes the bottom band's
whole width while it shows, the environment giving way (`pane_shown`): the claims and the stale alarm stay on screen.
A band whose panes hold little gives its rows away; when everything holds more than fits, the claims keep
at least half of the body, then the signals and the tree take what they hold, leaving the environment and the breath
charts at least a third of the rest.
"""

from __future__ import annotations

from brain_tui.core.record import record

#: Lines a bordered pane adds around what it holds (its border); a table adds its header too.
BORDER = 2
#: The fewest rows a middle or bottom band keeps (its border and a few lines of content).
MID_MIN = 5
BOTTOM_MIN = 6


@record
class BandNeeds:
    """The rows each band would need to show everything it holds (borders included)."""

    top: int
    mid: int
    bottom: int


def band_heights(body: int, needs: BandNeeds) -> tuple[int, int]:
    """(middle band rows, bottom band rows) for a `body` of rows between the header and the selection bar, by
    what each band `needs`; the top band takes the rest."""
    mid_need, bottom_need = max(MID_MIN, needs.mid), max(BOTTOM_MIN, needs.bottom)
    top = min(needs.top, max(body // 2, body - mid_need - bottom_need))
    room = max(MID_MIN + BOTTOM_MIN, body - top)
    # What needs the pilot (signals, the tree) before the environment and the breath charts, which keep
    # at least a third of the room when they hold that much.
    reserve = max(BOTTOM_MIN, min(bottom_need, room // 3))
    mid = max(MID_MIN, min(mid_need, room - reserve))
    bottom = max(BOTTOM_MIN, min(bottom_need, room - mid))
    return mid, bottom


def tree_pane_width(width: int, widest: int, *, scrollbar: bool = True) -> int:
    """Columns of the satellite tree's pane in a wide middle band of `width` columns: its `widest` line (guides
    and label), the pane's border and, when its lines are more than its rows (`scrollbar`), a scrollbar's column;
    at least the pane's share (2/5), at most half."""
    return max(width * 2 // 5, min(width // 2, widest + BORDER + (1 if scrollbar else 0)))


#: The panes that take turns at the bottom right of the wide layout (breath, locks, history), by number.
CORNER = (5, 6, 7)
#: The environment's pane and the history's, by number (`1`–`7`).
ENVIRONMENT, HISTORY = 4, 7


def pane_shown(group: int, *, wide: bool, current: int, corner: int) -> bool:
    """Whether pane `group` shows: narrow, only the `current` one; wide, every pane but the corner panes other than
    `corner`, and the environment while History (`corner`) takes the whole bottom band."""
    if not wide:
        return group == current
    if group == ENVIRONMENT:
        return corner != HISTORY
    return group not in CORNER or group == corner


def corner_after(pane: int, corner: int) -> int:
    """The corner pane once `pane` is asked for: a corner pane itself; back to the breath pane when the environment
    is asked for while History hides it; else unchanged."""
    if pane in CORNER:
        return pane
    return CORNER[0] if pane == ENVIRONMENT and corner == HISTORY else corner
