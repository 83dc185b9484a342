"""Launch and attach from the cockpit (SPEC 20.5): `L` on an open claim or a HANDOFF signal, `A` to attach.

The dialog shows what the core would start (the argv, each argument on its own line, through
safe.py) before anything runs; the core decides whether it may (launch.py).
"""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Label, Static

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError, NotFound
from brain_tui.core.records.model import Claim, Signal
from brain_tui.core.sessions.launch import NoLaunchCommand

from ..safe import safe_str, safe_text
from .dialog import CoreDialog

if TYPE_CHECKING:
    from ..app import BrainApp


#: What the dialog says when brain-compose.yml has no `launch.command` (`bsi launch ID` prints all examples).
NO_COMMAND = ('no launch command configured: add to brain-compose.yml, e.g. launch: {command: [claude, "{prompt}"]} '
              "(`bsi launch ID` prints the examples for Claude Code, Codex and Gemini)")


def refusal_line(exc: BsiError) -> str:
    """The one line the dialog shows for a refusal."""
    if isinstance(exc, NoLaunchCommand):
        return NO_COMMAND
    return exc.message.splitlines()[0] if exc.message else ""


def _plan_text(brain: Brain, sess_id: str) -> tuple[Content, str]:
    """(what would run — one line per argument, line breaks shown as ↵ —, the refusal or "")."""
    try:
        plan = brain.launches.plan(sess_id, tmux=True)
    except BsiError as exc:
        return Content(""), refusal_line(exc)
    out = Content()
    out += safe_text(f"in a new tmux window “{plan.name}”, BSI_SESSION={plan.sess_id}", 200) + "\n"
    for index, arg in enumerate(plan.argv):
        out += Content.styled(f"argv[{index}] ", "dim") + safe_text(arg, 400) + "\n"
    return out, ""


def _handoff_text(app: BrainApp, sig_id: str) -> tuple[Content, str]:
    """(the claim the HANDOFF would open, with the conflicts it meets; the refusal or "")."""
    brain = app.brain
    try:
        brain.launches.check_settings()
        req = brain.launches.handoff_request(sig_id, app.snapshot)
        conflicts = brain.preview_open(req, app.snapshot)
    except BsiError as exc:
        return Content(""), refusal_line(exc)
    scope = " ".join(str(e) for e in req.scope)
    out = safe_text(f"opens a {req.satellite_type} satellite on {scope} under {req.parent or 'no pilot'}, "
                    "acknowledges the signal, then launches it in a new tmux window", 400)
    if conflicts:
        return out, "the claim it asks for would be refused: " + "; ".join(c.describe() for c in conflicts)
    return out, ""


class LaunchDialog(CoreDialog):
    """Confirm a launch: an open claim, or the claim a HANDOFF signal asks for (opened first)."""

    def __init__(self, claim: Claim | None = None, signal: Signal | None = None) -> None:
        super().__init__()
        self.claim = claim
        self.signal = signal
        self.refusal = ""
        self.plan = Content("")

    def compose(self) -> ComposeResult:
        app = self.brain_app
        with app.read_lock:
            if self.signal is not None:
                subject = safe_text(f"{self.signal.sig_id}: {self.signal.payload}", 200)
                self.plan, self.refusal = _handoff_text(app, self.signal.sig_id)
            else:
                assert self.claim is not None
                subject = safe_text(self.claim.sess_id, 80)
                self.plan, self.refusal = _plan_text(app.brain, self.claim.sess_id)
        with Vertical(id="dialog-box", classes="decision"):
            yield self.title_line("Launch", subject)
            with VerticalScroll(id="details"):
                yield Static(self.plan, markup=False, id="launch-plan")
            if self.refusal:
                yield self.refusal_box(self.refusal)
            yield self.error_line()
            with Horizontal(classes="buttons"):
                if not self.refusal:  # under a refusal there is nothing to launch: only a way out
                    yield Button(compact=True, label="Launch", id="submit", variant="warning")
                yield Button(compact=True, label="Close" if self.refusal else "Cancel", id="cancel")
            hint = "enter or esc closes" if self.refusal else "enter on Launch starts it · esc cancels"
            yield Label(Content(hint), classes="hint", markup=False)

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#cancel" if self.refusal else "#submit", Button).focus()

    @on(Button.Pressed, "#submit")
    def _pressed_submit(self) -> None:
        if self.signal is not None:
            sig_id = self.signal.sig_id

            def call(brain: Brain) -> str:
                new_id = brain.launches.open_handoff(sig_id)
                try:
                    record = brain.launches.start(new_id, tmux=True)
                except BsiError as exc:
                    return f"opened {new_id} for {sig_id}; launch refused: {exc.message}"
                return f"opened {new_id} for {sig_id}, launched in tmux window {record.target} — A attaches"

            self.submit_core("launch", call, str)
            return
        assert self.claim is not None
        sess_id = self.claim.sess_id
        self.submit_core("launch", lambda brain: brain.launches.start(sess_id, tmux=True),
                         lambda record: f"launched {sess_id} in tmux window {record.target} — A attaches")


def attach(app: BrainApp, sess_id: str) -> None:
    """Show the tmux window of `sess_id`'s launched agent: switch to it inside tmux, else attach this terminal.

    Outside tmux the cockpit steps aside (suspended) until the window is detached. A `--readonly` cockpit attaches
    a read-only client, inside tmux too: it watches the agent and types nothing into it.
    """
    try:
        command = app.brain.launches.attach_command(sess_id, current_tmux=os.environ.get("TMUX"),
                                                    read_only=app.readonly)
    except BsiError as exc:
        # Nothing launched from here for it: say how to get one (as W, I and E do), unless read-only.
        hint = " (L launches one)" if isinstance(exc, NotFound) and not app.readonly else ""
        app.notify(safe_str(exc.message, 300) + hint, title="attach", severity="warning", markup=False)
        return
    if not command.takes_terminal:
        from brain_tui.core.sessions.tmux import run_tmux

        try:  # on the UI thread: a tmux that does not answer is said within its time limit, never waited for
            done = run_tmux(list(command.argv))
        except BsiError as exc:
            app.notify(safe_str(exc.message, 300), title="attach", severity="error", markup=False)
            return
        if done.returncode != 0:
            app.notify(safe_str(f"tmux: {done.stderr.strip()}", 300), title="attach", severity="error",
                       markup=False)
        return
    env = {k: v for k, v in os.environ.items() if k != "TMUX"}
    try:
        with app.suspend():
            subprocess.run(list(command.argv), env=env, check=False)
    except Exception:  # noqa: BLE001 - SuspendNotSupported (browser cockpit) and the like
        app.notify(f"attach from a terminal: bsi launch --attach {sess_id}", title="attach", severity="warning",
                   markup=False)
