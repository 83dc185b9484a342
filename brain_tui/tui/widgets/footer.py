"""A footer that shows only the keys that fit, whole (never a label cut mid-word at 60 columns), and only those
that apply to what is selected (the screen's ``footer_offers``)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.events import Resize
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: Cells the palette hint takes on the right (``▏^p palette``).
PALETTE_CELLS = 14


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

    def on_resize(self, event: Resize) -> None:
        """Lay the keys out again for the new width."""
        self.call_after_refresh(self.recompose)
