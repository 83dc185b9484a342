"""The close dialog: the claim's tier is shown and its requirements are asked (SPEC 6.5).

Tier 1 (atomic) asks the result status; Tier 2 (validated) the test counts; Tier 3 (orchestrated) lists the satellites
still open. The core decides: a refused close shows the core's message and nothing is closed.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, Select, Static

from brain_tui.core.errors import InvalidData
from brain_tui.core.records.model import TIER_NAMES, BrainSnapshot, Claim, tier_of
from brain_tui.core.records.statuses import Status
from brain_tui.core.rules import claims
from brain_tui.core.rules.preview import Preview

from ..present import short_id, status_icon
from ..safe import safe_text, styled
from ..styles import ERROR, MUTED, OK, STRONG
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

    def __init__(self, claim: Claim, snapshot: BrainSnapshot, preview: Preview | None = None) -> None:
        super().__init__()
        self.claim = claim
        self.snapshot = snapshot
        self.tier = tier_of(claim)
        #: The core's dry run of the close (`Brain.preview`): a refused one is told without opening the form.
        self.preview = preview

    def compose(self) -> ComposeResult:
        claim = self.claim
        title = styled("Close ", "bold") + safe_text(claim.sess_id, 80, style="bold")
        with Vertical(id="dialog-box", classes="form"):
            yield Label(title, classes="dialog-title", markup=False)
            summary = status_icon(claim.status) + " " + safe_text(claim.status, 20) + " · "
            summary += safe_text(claim.scope_text or "—", 80) + "\n" + safe_text(claim.story or "—", 200, style=MUTED)
            yield Static(summary, markup=False, classes="summary")
            tier_line = styled(f"Tier {self.tier} — {TIER_NAMES[self.tier]}", STRONG) + "\n"
            tier_line += Content.styled(TIER_HELP[self.tier], MUTED)
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
                status_options = [(s, s) for s in claims.RESULT_STATUSES]
                if self.tier != 1:
                    status_options.insert(0, ("default (from the tier)", DEFAULT_STATUS))
                yield Label(Text("Result status" + (" (required)" if self.tier == 1 else ""), end=""),
                            markup=False)
                yield Select(status_options, value=status_options[0][1], allow_blank=False, id="status")
                yield Label(Content("Files modified (space separated)"), markup=False)
                yield Input(compact=True, placeholder="e.g. brain-engine/api/routes.py", id="files")
                yield Label(Content("Notes"), markup=False)
                yield Input(compact=True, placeholder="optional", id="notes")
            yield from self.foot("Close claim", "ctrl+s close · tab next field · esc cancel")

    def _children_text(self) -> Content:
        open_children = [c for c in self.snapshot.descendants(self.claim.sess_id) if not c.is_terminal]
        if not open_children:
            return styled("✓ every satellite below is finished", OK)
        out = Content.styled(f"{len(open_children)} satellite(s) still open — the core will refuse the close:",
                             ERROR)
        for child in open_children[:12]:
            out += "\n  "
            out += status_icon(child.status) + " "
            out += safe_text(short_id(child.sess_id, self.snapshot.now, self.snapshot.tz), 40) + " "
            out += safe_text(child.status, 20, style=MUTED)
        if len(open_children) > 12:
            out += f"\n  … {len(open_children) - 12} more"
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

    def build_request(self) -> claims.CloseRequest:
        """The CloseRequest the form describes (`InvalidData`: a test count is not a number)."""
        status = self.query_one("#status", Select).value
        req = claims.CloseRequest(
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

        def done(outcome: claims.CloseOutcome) -> str:
            tier = TIER_NAMES.get(outcome.tier, "")
            if outcome.status == Status.WAITING_HUMAN:
                return f"{sess_id} is now waiting for a human gate (exit trigger) [{tier}]"
            return f"closed {sess_id} [{tier}] — result {outcome.result.get('status', '?')}"

        self.submit_core("close", lambda brain: brain.close_claim(sess_id, req), done)
