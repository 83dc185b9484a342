"""The help screen: every key, from the same command table as the bindings and the palette."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ..commands import COMMANDS, PANES

if TYPE_CHECKING:
    from ..app import BrainApp


#: One table of the help: its heading, then (key, what it means) rows.
Section = tuple[Content, list[tuple[str, Content | str]]]


def help_sections(readonly: bool) -> list[Section]:
    """The key, pane and icon tables: a key in its column, a long description wrapping under its own column."""
    keys: list[tuple[str, Content | str]] = [
        (command.shown_key, Content.styled(f"{command.description} (off: read-only)", "dim")
         if readonly and command.mutating else command.description)
        for command in COMMANDS
    ]
    keys += [
        ("ctrl+p", "Command palette: every command, searchable"),
        ("j / k", "Down / up in a table or the tree (also the arrows)"),
        ("home / end", "First / last row"),
        ("[ / ]", "Newer / older page of the history pane (7)"),
        ("tab", "Next pane / field"),
        ("↑↓ pgup pgdn", "In a dialog: scroll its details (the focus stays on its button or field)"),
        ("esc / q", "Back (q quits only from the cockpit), cancel, clear the filter"),
    ]
    panes = Content.styled("Panes", "bold") + Content.styled("  (below 120 columns one pane at a time)", "dim")
    icons: list[tuple[str, Content | str]] = [
        ("●", "open"), ("⚑", "waiting for a human gate"), ("‖", "paused"),
        ("!", "stale: expired, still blocking — release it"), ("✓", "closed"), ("✗", "failed"), ("○", "released")]
    return [(Content.styled("Keys", "bold"), keys), (panes, list(PANES)), (Content.styled("Icons", "bold"), icons)]


HELP_NOTE = Content.styled(
    "The screen follows the files: another session's open, close or gate shows up by itself. "
    "TTLs count down every 30 s. A bell rings (and a desktop notice, and `notify:`) when a new item needs you. "
    "With `sync: auto` in brain-compose.yml the cockpit also fetches from the remote in the background "
    "(every 30 s, or `fetch_interval`); the header shows ↑ahead ↓behind, the last sync and what is "
    "pending.", "dim")


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
                for n, (heading, rows) in enumerate(help_sections(app.readonly)):
                    yield Static(heading, markup=False, classes="help-heading" if n else "")
                    with Grid(classes="help-table"):
                        for key, text in rows:
                            yield Static(Content.styled(key, "bold"), markup=False, classes="help-key")
                            yield Static(text, markup=False, classes="help-text")
                yield Static(HELP_NOTE, markup=False, classes="help-heading")
            yield Label(Content("esc close"), classes="hint", markup=False)

    def action_dismiss_help(self) -> None:
        """Close the help."""
        self.dismiss(None)
