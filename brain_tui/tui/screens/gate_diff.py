"""The gate diff screen: what a human gate asks to approve — changed files, tests, the diff (issue 19).

The review is computed by the core (`brain.gates.show`) in a worker thread, never on the UI
thread. Diff text is the repository's, hostile: it is made inert (`core.gate_review.inert_diff_lines`)
and drawn by rich's `Syntax` as plain code (never markup). ``d``, ``esc`` or ``q`` close it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from brain_tui.core.errors import BsiError
from brain_tui.core.paths.text_safety import inert_line
from brain_tui.core.rules.gate_review import GateReview, inert_diff_lines

from ..safe import safe_text, styled
from ..styles import MUTED, STRONG

if TYPE_CHECKING:
    from textual.content import Content
    from textual.screen import Screen


def review_summary(review: GateReview) -> Content:
    """The lines above the diff: gate message, tests figures, tree, changed files."""
    out = styled("Gate ", STRONG) + safe_text(review.sess_id, 60, style=STRONG)
    out += safe_text(f"  {review.status}", 40, style=MUTED)
    if review.message:
        out += "\n" + safe_text(f"“{review.message}”", 200)
    if review.tests:
        figures = " · ".join(f"{k} {v}" for k, v in review.tests.items())
        out += "\n" + styled("tests ", STRONG) + safe_text(figures, 120)
    out += "\n" + styled("tree ", STRONG) + safe_text((review.tree or "not in git")[:12], 20, style=MUTED)
    out += styled(f" · {len(review.commits)} commit(s) · {len(review.files)} file(s)", MUTED)
    for f in review.files[:6]:
        counts = f" +{f.added} -{f.deleted}" if f.added or f.deleted else ""
        where = "" if f.committed else " uncommitted"
        out += "\n " + safe_text(f"{f.how} {f.shown_path}", 120) + styled(f"{counts}{where}", MUTED)
    if len(review.files) > 6:
        out += styled(f"\n … {len(review.files) - 6} more", MUTED)
    return out


def diff_renderable(review: GateReview) -> Syntax | Static:
    """The diff, inert and coloured as a diff (a note when there is none)."""
    lines = inert_diff_lines(review.diff)
    if review.truncated:
        lines.append("… diff cut: too large to show whole (bsi gate show --json has the same cut)")
    if not lines:
        return Static(styled("No change to show: no commit carries this claim and its scope is clean.", MUTED))
    return Syntax("\n".join(lines), "diff", theme="ansi_dark", background_color="default", word_wrap=False)


class GateDiffScreen(ModalScreen[None]):
    """The review of one gate: summary, then the scrollable diff. `d`/esc/q close it."""

    BINDINGS = [
        Binding("d", "close", "Close diff", id="gate-diff-close"),
        Binding("escape", "close", "Close", show=False, id="gate-diff-esc"),
        Binding("q", "close", "Close", show=False, id="gate-diff-q"),
    ]
    DEFAULT_CSS = """
    GateDiffScreen { align: center middle; }
    GateDiffScreen #gate-diff-box { width: 100%; height: 100%; border: round $accent; padding: 0 1; }
    GateDiffScreen #gate-summary { height: auto; max-height: 10; }
    GateDiffScreen #gate-diff { height: 1fr; }
    GateDiffScreen #gate-diff > Static { width: auto; }
    GateDiffScreen .hint { color: $text-muted; }
    """

    def __init__(self, review: GateReview) -> None:
        super().__init__()
        self.review = review

    def compose(self) -> ComposeResult:
        with Vertical(id="gate-diff-box"):
            yield Static(review_summary(self.review), id="gate-summary", markup=False)
            with ScrollableContainer(id="gate-diff"):
                body = diff_renderable(self.review)
                yield body if isinstance(body, Static) else Static(body, id="gate-diff-text", markup=False)
            yield Label("↑↓ pgup pgdn scroll · ←→ wide lines · d or esc closes", classes="hint", markup=False)

    def on_mount(self) -> None:
        """Focus the diff so the arrows scroll it."""
        self.query_one("#gate-diff", ScrollableContainer).focus()

    def action_close(self) -> None:
        """Back to where `d` was pressed."""
        self.dismiss(None)


def load_review(screen: Screen[Any], sess_id: str, then: Callable[[GateReview], None]) -> None:
    """Compute the review of `sess_id`'s gate off the UI thread, then call `then(review)` on it.

    A refusal (the claim is gone, git failed) is one line in a notification, never a traceback.
    """
    app = screen.app

    async def load() -> None:
        try:
            review = await asyncio.to_thread(app.call_core, lambda brain: brain.gates.show(sess_id))  # type: ignore[attr-defined]
        except BsiError as exc:
            app.notify(inert_line(exc.message, 200), severity="error", markup=False)  # it may quote the file
            return
        then(review)

    screen.run_worker(load(), group="gate-review", exclusive=True, exit_on_error=False)


def open_gate_diff(screen: Screen[Any], sess_id: str) -> None:
    """Show the gate diff screen of `sess_id` once its review is computed."""

    def show(review: GateReview) -> None:
        screen.app.push_screen(GateDiffScreen(review))

    load_review(screen, sess_id, show)
