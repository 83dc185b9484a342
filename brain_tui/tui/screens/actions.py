"""The keys that act on the selected claim or signal, shared by the cockpit and the gate screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events, on
from textual.command import CommandPalette
from textual.screen import Screen

from brain_tui.core.ids import party_session
from brain_tui.core.records.model import BrainSnapshot, Claim, Signal
from brain_tui.core.records.statuses import SignalState
from brain_tui.core.rules.attention import claim_of
from brain_tui.core.rules.triggers import handoff_task

from ..commands import MUTATING_ACTIONS
from ..editing import EDIT_BINDINGS, KeysRead, after_keys, edits_focused, queue_edit, relay
from ..safe import safe_str

if TYPE_CHECKING:
    from ..app import BrainApp


#: The actions that act on one claim (`ClaimActions.target_claim`): with none in reach they only say why.
CLAIM_KEYS = frozenset({"close_claim", "approve", "reject", "renew", "pause", "resume", "abort", "release",
                        "attach", "answer_agent", "interrupt_agent", "stop_agent", "gate_diff"})


class ClaimActions(Screen[None]):
    """A screen whose keys act on a selected claim or signal through dialogs and the core."""

    #: The filter box's editing keys keep their place in a burst of keys (`editing`).
    BINDINGS = [*EDIT_BINDINGS]

    @property
    def brain_app(self) -> BrainApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    # -- selection (screens override) ----------------------------------------------------------
    def selected_claim_id(self) -> str | None:
        """The claim the keys act on."""
        return None

    def selected_signal_id(self) -> str | None:
        """The signal the keys act on (k), when a signal row is selected."""
        return None

    def selected_signal(self) -> Signal | None:
        """The selected signal object."""
        sig_id = self.selected_signal_id()
        if not sig_id:
            return None
        return next((s for s in self.brain_app.snapshot.signals if s.sig_id == sig_id), None)

    def slid_selection(self) -> tuple[str, str] | None:
        """Once: (the row that vanished, the row now under the cursor) when a refresh slid another row under it."""
        return None

    def selection_slid(self, what: str) -> bool:
        """True (and the pilot told) when the row under the cursor is one a refresh slid there, not one chosen.

        The key was meant for the row the pilot was looking at, which left the list (decided elsewhere,
        closed, acknowledged): it does nothing this once; pressed again, it acts on the row now shown.
        """
        slid = self.slid_selection()
        if slid is None:
            return False
        self.notify(f"{what}: {safe_str(slid[0], 80)} left the list; the cursor is now on {safe_str(slid[1], 80)}. "
                    "Nothing was done: press again to act on it", title="selection moved", severity="warning",
                    markup=False)
        return True

    def claim_in_reach(self) -> Claim | None:
        """The claim a claim key acts on: the selected claim — or, for a selected signal, the claim that sent it;
        None on anything else (the row of a file that does not read, a lock, nothing). The one check of both the
        keys (`target_claim`) and the footer (`footer_offers`)."""
        app = self.brain_app
        claim = app.claim(self.selected_claim_id())
        if claim is None:
            sig = self.selected_signal()
            if sig is not None:
                claim = claim_of(app.snapshot, sig.sender)
        return claim

    def target_claim(self, what: str) -> Claim | None:
        """The claim `what` acts on (`claim_in_reach`); a message when none."""
        if self.selection_slid(what):
            return None
        claim = self.claim_in_reach()
        if claim is None:
            self._nothing_selected(what, "select a claim first")
        return claim

    def selected_row_key(self) -> str | None:
        """The key of the row under the cursor as the stale pane keys it (a file that does not read:
        ``corrupt:<path>``, `corrupt.PREFIX`), else the selected claim's ID."""
        return self.selected_claim_id()

    def _nothing_selected(self, what: str, said: str) -> None:
        """Tell the pilot that `what` has nothing to act on: the row of a file that does not read, else `said`."""
        from ..corrupt import corrupt_line

        bad = corrupt_line(self.brain_app.snapshot, self.selected_row_key())
        said = f"a file that does not read: {bad.plain}" if bad is not None else said
        self.notify(f"{what}: {said}", severity="warning", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only hides every action that changes the brain; nothing acts once the cockpit is quitting. An editing
        key is the focused input field's (elsewhere it goes on to the focused widget)."""
        if action == "edit":
            return edits_focused(self.focused) and not self.brain_app.quitting
        if self.brain_app.quitting:
            return False
        return not (self.brain_app.readonly and action in MUTATING_ACTIONS)

    def footer_offers(self, action: str) -> bool:
        """Whether the footer offers `action` for what is selected: `K` on a pending signal; a claim key only where
        it has a claim to act on (`claim_in_reach`: elsewhere the key only says why it does nothing); on a signal,
        close never and approve / reject only when the core's dry run allows them on the claim behind it (the keys
        still work: help and the palette list them all)."""
        sig = self.selected_signal()
        if action == "ack":
            return sig is not None and sig.state == SignalState.PENDING
        if action in CLAIM_KEYS and self.claim_in_reach() is None:
            return False
        if sig is None or action not in ("close_claim", "approve", "reject"):
            return True
        if action == "close_claim":
            return False
        app = self.brain_app
        claim = app.claim(self.selected_claim_id()) or claim_of(app.snapshot, sig.sender)
        # what the core would allow (its dry run), not a status read here
        return claim is not None and app.brain.preview(action, claim.sess_id, app.snapshot).allowed

    def action_edit(self, name: str, *params: object) -> None:
        """An editing key, queued in the focused input field (`editing.queue_edit`)."""
        queue_edit(self.focused, name, *params)

    # -- actions -------------------------------------------------------------------------------
    def _push(self, screen: Screen[str | None], after: Callable[[str | None], None] | None = None) -> None:
        """Open an action's dialog — unless the cockpit is read-only (the one read-only check of an action, beside
        the hidden keys) or quitting; a decision the core already refuses only says why. `after`: the callback of
        its dismissal (default `BrainApp.after_dialog`)."""
        app = self.brain_app
        if app.quitting or app.refuse_readonly():
            return
        outcome = getattr(screen, "preview", None)
        if outcome is not None and not outcome.allowed:
            from ..words import plain_refusal

            self.notify(safe_str(plain_refusal(outcome.refusal), 400), title="refused", severity="warning",
                        markup=False)
            return
        app.push_screen(screen, callback=after or app.after_dialog)

    def action_open_claim(self) -> None:
        """The open-claim form, pre-filled from a selected pilot/domain or HANDOFF signal."""
        from .claim_form import OpenClaimScreen, OpenDefaults

        app = self.brain_app
        defaults = OpenDefaults()
        sig = self.selected_signal()
        claim = app.claim(self.selected_claim_id())
        if sig is not None and sig.type == "HANDOFF":
            task = handoff_task(sig)
            parent = party_session(sig.to) or ""
            defaults = OpenDefaults(scope=sig.scope, parent=parent,
                                    satellite_type=task[0] if task else "auto",
                                    story=safe_str(sig.payload, 120))
            from brain_tui.core.rules.claims import SATELLITE_TYPES

            if defaults.satellite_type not in SATELLITE_TYPES:
                defaults = OpenDefaults(scope=defaults.scope, parent=defaults.parent, story=defaults.story)
        elif claim is not None and claim.level in ("pilote", "domain") and not claim.is_terminal:
            # Offered, never filled in: the form shows it and ctrl+r takes it as the parent.
            defaults = OpenDefaults(suggested_parent=claim.sess_id)
        form = OpenClaimScreen(defaults)

        def after(message: str | None) -> None:
            if form.opened_id is not None:
                self.land_on(form.opened_id)
            app.after_dialog(message)

        self._push(form, after)

    #: A claim this screen's open form just made, until a snapshot shown holds it (`land_on`).
    _landing: str | None = None

    def land_on(self, sess_id: str) -> None:
        """The open form made `sess_id`: put the cursor (and the selection the panes follow) on it once this screen
        shows it, so `enter`, `c`, `p` act on what the pilot just made."""
        self._landing = sess_id
        self.land(self.brain_app.snapshot)

    def land(self, snapshot: BrainSnapshot) -> None:
        """After each snapshot shown: go to the claim `land_on` waits for, once the snapshot holds it (the write's
        refresh brings it); a filter that hides it is cleared, as a jump does."""
        sess_id = self._landing
        if sess_id is None or snapshot.claim(sess_id) is None:
            return
        self._landing = None
        self.jump_to(sess_id)

    def jump_to(self, sess_id: str) -> bool:
        """Select the claim `sess_id` where this screen lists it; False when it does not (here: nowhere)."""
        return False

    def _on_claim(self, what: str, dialog: Callable[[Claim], Screen[str | None]]) -> None:
        """Open `dialog(claim)` for the claim `what` acts on (`target_claim`), when there is one."""
        claim = self.target_claim(what)
        if claim is not None:
            self._push(dialog(claim))

    def _confirm(self, action: str) -> None:
        """The confirmation dialog of a gate decision, a cascade, an abort or a release (`confirm.DIALOGS`)."""
        from .confirm import DIALOGS

        self._on_claim(action, lambda claim: DIALOGS[action](claim, self.brain_app.snapshot, action))

    def action_close_claim(self) -> None:
        """The close dialog of the selected claim."""
        from .close_form import CloseClaimScreen

        app = self.brain_app
        self._on_claim("close", lambda claim: CloseClaimScreen(
            claim, app.snapshot, app.brain.preview("close", claim.sess_id, app.snapshot)))

    def action_approve(self) -> None:
        """Approve the selected gate (dialog)."""
        self._confirm("approve")

    def action_reject(self) -> None:
        """Reject the selected gate (dialog, reason required)."""
        self._confirm("reject")

    def action_pause(self) -> None:
        """Pause the selected claim and its tree (dialog lists the cascade)."""
        self._confirm("pause")

    def action_resume(self) -> None:
        """Resume the selected claim and what it paused (dialog lists the cascade)."""
        self._confirm("resume")

    def action_abort(self) -> None:
        """Abort the selected claim and its tree (type the slug)."""
        self._confirm("abort")

    def action_release(self) -> None:
        """Release the selected stale claim (type the slug, give a reason)."""
        self._confirm("release")

    def action_ack(self) -> None:
        """Acknowledge the selected signal, after a confirmation (a signal cannot be un-acknowledged)."""
        from .quick import AckDialog

        app = self.brain_app
        if self.selection_slid("acknowledge"):
            return
        sig = self.selected_signal()
        if sig is None:
            # on the row of a file that does not read (a signal file among them): the file and its repair
            self._nothing_selected("acknowledge", "select a signal first (pane 2)")
            return
        if sig.state != SignalState.PENDING:
            self.notify(f"{sig.sig_id} is already {sig.state}", severity="warning", markup=False)
            return
        self.hold_cursor()
        self._push(AckDialog(sig, app.snapshot))

    def hold_cursor(self) -> None:
        """Keep the cursor on the same line after the next refresh (the acknowledged row moves away)."""

    def action_renew(self) -> None:
        """Renew the selected claim's TTL (a gate or a paused claim too)."""
        from .quick import RenewDialog

        self._on_claim("renew", lambda claim: RenewDialog(claim, self.brain_app.snapshot))

    def action_send_signal(self) -> None:
        """Send a signal: from the selected claim (else this instance), to its parent when it has one."""
        from .quick import SendSignalDialog

        app = self.brain_app
        claim = app.claim(self.selected_claim_id())
        sender = claim.sess_id if claim is not None else app.brain.instance
        to = claim.parent or "" if claim is not None else ""
        self._push(SendSignalDialog(sender, to))

    def action_launch(self) -> None:
        """Launch an agent for the selected open claim, or for the claim a selected HANDOFF asks for."""
        from .launch import LaunchDialog

        sig = self.selected_signal()
        if sig is not None:
            if sig.type != "HANDOFF":
                self.notify("launch: select a claim or a HANDOFF signal", severity="warning", markup=False)
                return
            self._push(LaunchDialog(signal=sig))
            return
        claim = self.target_claim("launch")
        if claim is not None:
            self._push(LaunchDialog(claim=claim))

    def action_attach(self) -> None:
        """Show the tmux window of the selected claim's launched agent."""
        from .launch import attach

        claim = self.target_claim("attach")
        if claim is not None:
            attach(self.brain_app, claim.sess_id)

    def action_answer_agent(self) -> None:
        """Write a reply into the tmux pane of the selected claim's launched agent."""
        from .agent_pane import AnswerDialog

        claim = self.target_claim("write to agent")
        if claim is not None and self._launched(claim, "write to agent"):
            self._push(AnswerDialog(claim))

    def _launched(self, claim: Claim, what: str) -> bool:
        """True when an agent launched from this machine runs for `claim`; else the pilot is told at once (not
        after typing a reply into a dialog)."""
        from brain_tui.core.errors import BsiError

        try:
            self.brain_app.brain.launches.find_running(claim.sess_id)
        except BsiError as exc:
            self.notify(f"{what}: {safe_str(exc.message, 200)} (L launches one)", severity="warning", markup=False)
            return False
        return True

    def action_interrupt_agent(self) -> None:
        """Interrupt the selected claim's launched agent (asks first)."""
        self._pane_confirm("interrupt")

    def action_stop_agent(self) -> None:
        """Stop the selected claim's launched agent (asks first; the claim stays)."""
        self._pane_confirm("stop")

    def _pane_confirm(self, action: str) -> None:
        from .agent_pane import PaneConfirmDialog

        claim = self.target_claim(f"{action} agent")
        if claim is not None and self._launched(claim, f"{action} agent"):
            self._push(PaneConfirmDialog(claim, action))

    def action_detail(self) -> None:
        """The detail view of the selected claim or signal, once the keys typed before enter have moved the cursor.

        Enter is a priority key: the app runs it as it arrives, while a table's moves typed just before it (`down
        down enter` in one burst) are bindings the app runs only once their keys have gone round the widgets. The
        view opens behind them (`KeysRead`), on the row the cursor reached."""
        after_keys(self, self._open_detail)

    @on(KeysRead)
    def _keys_read(self, message: KeysRead) -> None:
        """The keys typed before a priority key went round: its action runs (`editing.relay`)."""
        relay(message, self.app)

    def _open_detail(self) -> None:
        from .detail import DetailScreen

        if self.app.screen is not self:
            # Another screen came first: a key typed before enter opened it (`K enter`: the ack dialog). The enter
            # is that screen's, as typed: handed on to it, never lost. (Not `is_current`, which a screen keeps
            # under a modal dialog: it still shows there.) Not a palette: it opens on a priority key, so one typed
            # before enter would have taken the enter itself; this one came after (`enter : api`), and an enter
            # handed on would choose a hit the pilot never confirmed.
            if not isinstance(self.app.screen, CommandPalette):
                self.app.post_message(events.Key("enter", "\r"))
            return
        app = self.brain_app
        claim = app.claim(self.selected_claim_id())
        sig = self.selected_signal() if claim is None else None
        if claim is None and sig is None:
            self._nothing_selected("detail", "nothing selected")
            return
        app.push_screen(DetailScreen(app.snapshot, claim=claim, signal=sig))
