"""Write to, interrupt or stop a launched satellite's agent from the cockpit (issue 21).

`W` types a reply into the agent's tmux pane, `I` presses Escape there, `E` kills its window. Interrupt and stop ask
first, naming the claim. The core does it all (`brain.launches.answer`, `interrupt`, `stop`: literal keys, refused from
an agent's process); the claim itself is left to the protocol — nothing is released or closed here.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Button, Input, Static

from brain_tui.core.records.model import Claim

from ..safe import safe_text
from .dialog import CoreDialog, FormDialog

#: action → (title, what it does, button label, button variant).
CONFIRMS: dict[str, tuple[str, str, str, str]] = {
    "interrupt": ("Interrupt agent", "Press Escape in the agent's tmux pane: it stops its current turn and "
                  "waits for you.", "Interrupt", "warning"),
    "stop": ("Stop agent", "Kill the agent's tmux window: the agent ends. The claim stays as it is — release "
             "or close it through the protocol.", "Stop", "error"),
}


def _subject(claim: Claim) -> Content:
    out = safe_text(claim.sess_id, 80, style="bold")
    if claim.slug:
        out += Content(" ") + safe_text(f"({claim.slug})", 60)
    return out


class AnswerDialog(FormDialog):
    """Type one line into the agent's pane, then Enter: a form of one field (its refusal goes once the reply is
    edited, as every form's does)."""

    last_field = "reply"

    def __init__(self, claim: Claim) -> None:
        super().__init__()
        self.claim = claim

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box", classes="decision"):
            yield self.title_line("Write to agent", _subject(self.claim))
            yield Static(Content("Typed into its tmux pane as literal keys, then Enter (one line)."),
                         markup=False, id="details")
            yield Input(compact=True, placeholder="your reply", id="reply")
            yield from self.foot("Send", "enter sends · esc cancels")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#reply", Input).focus()

    def action_submit(self) -> None:
        """Send the reply through the core (Enter in the reply, or Send)."""
        text = self.query_one("#reply", Input).value
        sess_id = self.claim.sess_id
        self.submit_core("answer", lambda brain: brain.launches.answer(sess_id, text),
                         lambda _record: f"typed the reply into {sess_id}'s pane")


class PaneConfirmDialog(CoreDialog):
    """Interrupt or stop the agent: a confirmation that names the claim."""

    def __init__(self, claim: Claim, action: str) -> None:
        super().__init__()
        self.claim = claim
        self.action = action  # "interrupt" | "stop"

    def compose(self) -> ComposeResult:
        heading, body, label, variant = CONFIRMS[self.action]
        with Vertical(id="dialog-box", classes="decision"):
            yield self.title_line(heading, _subject(self.claim))
            yield Static(Content(body), markup=False, id="details")
            yield from self.foot(label, f"enter on {label} confirms · esc cancels", variant)  # type: ignore[arg-type]

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed, "#submit")
    def _confirmed(self) -> None:
        sess_id = self.claim.sess_id
        if self.action == "interrupt":
            self.submit_core("interrupt", lambda brain: brain.launches.interrupt(sess_id),
                             lambda _record: f"pressed Escape in {sess_id}'s pane")
        else:
            self.submit_core("stop", lambda brain: brain.launches.stop(sess_id),
                             lambda _record: f"stopped {sess_id}'s agent; the claim stays as it is")
