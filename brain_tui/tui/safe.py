"""safe_text(): the one way brain text reaches the screen (SPEC 15).

Claim and signal text is written by other sessions and is hostile until shown otherwise. Everything a widget displays
from the brain goes through `safe_text` (a Textual `Content` built from plain text, never markup) or `safe_str` (a plain
string for the few APIs that only take strings, always used with ``markup=False``):

- markup is never parsed: the text is put into a `Content` object as-is, so
  ``[b]`` and ``[ @click=app.quit]`` show literally and carry no style or action;
- C0 controls (except newline and tab), DEL and C1 controls become visible
  placeholders such as ``⟨ESC⟩``, so no escape sequence from the data can reach
  the terminal;
- bidi overrides/isolates/marks, zero-width characters and every other
  invisible character become ``⟨U+202E⟩``-style placeholders — the set is
  core/paths/text_safety.py's, the same for hook messages and MCP results;
- long fields are truncated with an ellipsis.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.cells import cell_len
from textual.content import Content

from brain_tui.core.paths.text_safety import ELLIPSIS, placeholder

from .styles import PLACEHOLDER, with_style

#: Default limit for one field (characters of display width).
DEFAULT_MAX_LEN = 240

def _pieces(value: str, multiline: bool) -> Iterator[tuple[str, bool]]:
    """Split `value` into (text, is_placeholder) runs."""
    run: list[str] = []
    for char in value:
        if char == "\n":
            if multiline:
                run.append(char)
                continue
            if run:
                yield "".join(run), False
                run = []
            yield "↵", True
            continue
        if char == "\t":
            run.append(char if multiline else " ")
            continue
        marker = placeholder(char)  # the one rule of what is hidden (core/paths/text_safety.py)
        if marker is None:
            run.append(char)
            continue
        if run:
            yield "".join(run), False
            run = []
        yield marker, True
    if run:
        yield "".join(run), False


def _as_str(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def safe_text(
    value: object,
    max_len: int | None = DEFAULT_MAX_LEN,
    *,
    style: str | None = None,
    multiline: bool = False,
) -> Content:
    """Make brain data displayable: a `Content` that cannot carry markup, escapes or hidden characters.

    Args:
        value: any value from a claim, signal or file (None shows as "").
        max_len: the maximum display width; longer text is cut and ends with "…".
            None for no limit (whole files in the detail view).
        style: a style for the whole text: style text such as ``"bold"`` or one of
            `styles` (``$variables`` of the theme) — never markup.
        multiline: keep newlines and tabs (detail views); otherwise a newline
            shows as a ``↵`` placeholder and a tab as a space.

    Returns:
        A `textual.content.Content` assembled from plain pieces and styles (never from markup).
    """
    parts: list[tuple[str, str]] = []
    marker_style = with_style(style, PLACEHOLDER)
    base = style or ""
    width = 0
    limit = None if max_len is None else max(1, max_len)
    for piece, is_placeholder in _pieces(_as_str(value), multiline):
        piece_width = cell_len(piece)
        if limit is not None and width + piece_width > limit:
            room = limit - width - 1
            if not is_placeholder and room > 0:
                parts.append((_cut(piece, room), base))
            parts.append((ELLIPSIS, base))
            break
        parts.append((piece, marker_style if is_placeholder else base))
        width += piece_width
    return Content.assemble(*parts, strip_control_codes=False)


def _cut(piece: str, room: int) -> str:
    """The longest prefix of `piece` whose display width fits in `room` cells."""
    out: list[str] = []
    used = 0
    for char in piece:
        w = cell_len(char)
        if used + w > room:
            break
        out.append(char)
        used += w
    return "".join(out)


def safe_str(value: object, max_len: int | None = DEFAULT_MAX_LEN, *, multiline: bool = False) -> str:
    """The plain string of `safe_text`: for APIs that take only strings (notifications, titles).

    Always pass the result with ``markup=False`` where the API has that flag.

    Args:
        value: any value from the brain or from a core error message.
        max_len: the maximum display width (None: no limit).
        multiline: keep newlines and tabs.

    Returns:
        The sanitised text with placeholders, and no control or invisible characters.
    """
    return safe_text(value, max_len, multiline=multiline).plain


def styled(text: str, style: str | None = None) -> Content:
    """A Content of one literal string (cockpit code, never brain data) in `style` (style text, never markup)."""
    return Content.styled(text, style or "")


def field_value(value: object) -> str:
    """Brain text as the starting value of an editable field (an `Input`): the text itself when it shows as it is,
    else "".

    An input shows its value as it is and submits what it shows, so neither the raw text (an escape sequence would
    reach the terminal) nor `safe_str`'s placeholders (a different scope would be submitted) may fill it: a value
    holding a character `safe_text` would hide, or a line break, is left out, for the form to name it inert.

    Args:
        value: a value from a claim or signal (a parent, a HANDOFF's scope…).

    Returns:
        The value, or "" when it cannot be shown as it is.
    """
    text = _as_str(value)
    return text if safe_str(text, None) == text else ""


def withheld(label: str, value: object) -> Content:
    """A field's label, naming (inert) the brain text `field_value` did not fill the field in with.

    Args:
        label: the field's own label (plain text).
        value: the brain text offered for the field.

    Returns:
        The label, followed on a line of its own by the inert value when it was left out.
    """
    if not _as_str(value) or field_value(value):
        return Content(label)
    return Content(label) + Content("\nnot filled in (hidden characters): ") + safe_text(value, 120)
