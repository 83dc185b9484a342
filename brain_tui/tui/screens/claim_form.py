"""The open-claim form: scope, TTL class, type, parent, story — with a live conflict preview while typing."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, Select, Static

from brain_tui.core.brain import Brain
from brain_tui.core.clock import format_duration, parse_duration
from brain_tui.core.errors import BsiError
from brain_tui.core.paths.scope import parse_scope_args
from brain_tui.core.record import record, replace
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.rules import claims
from brain_tui.core.rules.conflicts import Conflict

from ..present import short_id
from ..safe import field_value, safe_text, styled, withheld
from ..styles import ERROR, MUTED, OK, WARN
from .dialog import FormDialog

TTL_CHOICES = (("2h — short session", "2h"), ("4h — deep work", "4h"), ("8h — long (architecture, migration)", "8h"))
AUTO = "auto"


@record
class OpenDefaults:
    """What the form starts with (a selected pilot as parent, a HANDOFF signal's scope…)."""

    scope: str = ""
    parent: str = ""
    satellite_type: str = AUTO
    story: str = ""
    claim_type: str = AUTO
    #: A pilot/domain selected when `o` was pressed: offered as the parent (ctrl+r), never filled in silently.
    suggested_parent: str = ""


def holder_parent(brain: Brain, req: claims.OpenRequest, conflicts: list[Conflict], snapshot: BrainSnapshot) -> str:
    """The first conflicting holder the core would open `req` under without a conflict, else "".

    Who may take a child, and whether its tree then delegates the scope, is the core's to say: the open is dry-run
    under each holder (`Brain.preview_open`), in the snapshot in memory.
    """
    for holder in dict.fromkeys(c.sess_id for c in conflicts[:8] if c.sess_id != req.parent):
        try:
            if not brain.preview_open(replace(req, parent=holder), snapshot):
                return holder
        except BsiError:
            continue  # no parent for it (ended, unreadable, a solo claim asked for…)
    return ""


class OpenClaimScreen(FormDialog):
    """Open a claim through `Brain.open_claim`, previewing conflicts with `Brain.check_scope` as you type.

    The brain is read while it is open (`follows_brain`): a claim opened or closed elsewhere meanwhile shows in the
    preview and in the parent ctrl+r offers.
    """

    last_field = "story"
    follows_brain = True

    BINDINGS = [
        *FormDialog.BINDINGS,
        Binding("ctrl+s", "submit", "Open claim", id="open-submit"),
        Binding("ctrl+r", "use_parent", "Use the offered parent", id="open-use-parent"),
    ]

    def __init__(self, defaults: OpenDefaults | None = None) -> None:
        super().__init__()
        self.defaults = defaults or OpenDefaults()
        #: The session ID the core gave the claim once it opened (None until then).
        self.opened_id: str | None = None
        #: A conflicting holder the core would open this claim under without a conflict (`update_preview`).
        self.offered_parent = ""
        #: The brain as last read while the form is open (None: the app's snapshot, as the form was opened).
        self.arrived: BrainSnapshot | None = None

    def compose(self) -> ComposeResult:
        d = self.defaults
        app = self.brain_app
        ttl_default = format_duration(app.brain.config.ttl_default)
        ttl_options = list(TTL_CHOICES)
        if ttl_default not in {v for _, v in ttl_options}:
            ttl_options.insert(0, (f"{ttl_default} — brain default", ttl_default))
        with Vertical(id="dialog-box", classes="form"):
            yield self.title_line("Open a claim")
            with VerticalScroll(id="form-fields"):
                yield Label(withheld("Scope (dir/, file, file.md#Section; several separated by spaces)", d.scope),
                            markup=False)
                yield Input(compact=True, value=field_value(d.scope), placeholder="e.g. brain-engine/api/", id="scope")
                with Horizontal(classes="row"):
                    with Vertical():
                        yield Label(Content("TTL"), markup=False)
                        yield Select(ttl_options, value=ttl_default, allow_blank=False, id="ttl")
                    with Vertical():
                        yield Label(Content("Type"), markup=False)
                        yield Select([("auto", AUTO), *((t, t) for t in claims.CLAIM_TYPES)],
                                     value=d.claim_type, allow_blank=False, id="type")
                with Horizontal(classes="row"):
                    with Vertical():
                        yield Label(Content("Satellite type"), markup=False)
                        yield Select([("none", AUTO), *((t, t) for t in claims.SATELLITE_TYPES)],
                                     value=d.satellite_type, allow_blank=False, id="satellite-type")
                    with Vertical():
                        yield Label(Content("Level"), markup=False)
                        yield Select([("auto", AUTO), ("leaf", "leaf"), ("domain", "domain")], value=AUTO,
                                     allow_blank=False, id="level")
                yield Label(self._parent_help(), markup=False, id="parent-help")
                yield Input(compact=True, value=field_value(d.parent), placeholder="none: a standalone claim",
                            id="parent")
                yield Label(Content("Slug (the end of the ID; empty: 4 random characters)"), markup=False)
                yield Input(compact=True, placeholder="e.g. api-search", id="slug")
                yield Label(Content("Story (what this session is doing)"), markup=False)
                yield Input(compact=True, value=d.story, placeholder="e.g. Implement /search with pagination",
                            id="story")
            yield Static(Content(""), id="preview", markup=False, classes="preview")
            yield from self.foot("Open claim", "ctrl+s open · tab next field · esc cancel")

    def _parent_help(self) -> Content:
        parent_help = "Parent (a session ID; empty: a standalone claim)"
        if offered := self.offered_parent or self.defaults.suggested_parent:
            parent_help += f" · ctrl+r: under {offered.split('-', 3)[-1]}"
        return withheld(safe_text(parent_help, 200).plain, self.defaults.parent)

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#scope", Input).focus()
        self.update_preview()

    # -- reading the form ---------------------------------------------------------------------
    def _value(self, widget_id: str) -> str:
        widget = self.query_one(f"#{widget_id}")
        if isinstance(widget, Input):
            return widget.value.strip()
        value = widget.value if isinstance(widget, Select) else ""
        return "" if value in (AUTO, Select.BLANK) else str(value)

    def build_request(self) -> claims.OpenRequest:
        """The OpenRequest the form describes (`BsiError`: the scope or TTL does not parse, in the core's words)."""
        app = self.brain_app
        scope_text = self._value("scope")
        if not scope_text:
            from brain_tui.core.errors import InvalidData

            raise InvalidData("a claim needs a scope")
        # the text as typed: the core refuses a control character str.strip would have trimmed (U+001F, NEL)
        return claims.OpenRequest(
            scope=parse_scope_args([self.query_one("#scope", Input).value], app.brain.root),
            ttl=parse_duration(self._value("ttl") or "2h"),
            instance=app.brain.instance,
            type=self._value("type") or None,
            satellite_type=self._value("satellite-type") or None,
            level=self._value("level") or None,
            parent=self._value("parent") or None,
            story=self.query_one("#story", Input).value,
            slug=self._value("slug") or None,
        )

    # -- live preview -------------------------------------------------------------------------
    def snapshot_arrived(self, snapshot: BrainSnapshot) -> None:
        """A fresh read while the form is open: the preview speaks of the brain as it is now."""
        self.arrived = snapshot
        if self.is_mounted and not self.busy:
            self.update_preview()

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self) -> None:
        self.update_preview()

    def update_preview(self) -> None:
        """Show what the core says about this scope now: conflicts, or why the request is invalid."""
        app = self.brain_app
        preview = self.query_one("#preview", Static)
        self._offer("")
        if not self._value("scope"):
            preview.update(styled("Conflict preview: type a scope.", MUTED))
            return
        try:
            req = self.build_request()
            snapshot = self.arrived or app.snapshot  # in memory: no file is read per keystroke
            conflicts = app.brain.preview_open(req, snapshot)
        except BsiError as exc:
            preview.update(safe_text(exc.message, 400, style=WARN, multiline=True))
            return
        self._offer(holder_parent(app.brain, req, conflicts, snapshot))
        if not conflicts:
            preview.update(styled("✓ no conflict: no blocking claim intersects this scope", OK))
            return
        out = styled(f"✗ {len(conflicts)} conflict(s) — the core will refuse this claim:", ERROR)
        for conflict in conflicts[:8]:
            out += "\n  "
            out += safe_text(short_id(conflict.sess_id, snapshot.now, snapshot.tz), 40, style="bold") + " "
            out += safe_text(conflict.instance or "?", 40) + " holds " + safe_text(conflict.scope, 60)
            out += safe_text(f" [{conflict.status}, {conflict.overlap}]", 40, style=MUTED)
        if len(conflicts) > 8:
            out += f"\n  … {len(conflicts) - 8} more"
        if self.offered_parent:
            out += "\n" + self._offer_line()
        preview.update(out)

    def _offer(self, holder: str) -> None:
        if holder != self.offered_parent:
            self.offered_parent = holder
            self.query_one("#parent-help", Label).update(self._parent_help())

    def _offer_line(self) -> Content:
        slug = self.offered_parent.split("-", 3)[-1]
        return safe_text(f"ctrl+r: open it under {slug}, which holds the scope and may delegate it", 200, style=OK)

    def show_error(self, message: str) -> None:
        """The core's refusal; a conflict with a holder this claim may open under says ctrl+r takes it."""
        if self.offered_parent and message.startswith("claim refused"):
            message += f"\n{self._offer_line().plain}"
        super().show_error(message)

    def action_use_parent(self) -> None:
        """ctrl+r: the conflicting holder offered (`offered_parent`), else the pilot/domain selected when the form
        was opened, as the parent."""
        if parent := self.offered_parent or self.defaults.suggested_parent:
            self.query_one("#parent", Input).value = field_value(parent)

    # -- submit -------------------------------------------------------------------------------
    def action_submit(self) -> None:
        """Ask the core to open the claim."""
        try:
            req = self.build_request()
        except BsiError as exc:
            self.show_error(exc.message)
            return
        def opened(sess_id: str) -> str:
            self.opened_id = sess_id  # the screen below lands its cursor on it (`ClaimActions.land_on`)
            return f"opened {sess_id}"

        self.submit_core("open", lambda brain: brain.open_claim(req), opened)
