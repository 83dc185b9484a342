"""Short dialogs: acknowledge a signal (asked first), renew a claim's TTL, send a signal."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Button, Input, Label, Select, Static

from brain_tui.core.clock import format_duration, parse_duration
from brain_tui.core.errors import BsiError
from brain_tui.core.records.model import SIGNAL_TYPES, BrainSnapshot, Claim, Signal
from brain_tui.core.rules.attention import describe_time_left, time_left

from ..describe import signal_details
from ..safe import field_value, safe_text, withheld
from .dialog import CoreDialog, FormDialog

RENEW_CHOICES = ("1h", "2h", "4h", "8h")


class AckDialog(CoreDialog):
    """Acknowledge one signal (pending → delivered) after a real key press on the button."""

    def __init__(self, sig: Signal, snapshot: BrainSnapshot) -> None:
        super().__init__()
        self.sig = sig
        self.snapshot = snapshot

    def compose(self) -> ComposeResult:
        app = self.brain_app
        with Vertical(id="dialog-box", classes="decision"):
            yield self.title_line("Acknowledge signal")
            yield Static(signal_details(self.sig, self.snapshot, app.brain.brain_name, key_hint=False),
                         markup=False, id="details")
            yield from self.foot("Acknowledge", "enter acknowledges · esc cancels")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#submit", Button).focus()

    @on(Button.Pressed, "#submit")
    def _pressed_submit(self) -> None:
        sig_id = self.sig.sig_id
        self.submit_core("ack", lambda brain: brain.signals.ack(sig_id),
                         lambda changed: f"acknowledged {sig_id}" if changed else f"{sig_id} was already acknowledged")


class RenewDialog(FormDialog):
    """Renew a claim's TTL (open, waiting at a gate, or paused), within the 8 h cap the core enforces."""

    last_field = "ttl-text"
    #: Tab from Renew goes to the typed TTL (Tab, `3h`, Enter renews 3 h), not to Cancel.
    tab_from_submit = "#ttl-text"

    def __init__(self, claim: Claim, snapshot: BrainSnapshot) -> None:
        super().__init__()
        self.claim = claim
        self.snapshot = snapshot

    def compose(self) -> ComposeResult:
        app = self.brain_app
        claim, snapshot = self.claim, self.snapshot
        default = format_duration(app.brain.config.ttl_default)
        with Vertical(id="dialog-box", classes="form"):
            yield self.title_line("Renew", self.claim_subject(claim, snapshot))
            now_left = describe_time_left(time_left(claim, snapshot.now)) or "expiry unknown"
            yield Static(safe_text(f"{claim.status} · {now_left} · {claim.story or '—'}", 300), markup=False)
            yield Label(Content("New TTL from now (at most 8 h after opening)"), markup=False)
            options = [(choice, choice) for choice in RENEW_CHOICES]
            yield Select(options, value=default if default in RENEW_CHOICES else "2h", allow_blank=False, id="ttl")
            yield Input(compact=True, placeholder="or type one: 90m, 2h30m", id="ttl-text")
            yield from self.foot("Renew", "enter renews · esc cancels")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#submit", Button).focus()

    def action_submit(self) -> None:
        """Ask the core to renew."""
        typed = self.query_one("#ttl-text", Input).value.strip()
        chosen = typed or str(self.query_one("#ttl", Select).value)
        try:
            ttl = parse_duration(chosen)
        except BsiError as exc:
            self.show_error(exc.message)
            return
        sess_id = self.claim.sess_id
        self.submit_core("renew", lambda brain: brain.renew_claim(sess_id, ttl),
                         lambda expires: f"renewed {sess_id} until {expires}")


class SendSignalDialog(FormDialog):
    """Send one signal from the pilot (or the selected claim) to a claim or an instance."""

    last_field = "payload"
    BINDINGS = [*FormDialog.BINDINGS, Binding("ctrl+s", "submit", "Send", id="signal-submit")]

    def __init__(self, sender: str, to: str = "") -> None:
        super().__init__()
        self.sender = sender
        self.to = to

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box", classes="form"):
            yield self.title_line("Send a signal")
            yield Label(Content("From"), markup=False)
            yield Input(compact=True, value=field_value(self.sender), id="from")
            yield Label(withheld("To (a session ID, an instance, pilote or parent)", self.to), markup=False)
            yield Input(compact=True, value=field_value(self.to), placeholder="sess-… or prod@laptop", id="to")
            yield Label(Content("Type"), markup=False)
            yield Select([(t, t) for t in SIGNAL_TYPES], value="INFO", allow_blank=False, id="type")
            yield Label(Content("Payload"), markup=False)
            yield Input(compact=True, placeholder="what the other session should know", id="payload")
            yield from self.foot("Send", "ctrl+s sends · tab next field · esc cancels")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#to" if not field_value(self.to) else "#payload", Input).focus()

    def action_submit(self) -> None:
        """Ask the core to write the signal."""
        sender = self.query_one("#from", Input).value.strip()
        to = self.query_one("#to", Input).value.strip()
        payload = self.query_one("#payload", Input).value
        sig_type = str(self.query_one("#type", Select).value)
        if not to:
            self.show_error("a signal needs a destination (To)")
            return
        self.submit_core("signal", lambda brain: brain.signals.send(sender, to, sig_type, payload),
                         lambda sig: f"sent {sig}" if sig else "an identical signal is already pending")
