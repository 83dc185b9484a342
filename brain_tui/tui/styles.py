"""The cockpit's colour roles as Textual style text: ``$variables`` of the current theme, resolved when drawn.

Every coloured thing on screen is a `textual.content.Content` whose spans carry one of these styles. Nothing holds a
colour: a span says ``$text-error`` and the widget looks the variable up in the theme it draws with, so changing the
theme redraws in the new colours without rebuilding a single label.

Static, Label and the header draw `Content` themselves. DataTable cells and Tree labels are drawn through Rich, which
knows no ``$variables``: `rich_text` turns a `Content` into a Rich `Text` at that moment (called from the table's cell
and the tree's label rendering, so the look follows the theme there too).
"""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.content import Content
from textual.style import Style

#: Something in its normal, healthy state (an open claim, a port that answers).
OK = "$text-success"
#: Needs a human soon (a gate, a TTL under 15 minutes, pending changes): bold so it reads without colour.
WARN = "bold $text-warning"
#: Failed, expired or refused: bold so it reads without colour.
ERROR = "bold $text-error"
#: Worth a look but not a problem (paused, behind the remote, the brain's name).
ACCENT = "$text-accent"
#: Secondary information.
MUTED = "dim"
#: Names and headings.
STRONG = "bold"
#: A placeholder for a hidden character (safe.py): reversed, so it never passes for real text.
PLACEHOLDER = "reverse"

#: Role name → style (STATUS_ICONS and other tables name a role).
ROLES: dict[str, str] = {"ok": OK, "warn": WARN, "error": ERROR, "accent": ACCENT, "muted": MUTED, "strong": STRONG}


def role(name: str) -> str:
    """The style of a role name (ok, warn, error, accent, muted, strong); "" for an unknown one."""
    return ROLES.get(name, "")


def with_style(base: str | None, extra: str) -> str:
    """Two style texts as one (``"bold $text-error"`` + ``"reverse"``)."""
    return f"{base} {extra}" if base else extra


def _resolve(style: str | Style) -> Style:
    if isinstance(style, Style):
        return style
    try:
        # With a running app, `Style.parse` reads the variables of the theme it draws with now.
        return Style.parse(style)
    except Exception:  # noqa: BLE001 - an unknown variable draws unstyled, as Content itself does
        return Style.null()


def rich_text(content: Content, *, no_wrap: bool | None = True,
              overflow: Literal["fold", "crop", "ellipsis", "ignore"] | None = "ellipsis") -> Text:
    """`content` as a Rich `Text` whose styles are resolved against the current theme now.

    For the widgets that draw through Rich (DataTable cells, Tree labels): call it at render time.
    The text is `content.plain` as is (never parsed as markup).
    """
    text = Text(content.plain, no_wrap=no_wrap, overflow=overflow, end="")
    for start, end, style in content.spans:
        rich_style = _resolve(style).rich_style
        if rich_style:
            text.stylize(rich_style, start, end)
    return text


class ThemedCell:
    """A DataTable cell: `Content` drawn as Rich `Text` resolved when the table draws it (see `rich_text`)."""

    __slots__ = ("content",)

    def __init__(self, content: Content) -> None:
        self.content = content

    @property
    def plain(self) -> str:
        """The cell's text."""
        return self.content.plain

    def __rich__(self) -> Text:
        """The cell for this frame, in the current theme's colours."""
        return rich_text(self.content)

    def __repr__(self) -> str:
        return f"ThemedCell({self.content.plain!r})"
