"""The help screen: every key, from the same command table as the bindings and the palette."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ..commands import COMMANDS, PANES

if TYPE_CHECKING:
    from ..app import BrainApp

KEY_WIDTH = 12


def _row(key: str, text: Content | str) -> Content:
    """One line of a table: the key (or icon) in bold, padded, then what it means."""
    return Content("\n") + Content.styled(key.ljust(KEY_WIDTH), "bold") + text


def help_text(readonly: bool) -> Content:
    """The key table as Content."""
    out = Content()
    out += Content.styled("Keys", "bold")
    for command in COMMANDS:
        off = readonly and command.mutating
        out += _row(command.shown_key, Content.styled(f"{command.description} (off: read-only)", "dim") if off
                    else command.description)
    for key, text in (
        ("ctrl+p", "Command palette: every command, searchable"),
        ("j / k", "Down / up in a table or the tree (also the arrows)"),
        ("home / end", "First / last row"),
        ("[ / ]", "Newer / older page of the history pane (7)"),
        ("tab", "Next pane / field"),
        ("esc / q", "Back (q quits only from the cockpit), cancel, clear the filter"),
    ):
        out += _row(key, text)
    out += "\n\n"
    out += Content.styled("Panes", "bold") + Content.styled("  (below 120 columns one pane at a time)", "dim")
    for key, name in PANES:
        out += _row(key, name)
    out += "\n\n"
    out += Content.styled("Icons", "bold")
    for icon, meaning in (("●", "open"), ("⚑", "waiting for a human gate"), ("‖", "paused"),
                          ("!", "stale: expired, still blocking — release it"), ("✓", "closed"),
                          ("✗", "failed"), ("○", "released")):
        out += _row(icon, meaning)
    out += "\n\n"
    out += Content.styled(
        "The screen follows the files: another session's open, close or gate shows up by itself. "
        "TTLs count down every 30 s. A bell rings (and a desktop notice, and `notify:`) when a new item needs you. "
        "With `sync: auto` in brain-compose.yml the cockpit also fetches from the remote in the background "
        "(every 30 s, or `fetch_interval`); the header shows ↑ahead ↓behind, the last sync and what is "
        "pending.", "dim")
    return out


class HelpScreen(ModalScreen[None]):
    """Keys and icons; esc, q or ? closes it."""

    BINDINGS = [
        Binding("escape", "dismiss_help", "Close", id="help-close"),
        Binding("question_mark", "dismiss_help", "Close", show=False, id="help-close-2"),
        Binding("q", "dismiss_help", "Close", show=False, id="help-close-3"),
    ]
    DEFAULT_CLASSES = "dialog"

    def compose(self) -> ComposeResult:
        app: BrainApp = self.app  # type: ignore[assignment]
        with Vertical(id="dialog-box", classes="help"):
            yield Label(Content.styled("brain-tui — help", "bold"), classes="dialog-title", markup=False)
            with VerticalScroll(id="help-body"):
                yield Static(help_text(app.readonly), markup=False)
            yield Label(Content("esc close"), classes="hint", markup=False)

    def action_dismiss_help(self) -> None:
        """Close the help."""
        self.dismiss(None)
