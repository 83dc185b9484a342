"""The lint screen: brain-language header findings across the brain (SPEC 18, `bsi lint`).

The lint walks the whole brain (it reads only each file's header, but there may be many files), so it runs in a thread
worker; the screen shows "linting…" until it answers. Every path and message goes through `safe_text`: file names and
header values come from the brain and may be hostile.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.events import ScreenResume
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable

from brain_tui.core.record import record
from brain_tui.core.records.headers import Finding
from brain_tui.core.records.model import BrainSnapshot

from .. import sources
from ..safe import safe_text, styled
from ..styles import ERROR, MUTED, OK, STRONG, WARN
from ..widgets.footer import FittingFooter
from ..widgets.header import BrainHeader, SelectionBar
from ..widgets.table import Col, KeyedTable, Row

if TYPE_CHECKING:
    from ..app import BrainApp


class LintTable(KeyedTable):
    """One row per finding: path, line, field, message."""

    COLUMNS = (
        Col("path", "Path", 24, wide_width=40),
        Col("line", "Line", 4),
        Col("field", "Field", 9, wide_width=10),
        Col("message", "Message", None),
    )


def lint_rows(findings: Sequence[Finding]) -> list[Row]:
    """Rows of the lint table (keys ``<index>:<path>:<line>:<field>``, unique and stable for one run)."""
    rows: list[Row] = []
    for index, finding in enumerate(findings):
        path = finding.path or "?"
        line = finding.line
        field = finding.field or "?"
        rows.append((f"{index}:{path}:{line}:{field}", {
            "path": safe_text(path, 200, style=STRONG),
            "line": safe_text(str(line) if line else "—", 8, style=MUTED),
            "field": safe_text(field, 20, style=ERROR if field == "header" else WARN),
            "message": safe_text(finding.message or "—", 300),
        }))
    return rows


@record(frozen=False)
class LintDone(Message):
    """`bsi lint` over the brain ended (findings None: `note` says why)."""

    findings: list[Finding] | None
    note: str


class LintScreen(Screen[None]):
    """`bsi lint` in the cockpit: r runs it again, esc or q goes back (q quits only from the cockpit)."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="lint-back"),
        Binding("q", "back", "Back", show=False, id="lint-back-q"),
        Binding("r", "rerun", "Run again", id="lint-rerun"),
    ]

    def __init__(self) -> None:
        super().__init__(id="lint")
        self.findings: list[Finding] | None = None
        self.note = "linting…"
        self.running = False

    @property
    def brain_app(self) -> BrainApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield BrainHeader(id="header")
        with Vertical(id="lint-list", classes="pane"):
            yield LintTable(id="lint-table")
        yield SelectionBar(id="lint-selection")
        yield FittingFooter(compact=True)

    def on_mount(self) -> None:
        """Start the lint and show the header."""
        self.show_snapshot(self.brain_app.snapshot)
        self.query_one("#lint-table", LintTable).focus()
        self.action_rerun()

    def on_screen_resume(self, event: ScreenResume) -> None:
        """Back from a dialog: run the refresh that waited."""
        self.brain_app.catch_up()

    # -- data ------------------------------------------------------------------------------------
    def action_rerun(self) -> None:
        """Lint the brain again (in a thread worker)."""
        if self.running:
            return
        self.running = True
        self.note = "linting…"
        self._show_findings()
        self._lint()

    @work(thread=True, exclusive=True, group="lint", exit_on_error=False)
    def _lint(self) -> None:
        findings, note = sources.lint_findings(self.brain_app.brain)
        self.post_message(LintDone(findings, note))

    def on_lint_done(self, event: LintDone) -> None:
        """The worker's findings arrived."""
        self.running = False
        self.findings, self.note = event.findings, event.note
        self._show_findings()

    def show_snapshot(self, snapshot: BrainSnapshot) -> None:
        """Update the header (the lint itself is re-run only with r)."""
        self.query_one("#header", BrainHeader).refresh()

    def _show_findings(self) -> None:
        table = self.query_one("#lint-table", LintTable)
        pane = self.query_one("#lint-list")
        findings = self.findings
        if findings is None:
            table.update_rows([])
            title = Content(f" Lint · {self.note} ") if self.running else Content(" Lint ")
            if not self.running:
                title += safe_text(f"· {self.note} ", 200)
            pane.border_title = title
        else:
            table.update_rows(lint_rows(findings))
            files = len({f.path for f in findings})
            summary = (f" Lint · {len(findings)} finding(s) in {files} file(s) · r runs again "
                       if findings else " Lint · every header is valid · r runs again ")
            pane.border_title = Text(summary + ("· linting… " if self.running else ""), end="")
        self._update_selection()

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._update_selection()

    def selected_finding(self) -> Finding | None:
        """The finding under the cursor, or None."""
        key = self.query_one("#lint-table", LintTable).selected_key
        if key is None or not self.findings:
            return None
        index = int(key.partition(":")[0])
        return self.findings[index] if 0 <= index < len(self.findings) else None

    def _update_selection(self) -> None:
        bar = self.query_one("#lint-selection", SelectionBar)
        finding = self.selected_finding()
        if self.findings is None:
            bar.update(safe_text(self.note, 200, style=ERROR if not self.running else MUTED))
            return
        if finding is None:
            bar.update(styled("✓ no findings: every brain file has a valid brain-language header", OK))
            return
        out = safe_text(f"{finding.path}:{finding.line}", 160, style=STRONG) + " "
        out += safe_text(finding.field or "?", 20, style=WARN) + " " + safe_text(finding.message, 400)
        bar.update(out)

    def action_back(self) -> None:
        """Back to the cockpit."""
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit(0)
