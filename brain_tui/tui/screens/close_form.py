"""The close dialog: the claim's tier is shown and its requirements are asked (SPEC 6.5).

Tier 1 (atomic) asks the result status; Tier 2 (validated) the test counts;
Tier 3 (orchestrated) lists the satellites still open. The core decides: a
refused close shows the core's message and nothing is closed.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Select, Static

from brain_tui.core import protocol
from brain_tui.core.errors import InvalidData
from brain_tui.core.model import BrainSnapshot, Claim

from ..present import short_id, status_icon
from ..safe import safe_text, styled
from .dialog import FormDialog

TIER_HELP = {
    1: "A result status is required.",
    2: "Green tests are required (total = passed > 0, failed = 0); red tests keep the claim open "
       "and send BLOCKED_ON to the parent.",
    3: "Every satellite below must be finished; children and files are aggregated by the core.",
}
DEFAULT_STATUS = "default"


class CloseClaimScreen(FormDialog):
    """Close one claim through `Brain.close_claim`."""

    last_field = "notes"

    BINDINGS = [*FormDialog.BINDINGS, Binding("ctrl+s", "submit", "Close claim", id="close-submit")]

    def __init__(self, claim: Claim, snapshot: BrainSnapshot) -> None:
        super().__init__()
        self.claim = claim
        self.snapshot = snapshot
        self.tier = protocol.tier_of(claim)

    def compose(self) -> ComposeResult:
        claim, palette = self.claim, self.brain_app.palette
        title = styled("Close ", "bold")
        title.append_text(safe_text(claim.sess_id, 80, style="bold"))
        with Vertical(id="dialog-box", classes="form"):
            yield Label(title, classes="dialog-title", markup=False)
            summary = status_icon(claim.status, palette)
            summary.append(" ")
            summary.append_text(safe_text(claim.status, 20))
            summary.append(" · ")
            summary.append_text(safe_text(claim.scope_text or "—", 80))
            summary.append("\n")
            summary.append_text(safe_text(claim.story or "—", 200, style=palette.muted))
            yield Static(summary, markup=False, classes="summary")
            tier_line = styled(f"Tier {self.tier} — {protocol.TIER_NAMES[self.tier]}", palette.strong)
            tier_line.append("\n")
            tier_line.append(TIER_HELP[self.tier], style=palette.muted)
            yield Static(tier_line, id="tier", markup=False, classes="tier")
            with VerticalScroll(id="form-fields"):
                if self.tier == 3:
                    yield Static(self._children_text(), id="children", markup=False)
                if self.tier == 2:
                    with Horizontal(classes="row"):
                        for name, label in (("tests-total", "Tests total"), ("tests-passed", "Passed"),
                                            ("tests-failed", "Failed")):
                            with Vertical():
                                yield Label(Text(label, end=""), markup=False)
                                yield Input(compact=True, placeholder="N", id=name, type="integer")
                status_options = [(s, s) for s in protocol.RESULT_STATUSES]
                if self.tier != 1:
                    status_options.insert(0, ("default (from the tier)", DEFAULT_STATUS))
                yield Label(Text("Result status" + (" (required)" if self.tier == 1 else ""), end=""),
                            markup=False)
                yield Select(status_options, value=status_options[0][1], allow_blank=False, id="status")
                yield Label(Text("Files modified (space separated)", end=""), markup=False)
                yield Input(compact=True, placeholder="e.g. brain-engine/api/routes.py", id="files")
                yield Label(Text("Notes", end=""), markup=False)
                yield Input(compact=True, placeholder="optional", id="notes")
            yield self.error_line()
            with Horizontal(classes="buttons"):
                yield Button(compact=True, label="Close claim", id="submit", variant="primary")
                yield Button(compact=True, label="Cancel", id="cancel")
            yield Label(Text("ctrl+s close · tab next field · esc cancel", end=""), classes="hint", markup=False)

    def _children_text(self) -> Text:
        palette = self.brain_app.palette
        open_children = [c for c in self.snapshot.descendants(self.claim.sess_id) if not c.is_terminal]
        if not open_children:
            return styled("✓ every satellite below is finished", palette.ok)
        out = Text(f"{len(open_children)} satellite(s) still open — the core will refuse the close:",
                   style=palette.error, end="")
        for child in open_children[:12]:
            out.append("\n  ")
            out.append_text(status_icon(child.status, palette))
            out.append(" ")
            out.append_text(safe_text(short_id(child.sess_id, self.snapshot.now, self.snapshot.tz), 40))
            out.append(" ")
            out.append_text(safe_text(child.status, 20, style=palette.muted))
        if len(open_children) > 12:
            out.append(f"\n  … {len(open_children) - 12} more")
        return out

    def on_mount(self) -> None:
        super().on_mount()
        first = "#tests-total" if self.tier == 2 else "#status"
        self.query_one(first).focus()

    def _int(self, widget_id: str) -> int | None:
        raw = self.query_one(f"#{widget_id}", Input).value.strip()
        if not raw:
            return None
        try:
            return int(raw)
        except ValueError:
            raise InvalidData(f"{widget_id.replace('-', ' ')}: {raw!r} is not a whole number") from None

    def build_request(self) -> protocol.CloseRequest:
        """The CloseRequest the form describes.

        Raises:
            InvalidData: a test count is not a number.
        """
        status = self.query_one("#status", Select).value
        req = protocol.CloseRequest(
            status=None if status in (DEFAULT_STATUS, Select.BLANK) else str(status),
            files=self.query_one("#files", Input).value.split(),
            notes=self.query_one("#notes", Input).value.strip() or None,
        )
        if self.tier == 2:
            req.tests_total = self._int("tests-total")
            req.tests_passed = self._int("tests-passed")
            req.tests_failed = self._int("tests-failed")
            counts = (req.tests_total, req.tests_passed, req.tests_failed)
            if None not in counts and req.tests_passed + req.tests_failed != req.tests_total:  # type: ignore[operator]
                raise InvalidData(f"{req.tests_passed} passed + {req.tests_failed} failed is not the "
                                  f"{req.tests_total} total: check the counts")
        return req

    def action_submit(self) -> None:
        """Ask the core to close the claim under its tier's rules."""
        try:
            req = self.build_request()
        except InvalidData as exc:
            self.show_error(exc.message)
            return
        sess_id = self.claim.sess_id

        def done(outcome: protocol.CloseOutcome) -> str:
            tier = protocol.TIER_NAMES.get(outcome.tier, "")
            if outcome.status == "waiting_human":
                return f"{sess_id} is now waiting for a human gate (exit trigger) [{tier}]"
            return f"closed {sess_id} [{tier}] — result {outcome.result.get('status', '?')}"

        self.submit_core("close", lambda brain: brain.close_claim(sess_id, req), done)
