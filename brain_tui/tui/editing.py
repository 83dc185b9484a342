"""Keys typed in one burst keep their order in an input field (over SSH, a correction often arrives in one read
with the keys around it).

An input field's editing keys (backspace, the arrows, home, end, delete…) are its own bindings, and a binding
runs only once its key has gone round the widgets: after the characters typed behind it were already in the
field (``11⌫2`` gave ``112``, ``dex⌫pl`` gave ``dexp``). A screen with input fields binds these keys itself, with
priority (read as soon as they arrive), and queues each one in the focused field, behind the characters typed
before it: `EDIT_BINDINGS`, `edits_focused` (for `check_action`) and `queue_edit` (the ``edit`` action).
"""

from __future__ import annotations

from textual.binding import Binding
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
