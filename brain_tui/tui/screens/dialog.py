"""CoreDialog: the base of every action dialog — runs one core call (`BrainApp.run_core`), shows a refusal inline."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer
from textual.content import Content
from textual.events import Resize
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from brain_tui.core.brain import Brain
from brain_tui.core.records.model import BrainSnapshot, Claim

from ..editing import EDIT_BINDINGS, edits_focused, queue_edit
from ..messages import CoreDone
from ..present import short_id
from ..safe import safe_text, styled
from ..styles import ERROR

if TYPE_CHECKING:
    from textual.widgets.button import ButtonVariant

    from ..app import BrainApp


class CoreDialog(ModalScreen[str | None]):
    """A modal dialog that ends with one core action (or esc).

    Subclasses compose an ``#error`` Static (see `error_line`) and call `submit_core`. The dialog is dismissed with the
    success message; a refusal stays in the dialog, in the core's words.
    """

    #: Keys typed in one burst (over SSH, or by a fast typist) keep their order: Tab, and Enter in a field where
    #: it moves on (`enter_moves_to`), move focus as soon as they are read (priority bindings), so the keys after
    #: them land in the next field; editing keys: `editing`.
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="dialog-cancel"),
        Binding("tab", "next_field", "Next field", show=False, priority=True, id="form-next"),
        Binding("enter", "enter_moves_on", "Next field", show=False, priority=True, id="form-enter-next"),
        Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True, id="form-previous"),
        # The details above the fields (gate message, result, cascade) scroll from the keyboard, the focus staying
        # on the button or field: on a small terminal what a decision does can sit below their fold.
        Binding("up", "scroll_details(-1)", "Scroll the details up", show=False, id="dialog-details-up"),
        Binding("down", "scroll_details(1)", "Scroll the details down", show=False, id="dialog-details-down"),
        Binding("pageup", "page_details(-1)", "Page the details up", show=False, id="dialog-details-pageup"),
        Binding("pagedown", "page_details(1)", "Page the details down", show=False, id="dialog-details-pagedown"),
        *EDIT_BINDINGS,
    ]
    DEFAULT_CLASSES = "dialog"

    def __init__(self) -> None:
        super().__init__()
        self.busy = False

    @property
    def brain_app(self) -> BrainApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    @staticmethod
    def error_line() -> Static:
        """The widget that shows refusals."""
        line = Static(Text("", end=""), id="error", markup=False, classes="error-line")
        line.display = False
        return line

    @staticmethod
    def title_line(heading: str, subject: Content | None = None) -> Label:
        """The dialog's title: `heading` in bold, then `` — subject`` when there is one."""
        title = styled(f"{heading} — " if subject is not None else heading, "bold")
        return Label(title if subject is None else title + subject, classes="dialog-title", markup=False)

    @staticmethod
    def claim_subject(claim: Claim, snapshot: BrainSnapshot) -> Content:
        """The claim a dialog is about, as its title names it: the short ID, in bold."""
        return safe_text(short_id(claim.sess_id, snapshot.now, snapshot.tz), 60, style="bold")

    @staticmethod
    def refusal_box(refusal: str) -> Static:
        """The core's refusal of the action, known when the dialog opened (its dry run)."""
        return Static(safe_text(f"The core refuses: {refusal}", 400, style=ERROR), markup=False, classes="refusal")

    def foot(self, label: str, hint: str, variant: ButtonVariant = "primary", disabled: bool = False) -> ComposeResult:
        """The dialog's last lines: the refusal line, the `label` (#submit) and Cancel buttons, the keys' hint."""
        yield self.error_line()
        with Horizontal(classes="buttons"):
            yield Button(compact=True, label=label, id="submit", variant=variant, disabled=disabled)
            yield Button(compact=True, label="Cancel", id="cancel")
        yield Label(Content(hint), classes="hint", markup=False)

    def on_mount(self) -> None:
        """Fit the scrolling parts to the terminal; inputs do not blink in tests and screenshots."""
        if not self.brain_app.live:
            for field in self.query(Input):
                field.cursor_blink = False
        self._fit(self.app.size.height)

    def on_resize(self, event: Resize) -> None:
        """Re-fit the scrolling parts when the terminal changes size."""
        self._fit(event.size.height)

    def _fit(self, height: int) -> None:
        # Absolute limits (Textual sizes an auto-height box from the children's own limits). On a small
        # terminal a form whose fields scroll (`#form-fields`) takes the whole height: the preview, the refusal
        # and the buttons stay on screen whatever the preview holds. A form of a few fixed lines (renew, send
        # a signal) stays as tall as its content.
        small = height < 40
        for box in self.query("#dialog-box.form"):
            box.styles.height = "100%" if small and box.query("#form-fields") else "auto"
        for widget in self.query("#form-fields"):
            widget.styles.height = "1fr" if small else "auto"
            widget.styles.max_height = None if small else max(4, int(height * 0.55))
        for widget in self.query("#details"):
            widget.styles.max_height = max(4, int(height * 0.45))
        for widget in self.query(".preview"):
            widget.styles.max_height = max(3, int(height * 0.25))

    def show_error(self, message: str) -> None:
        """Show the core's refusal (or a form error) in the dialog."""
        self.busy = False
        self.query_one("#error", Static).update(safe_text(message, 600, style="bold", multiline=True))
        self.query_one("#error", Static).display = True

    def action_cancel(self) -> None:
        """Close without doing anything."""
        if not self.busy:
            self.dismiss(None)

    #: The optional field a dialog that opens on its action button names in its hint (``tab to the message``):
    #: tab from that button goes straight to it.
    tab_from_submit = ""

    def action_next_field(self) -> None:
        """Tab: the next field (forms may send it somewhere more useful than the next button)."""
        focused = self.focused
        if self.tab_from_submit and focused is not None and focused.id == "submit":
            field = self.query_one(self.tab_from_submit, Input)
            if field.focusable:
                self.set_focus(field)
                return
        self.focus_next()

    def enter_moves_to(self, field: Input) -> Widget | None:
        """Where Enter in the input field `field` sends the focus; None when Enter is the field's own (it submits).

        Args:
            field: the focused input field.

        Returns:
            The widget to focus, or None.
        """
        return None

    def _enter_target(self) -> Widget | None:
        focused = self.focused
        return self.enter_moves_to(focused) if isinstance(focused, Input) else None

    def action_enter_moves_on(self) -> None:
        """Enter in a field where it moves on: focus the next one now, before the keys typed behind it are read."""
        target = self._enter_target()
        if target is not None:
            self.set_focus(target)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """An editing key is the focused input field's (elsewhere it goes on to the focused widget); Enter moves on
        only from a field where it does (elsewhere it is the field's or the button's); the details scroll only in a
        dialog that has them."""
        if action == "edit":
            return edits_focused(self.focused)
        if action == "enter_moves_on":
            return self._enter_target() is not None
        if action in ("scroll_details", "page_details"):
            return bool(self.query("#details"))
        return super().check_action(action, parameters)

    def action_scroll_details(self, lines: int) -> None:
        """↑/↓: the details one line up or down."""
        for details in self.query("#details").results(ScrollableContainer):
            details.scroll_relative(y=lines, animate=False)

    def action_page_details(self, direction: int) -> None:
        """pgup/pgdn: the details one page up or down."""
        for details in self.query("#details").results(ScrollableContainer):
            if direction < 0:
                details.scroll_page_up(animate=False)
            else:
                details.scroll_page_down(animate=False)

    def action_edit(self, name: str, *params: object) -> None:
        """An editing key, queued in the focused input field (`editing.queue_edit`)."""
        queue_edit(self.focused, name, *params)

    @on(Button.Pressed, "#cancel")
    def _pressed_cancel(self) -> None:
        self.action_cancel()

    def submit_core(self, describe: str, call: Callable[[Brain], Any], done: Callable[[Any], str]) -> None:
        """Run `call(brain)` in a thread (`BrainApp.run_core`; `describe` names it in unexpected failures); dismiss
        with `done(result)`, or show the refusal. Read-only was checked when the dialog was opened
        (`ClaimActions._push`)."""
        if self.busy:
            return
        self.busy = True
        line = self.query_one("#error", Static)
        line.update(Text("working…", end=""))
        line.display = True
        self.brain_app.run_core(describe, call, done, reply_to=self)

    @on(CoreDone)
    def _core_done(self, event: CoreDone) -> None:
        """Dismiss with the success message, or show the refusal and stay (the App does not toast it)."""
        event.stop()
        if event.ok:
            self.dismiss(event.message)
        else:
            self.show_error(event.message)


class FormDialog(CoreDialog):
    """A CoreDialog with input fields: Enter moves on, Enter in `last_field` (or Submit) acts.

    Subclasses set `last_field` and implement `action_submit`.
    """

    last_field = ""

    def action_submit(self) -> None:  # pragma: no cover - every form overrides it
        """Run the form's core action."""
        raise NotImplementedError

    @on(Input.Changed)
    @on(Select.Changed)
    def _edited(self) -> None:
        """A refusal speaks of what was submitted: an edit makes it out of date, so it goes."""
        if not self.busy:
            self.query_one("#error", Static).display = False

    def enter_moves_to(self, field: Input) -> Widget | None:
        """Enter in any field but the last moves to the next one."""
        if field.id == self.last_field:
            return None
        chain = self.focus_chain
        return chain[(chain.index(field) + 1) % len(chain)] if field in chain else None

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if event.input.id == self.last_field:
            self.action_submit()

    @on(Button.Pressed, "#submit")
    def _pressed_submit(self) -> None:
        self.action_submit()

