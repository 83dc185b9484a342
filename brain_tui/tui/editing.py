"""Keys typed in one burst keep their order in an input field (over SSH, a correction often arrives in one read
with the keys around it).

An input field's editing keys (backspace, the arrows, home, end, delete…) are its own bindings, and a binding
runs only once its key has gone round the widgets: after the characters typed behind it were already in the
field (``11⌫2`` gave ``112``, ``dex⌫pl`` gave ``dexp``). A screen with input fields binds these keys itself, with
priority (read as soon as they arrive), and queues each one in the focused field, behind the characters typed
before it: `EDIT_BINDINGS`, `edits_focused` (for `check_action`) and `queue_edit` (the ``edit`` action).

A priority key whose action reads what the keys before it change (enter on a table's row after `down down`, the
palette's enter after its query's letters) waits for them: `after_keys` sends a `KeysRead` round the widgets
behind them, and the screen's handler (`relay`) runs the action from the app's queue, behind their bindings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

#: An input field's actions that are not editing: left to the field's own bindings (or the app's).
NOT_EDITING = frozenset({"submit", "copy", "cut", "paste"})


def _edit_action(action: str) -> str:
    """The screen's action for an input field's: ``cursor_left(True)`` → ``edit('cursor_left', True)``."""
    name, _, params = action.partition("(")
    params = params.rstrip(")")
    return f"edit({name!r}{', ' + params if params else ''})"


#: The editing keys of an input field, as priority bindings of the screen (the ``edit`` action).
EDIT_BINDINGS = [
    Binding(key, _edit_action(binding.action), show=False, priority=True, id=f"edit-{key}")
    for binding in Binding.make_bindings(Input.BINDINGS) if binding.action not in NOT_EDITING
    for key in binding.key.split(",")
]


def edits_focused(focused: Widget | None) -> bool:
    """True when an editing key is the focused widget's (an input field); elsewhere it goes on to that widget."""
    return isinstance(focused, Input)


def queue_edit(focused: Widget | None, name: str, *params: object) -> None:
    """Run the input field's action `name` from its own queue: after the keys it already holds, before the next."""
    if isinstance(focused, Input):
        focused.call_later(getattr(focused, f"action_{name}"), *params)


class KeysRead(Message):
    """Posted to the focused widget: it goes round the widgets behind the keys they hold (`after_keys`)."""

    def __init__(self, then: Callable[[], None]) -> None:
        super().__init__()
        self.then = then


def after_keys(screen: Screen[Any], then: Callable[[], None]) -> None:
    """Run `then` once the keys the focused widget of `screen` holds have gone round the widgets and their bindings
    ran (the screen handles `KeysRead` with `relay`); at once when nothing is focused."""
    focused = screen.focused
    if focused is None or not focused.post_message(KeysRead(then)):
        then()


def relay(message: KeysRead, app: App[Any]) -> None:
    """A screen's `KeysRead` handler: the keys ahead of it are in the app's queue now, so `then` runs from there."""
    message.stop()
    if not app.call_later(message.then):
        message.then()
