"""A footer that shows only the keys that fit, whole (never a label cut mid-word at 60 columns), and only those
that apply to what is selected (the screen's ``footer_offers``); and the filter box, whose keys it names while the
box has them."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.compose import compose
from textual.dom import DOMNode
from textual.events import Resize
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

#: Cells the palette hint takes on the right (``▏^p palette``).
PALETTE_CELLS = 14


class FilterInput(Input):
    """The cockpit's filter box (`/`): while it has the keys, the footer says what enter and esc do there (the
    letters are the box's, so the screen's keys leave the footer)."""

    BINDINGS = [
        Binding("enter", "submit", "Apply filter", id="filter-apply"),
        Binding("escape", "screen.clear_filter", "Clear filter", id="filter-clear"),
    ]


class FittingFooter(Footer):
    """Textual's footer, dropping the keys (from the right) that would not fit; help (`?`) lists them all."""

    def compose(self) -> ComposeResult:
        """The footer keys that fit the terminal's width, in order."""
        width = self.app.size.width - (PALETTE_CELLS if self.show_command_palette else 0)
        used = 0
        kept = 0
        widgets = list(super().compose())
        offers = getattr(self.screen, "footer_offers", None)
        out = []
        for widget in widgets:
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                if offers is not None and not offers(widget.action):
                    continue
                need = len(widget.key_display) + len(widget.description) + (3 if self.compact else 4)
                if used + need > width:
                    continue
                used += need
                kept += 1
            out.append(widget)
        self.styles.grid_size_columns = max(1, kept)
        yield from out

    _shown: tuple[object, ...] | None = None
    _asked: tuple[object, ...] | None = None

    async def recompose(self) -> None:
        """Mount the keys again only when what they show changed: Textual asks after every focus move and binding
        check (dozens of times a second while keys arrive), and mounting them anew restyles the whole bar. What
        they would show is first told by what `compose` reads (`_inputs`), without building a key."""
        if not self.is_attached or self._pruning:
            return
        asked = self._inputs()
        if asked == self._asked and self.children:
            return
        self._asked = asked
        nodes = compose(self)
        shown = (self.compact, tuple(_face(node) for node in nodes))
        if shown == self._shown and self.children:
            return
        self._shown = shown
        async with self.batch():
            await self.query_children("*").exclude(".-textual-system").remove()
            if self.is_attached:
                await self.mount_all(nodes)

    def _inputs(self) -> tuple[object, ...]:
        """Everything `compose` reads: the width, the bar's flags, the screen, and each binding it shows (and the
        palette's) with its state, tooltip, key display and whether the screen offers it."""
        if not self._bindings_ready:
            return ()
        screen = self.screen
        offers = getattr(screen, "footer_offers", None)
        bindings = tuple(
            (key, binding.action, binding.description, str(binding.group), enabled, str(tooltip),
             self.app.get_key_display(binding), offers(binding.action) if offers is not None else None)
            for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items()
            if binding.show or key == self.app.COMMAND_PALETTE_BINDING)
        return (self.app.size.width, self.compact, self.show_command_palette, id(screen), bindings)

    def on_resize(self, event: Resize) -> None:
        """Lay the keys out again for the new width."""
        self.call_after_refresh(self.recompose)


def _face(node: DOMNode) -> tuple[object, ...]:
    """What a footer node shows: its kind, classes, key, label, action, state and tooltip, and its children's."""
    children = tuple(_face(child) for child in getattr(node, "_pending_children", ()))
    return (type(node).__name__, tuple(sorted(node.classes)), getattr(node, "key", None),
            getattr(node, "key_display", None), getattr(node, "description", None), getattr(node, "action", None),
            getattr(node, "disabled", None), str(getattr(node, "tooltip", None)), children)
