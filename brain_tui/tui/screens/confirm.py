"""Confirmation dialogs: gate decisions, pause/resume cascades, and abort/release by typing the slug.

A decision needs a real key press in this focused dialog: the key that opened it does nothing here, no text from the
brain is ever markup (so no data can click a button), and the destructive ones need the claim's slug typed exactly.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Static

from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.rules.gate_review import GateReview
from brain_tui.core.rules.gates import Cascade, GateOutcome
from brain_tui.core.rules.preview import Preview, preview
from brain_tui.core.rules.seen import claim_mark

from ..describe import claim_summary, gate_details
from ..present import short_id, status_icon
from ..safe import safe_text, styled
from ..styles import MUTED, STRONG
from .dialog import CoreDialog
from .gate_diff import GateDiffScreen, load_review


def _touched_text(touched: tuple[str, ...], snapshot: BrainSnapshot, verb: str) -> Content:
    """The descendants a cascade will touch (as the core's dry run computed them)."""
    if not touched:
        return styled(f"The cascade will {verb} no descendant.", MUTED)
    out = styled(f"The cascade will also {verb} {len(touched)} descendant(s):", STRONG)
    for sess_id in touched[:20]:
        claim = snapshot.claim(sess_id)
        out += "\n  "
        if claim is not None:
            out += status_icon(claim.status) + " "
        out += safe_text(short_id(sess_id, snapshot.now, snapshot.tz), 80)
        if claim is not None:
            out += " "
            out += safe_text(claim.status, 20, style=MUTED) + " "
            out += safe_text(claim.story, 300, style=MUTED)  # wraps in the dialog, as the claim's own story
    if len(touched) > 20:
        out += f"\n  … {len(touched) - 20} more"
    return out


class GateDecisionDialog(CoreDialog):
    """Approve or reject a human gate, showing the gate message, result, files and children.

    The brain is read while it is open (`follows_brain`): a gate decided elsewhere meanwhile
    (another terminal, `bsi gate approve`) is said in the dialog, and its button is disabled.
    """

    follows_brain = True
    tab_from_submit = "#message"
    BINDINGS = [*CoreDialog.BINDINGS, Binding("d", "gate_diff", "Diff", show=False, id="dialog-gate-diff")]

    def __init__(self, claim: Claim, snapshot: BrainSnapshot, decision: str) -> None:
        super().__init__()
        self.review: GateReview | None = None  # what the approval is checked against (its tree)
        self.claim = claim
        self.snapshot = snapshot
        self.decision = decision  # "approve" | "reject"
        self.preview: Preview = preview(snapshot, decision, claim.sess_id)
        self.seen = claim_mark(claim)  # the core refuses the decision if the claim is no longer this

    def compose(self) -> ComposeResult:
        approve = self.decision == "approve"
        with Vertical(id="dialog-box", classes="decision"):
            yield self.title_line("Approve gate" if approve else "Reject gate",
                                  self.claim_subject(self.claim, self.snapshot))
            with VerticalScroll(id="details"):
                yield Static(gate_details(self.claim, self.snapshot, {self.decision: self.preview}), markup=False)
            if not self.preview.allowed:
                yield self.refusal_box(self.preview.refusal)
            if approve:
                yield Label(Content("Message (optional)"), markup=False)
                yield Input(compact=True, placeholder="optional, e.g. go", id="message")
            else:
                yield Label(Content("Reason (required)"), markup=False)
                yield Input(compact=True, placeholder="why the gate is rejected (required)", id="message")
            hint = ("enter on Approve decides · d the diff · tab to the message · esc cancels" if approve
                    else "type a reason, then enter · esc cancels")
            yield from self.foot("Approve" if approve else "Reject", hint, "success" if approve else "error",
                                 disabled=not self.preview.allowed or not approve)

    def on_mount(self) -> None:
        super().on_mount()
        load_review(self, self.claim.sess_id, self._reviewed)
        if self.decision == "approve" and self.preview.allowed:
            self.query_one("#submit", Button).focus()
        else:
            self.query_one("#message", Input).focus()

    def _reviewed(self, review: GateReview) -> None:
        self.review = review

    def action_gate_diff(self) -> None:
        """`d`: the diff of what is being approved (the review the approval is checked against)."""
        if self.review is not None:
            self.app.push_screen(GateDiffScreen(self.review))
        else:
            def show(review: GateReview) -> None:
                self._reviewed(review)
                self.app.push_screen(GateDiffScreen(review))

            load_review(self, self.claim.sess_id, show)

    def snapshot_arrived(self, snapshot: BrainSnapshot) -> None:
        """A fresh read while the dialog is open: when the gate was decided elsewhere, say so and stand down."""
        if self.busy or not self.is_mounted:
            return  # our own decision is being written: its outcome closes the dialog
        now = snapshot.claim(self.claim.sess_id)
        if now is not None and now.status == self.claim.status and len(now.gate_history) == len(
                self.claim.gate_history):
            return
        status = now.status if now is not None else "gone"
        last = now.gate_history[-1] if now is not None and now.gate_history else None
        detail = f" ({last.event} by {last.by})" if last is not None else ""
        self.query_one("#submit", Button).disabled = True
        self.query_one("#cancel", Button).focus()
        self.show_error(f"decided elsewhere meanwhile: {self.claim.sess_id} is now {status}{detail}; "
                        "nothing to do here (esc closes)")

    @on(Input.Changed, "#message")
    def _message_changed(self, event: Input.Changed) -> None:
        if self.decision == "reject":
            self.query_one("#submit", Button).disabled = not (self.preview.allowed and event.value.strip())

    def enter_moves_to(self, field: Input) -> Widget | None:
        """Enter in an approval's message goes to the Approve button (a reason's Enter rejects)."""
        submit = self.query_one("#submit", Button)
        return submit if self.decision == "approve" and not submit.disabled else None

    @on(Input.Submitted, "#message")
    def _message_submitted(self) -> None:
        if self.decision == "reject" and not self.query_one("#submit", Button).disabled:
            self.decide()

    @on(Button.Pressed, "#submit")
    def decide(self) -> None:
        """Run the gate decision through the core."""
        message = self.query_one("#message", Input).value.strip()
        if self.decision == "reject" and not message:
            self.show_error("a reason is required to reject a gate")
            return
        sess_id, decision = self.claim.sess_id, self.decision

        def done(result: GateOutcome) -> str:
            if decision == "approve":
                renewed = f" (its expired gate renewed until {result.expires_at})" if result.expires_at else ""
                return f"approved {sess_id} → {result.status}{renewed}"
            return f"rejected {sess_id} → failed"

        tree = self.review.tree if self.review is not None else None
        seen = self.seen
        self.submit_core(decision, lambda brain: brain.gates.approve(sess_id, message, seen_tree=tree, seen=seen)
                         if decision == "approve" else brain.gates.reject(sess_id, message, seen=seen), done)


class CascadeDialog(CoreDialog):
    """Pause or resume a claim, listing every descendant the cascade will touch (as the core computes it).

    Like the approve dialog (an optional message), it opens on its button: one real key press decides, and
    tab goes to the message.
    """

    tab_from_submit = "#message"

    def __init__(self, claim: Claim, snapshot: BrainSnapshot, action: str) -> None:
        super().__init__()
        self.claim = claim
        self.snapshot = snapshot
        self.action = action  # "pause" | "resume"
        self.preview = preview(snapshot, action, claim.sess_id)
        self.seen = claim_mark(claim)  # resume: refused if the pause is no longer the one shown (a pause never is)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box", classes="decision"):
            yield self.title_line(self.action.capitalize(), self.claim_subject(self.claim, self.snapshot))
            with VerticalScroll(id="details"):
                yield Static(claim_summary(self.claim, self.snapshot), markup=False)
                if self.preview.allowed:
                    yield Static(_touched_text(self.preview.touched, self.snapshot, self.action),
                                 id="cascade", markup=False, classes="cascade")
            if not self.preview.allowed:
                yield self.refusal_box(self.preview.refusal)
            yield Label(Content("Message (optional)"), markup=False)
            yield Input(compact=True, placeholder=f"optional, e.g. why you {self.action}", id="message")
            label = self.action.capitalize()
            yield from self.foot(label, f"enter on {label} confirms · tab to the message · esc cancels", "warning",
                                 disabled=not self.preview.allowed)

    def on_mount(self) -> None:
        super().on_mount()
        target = "#submit" if self.preview.allowed else "#cancel"
        self.query_one(target, Button).focus()

    def enter_moves_to(self, field: Input) -> Widget | None:
        """Enter in the message goes to the action's button (when the core allows the action)."""
        submit = self.query_one("#submit", Button)
        return None if submit.disabled else submit

    @on(Button.Pressed, "#submit")
    def _pressed_submit(self) -> None:
        message = self.query_one("#message", Input).value.strip()
        sess_id, action, seen = self.claim.sess_id, self.action, self.seen

        def done(cascade: Cascade) -> str:
            count = len(cascade.touched)
            return f"{action}d {sess_id}" + (f" and {count} descendant(s)" if count else "")

        self.submit_core(action, lambda brain: brain.gates.pause(sess_id, message) if action == "pause"
                         else brain.gates.resume(sess_id, message, seen=seen), done)


class SlugConfirmDialog(CoreDialog):
    """Abort (recursive) or release a stale claim: a reason, and the claim's slug typed exactly."""

    def __init__(self, claim: Claim, snapshot: BrainSnapshot, action: str) -> None:
        super().__init__()
        self.claim = claim
        self.snapshot = snapshot
        self.action = action  # "abort" | "release"
        self.preview = preview(snapshot, action, claim.sess_id)
        self.seen = claim_mark(claim)  # the core refuses if the claim is no longer as shown

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box", classes="decision"):
            yield self.title_line(self.action.capitalize(), safe_text(self.claim.sess_id, 80, style="bold"))
            with VerticalScroll(id="details"):
                yield Static(claim_summary(self.claim, self.snapshot), markup=False)
                if self.action == "abort" and self.preview.allowed:
                    yield Static(_touched_text(self.preview.touched, self.snapshot, "abort"),
                                 id="cascade", markup=False, classes="cascade")
            if not self.preview.allowed:
                yield self.refusal_box(self.preview.refusal)
            yield Label(Content("Reason (required)"), markup=False)
            yield Input(compact=True, placeholder="required", id="reason")
            prompt = Content("Type the slug ") + safe_text(self.claim.slug, 60, style="bold") + " to confirm"
            yield Label(prompt, markup=False)
            yield Input(compact=True, placeholder=self.claim.slug, id="slug")
            yield from self.foot(self.action.capitalize(), "esc cancels", "error", disabled=True)

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#reason", Input).focus()

    @property
    def confirmed(self) -> bool:
        """True when a reason is given and the slug typed matches exactly."""
        reason = self.query_one("#reason", Input).value.strip()
        slug = self.query_one("#slug", Input).value
        return self.preview.allowed and bool(reason) and slug == self.claim.slug

    @on(Input.Changed)
    def _changed(self) -> None:
        self.query_one("#submit", Button).disabled = not self.confirmed

    def enter_moves_to(self, field: Input) -> Widget | None:
        """Enter in the reason goes to the slug (Enter in the slug confirms)."""
        return self.query_one("#slug", Input) if field.id == "reason" else None

    @on(Input.Submitted, "#slug")
    def _submitted(self) -> None:
        if self.confirmed:
            self.confirm()
        else:
            self.show_error(f"type the slug {self.claim.slug} exactly, and give a reason")

    @on(Button.Pressed, "#submit")
    def confirm(self) -> None:
        """Run the abort or release through the core."""
        if not self.confirmed:
            return
        reason = self.query_one("#reason", Input).value.strip()
        sess_id, seen = self.claim.sess_id, self.seen
        if self.action == "abort":
            shown = self.preview.touched  # the descendants listed: one opened since is refused, not aborted
            self.submit_core("abort", lambda brain: brain.gates.abort(sess_id, reason, seen=seen, seen_cascade=shown),
                             lambda cascade: f"aborted {sess_id}" + (
                                 f" and {len(cascade.touched)} descendant(s)" if cascade.touched else ""))
        else:
            self.submit_core("release", lambda brain: brain.release_claim(sess_id, reason, seen=seen),
                             lambda _: f"released {sess_id}")


#: The dialog of each confirmed action (each takes the claim, the snapshot shown and the action).
DIALOGS: dict[str, type[GateDecisionDialog | CascadeDialog | SlugConfirmDialog]] = {
    "approve": GateDecisionDialog, "reject": GateDecisionDialog, "pause": CascadeDialog, "resume": CascadeDialog,
    "abort": SlugConfirmDialog, "release": SlugConfirmDialog,
}
