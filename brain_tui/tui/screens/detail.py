"""Detail view of a claim (or a signal): its file, gate history, result, git log and scope drift."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from brain_tui.core.errors import InvalidData, NotFound
from brain_tui.core.record import record
from brain_tui.core.records.model import BrainSnapshot, Claim, Signal
from brain_tui.core.records.views import shown_file
from brain_tui.core.sessions.transcript import Peek
from brain_tui.core.sync.audit import DriftReport

from .. import sources
from ..commands import bindings_for
from ..describe import children_text, claim_summary, result_text, signal_details
from ..live import peek_text
from ..safe import safe_text, styled
from ..styles import ACCENT, ERROR, MUTED, OK, STRONG
from ..widgets.footer import FittingFooter
from .actions import ClaimActions


@record(frozen=False)
class FileRead(Message):
    """The raw file of the claim or signal shown."""

    text: str


@record(frozen=False)
class GitRead(Message):
    """The claim's git log and its scope drift (`drift` None: `note` says why)."""

    lines: list[str]
    drift: DriftReport | None
    note: str


@record(frozen=False)
class PeekRead(Message):
    """`Brain.peek` of the claim shown (`bound` False: no bound agent session reported; `note`: why the read
    failed, "" when it worked)."""

    peek: Peek | None
    bound: bool
    note: str = ""


#: Seconds between two reads of the Peek block while the detail stays open (the live sessions' own period).
PEEK_REFRESH_S = 5.0


class DetailScreen(ClaimActions):
    """Everything about one claim or signal; the claim keys act on it (a, x, c, r, p, u, X, R, K); esc or q
    goes back."""

    BINDINGS = [
        *bindings_for("detail"),
        Binding("escape", "back", "Back", id="detail-back"),
        Binding("q", "back", "Back", id="detail-back-q"),
        Binding("backspace", "back", "Back", show=False, id="detail-back-2"),
    ]

    def __init__(self, snapshot: BrainSnapshot, claim: Claim | None = None, signal: Signal | None = None) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.claim = claim
        self.signal = signal

    def selected_claim_id(self) -> str | None:
        """The claim shown (for a signal: none; the keys then act on its sender)."""
        return self.claim.sess_id if self.claim is not None else None

    def selected_signal_id(self) -> str | None:
        """The signal shown."""
        return self.signal.sig_id if self.signal is not None else None

    def compose(self) -> ComposeResult:
        app, snapshot = self.brain_app, self.snapshot
        with VerticalScroll(id="detail"):
            if self.claim is not None:
                claim = self.claim
                yield Static(claim_summary(claim, snapshot), id="summary", markup=False, classes="section")
                # Shown once `Brain.peek` (in a worker) finds a bound agent session.
                yield Static(styled("Peek", "bold"), id="peek-heading", markup=False, classes="heading")
                yield Static(Content("loading…"), id="peek", markup=False, classes="section")
                yield Static(styled("Gate history", "bold"), markup=False, classes="heading")
                yield Static(self._history(claim), id="gate-history", markup=False, classes="section")
                yield Static(styled("Result", "bold"), markup=False, classes="heading")
                yield Static(result_text(claim), id="result", markup=False, classes="section")
                yield Static(styled("Satellites", "bold"), markup=False, classes="heading")
                yield Static(children_text(claim, snapshot), id="children", markup=False, classes="section")
                yield Static(styled("Git log", "bold"), markup=False, classes="heading")
                yield Static(Content("loading…"), id="git-log", markup=False, classes="section")
                yield Static(styled("Scope drift (verify)", "bold"), markup=False, classes="heading")
                yield Static(Content("loading…"), id="verify", markup=False, classes="section")
                path = claim.path
            else:
                assert self.signal is not None
                yield Static(signal_details(self.signal, snapshot, app.brain.brain_name),
                             id="summary", markup=False, classes="section")
                path = self.signal.path
            heading = styled("File ", "bold") + safe_text(path, 120, style="bold")
            yield Static(heading, markup=False, classes="heading")
            self._path = path
            yield Static(Content("loading…"), id="file", markup=False, classes="section file")
        yield FittingFooter()

    def _history(self, claim: Claim) -> Content:
        entries = claim.gate_history
        if not entries:
            return styled("no gate events", MUTED)
        out = Content()
        for index, entry in enumerate(entries):
            if index:
                out += "\n"
            out += safe_text("?" if entry.ts is None else entry.ts, 32, style=MUTED) + " "
            out += safe_text(entry.event or "?", 20, style=STRONG) + " " + safe_text(entry.by or "?", 60)
            if entry.message:
                out += " — "
                out += safe_text(entry.message, 300)
        return out

    def on_mount(self) -> None:
        """Read the file, the git log and the drift report in threads (the disk and git may be slow)."""
        self._load_file(self._path)
        if self.claim is not None:
            for block in ("#peek-heading", "#peek"):
                self.query_one(block).display = False
            self._load_peek(self.claim.sess_id)
            self._load_git(self.claim)
            if self.brain_app.live:  # no timer in tests and screenshots (they call `refresh_peek`)
                self.set_interval(PEEK_REFRESH_S, self.refresh_peek)

    def refresh_peek(self) -> None:
        """Read the peek again while the detail stays open (a worker thread; a read still running is replaced)."""
        if self.claim is not None:
            self._load_peek(self.claim.sess_id)

    @work(thread=True, exclusive=True, group="detail-peek", exit_on_error=False)
    def _load_peek(self, sess_id: str) -> None:
        """Read the tail of the claim's agent transcript (bounded in bytes by the core), off the UI thread."""
        try:
            self.post_message(PeekRead(self.brain_app.brain.peek(sess_id), True))
        except (NotFound, InvalidData):
            self.post_message(PeekRead(None, False))
        except Exception as exc:  # noqa: BLE001 - an unreadable record: say so, never a traceback
            self.post_message(PeekRead(None, True, str(exc) or type(exc).__name__))

    def on_peek_read(self, event: PeekRead) -> None:
        """The peek arrived: shown only for a claim with a bound agent session."""
        if not event.bound:
            return
        body = (safe_text(f"cannot read the transcript: {event.note}", 200, style=ERROR) if event.note
                else peek_text(event.peek, self.snapshot.now))
        self.query_one("#peek", Static).update(body)
        for block in ("#peek-heading", "#peek"):
            self.query_one(block).display = True

    @work(thread=True, exclusive=True, group="detail-file", exit_on_error=False)
    def _load_file(self, path: str) -> None:
        self.post_message(FileRead(shown_file(self.brain_app.brain.root, path)))

    def on_file_read(self, event: FileRead) -> None:
        """The claim or signal file was read."""
        self.query_one("#file", Static).update(safe_text(event.text, None, multiline=True))

    def show_snapshot(self, snapshot: BrainSnapshot) -> None:
        """Show and act on the claim (or signal) as it is now: a key pressed here, another terminal or a session
        changed it. Its file and git log are read again when it changed."""
        self.snapshot = snapshot
        if self.claim is not None:
            claim = snapshot.claim(self.claim.sess_id) or self.claim
            changed, self.claim = claim != self.claim, claim
            self.query_one("#summary", Static).update(claim_summary(claim, snapshot))
            self.query_one("#children", Static).update(children_text(claim, snapshot))
            if changed:
                self.query_one("#gate-history", Static).update(self._history(claim))
                self.query_one("#result", Static).update(result_text(claim))
                self._load_file(self._path)
                self._load_git(claim)
        if self.signal is not None:
            signal = next((s for s in snapshot.signals if s.sig_id == self.signal.sig_id), self.signal)
            changed, self.signal = signal != self.signal, signal
            self.query_one("#summary", Static).update(signal_details(signal, snapshot, self.brain_app.brain.brain_name))
            if changed:
                self._load_file(self._path)

    @work(thread=True, exclusive=True, group="detail-git", exit_on_error=False)
    def _load_git(self, claim: Claim) -> None:
        app = self.brain_app
        lines = sources.claim_git_log(app.brain, claim)
        drift, note = sources.verify_claim(app.brain, self.snapshot, claim)
        self.post_message(GitRead(lines, drift, note))

    def on_git_read(self, event: GitRead) -> None:
        """The git log and the drift report arrived."""
        lines, drift, note = event.lines, event.drift, event.note
        log = Content()
        for index, line in enumerate(lines[:50]):
            if index:
                log += "\n"
            sha, _, message = line.partition(" ")
            log += safe_text(sha, 12, style=ACCENT) + " " + safe_text(message, 200)
        self.query_one("#git-log", Static).update(log)
        if drift is None:
            self.query_one("#verify", Static).update(safe_text(note, 200, style=MUTED))
            return
        outside = drift.outside
        out = Content()
        if outside:
            out += Content.styled(f"{len(outside)} file(s) changed outside the scope:", ERROR)
            for name in outside[:20]:
                out += "\n  "
                out += safe_text(name, 160)
        else:
            changed = drift.changed
            out += Content.styled(f"no drift ({len(changed)} file(s) changed, all inside the scope)", OK)
        self.query_one("#verify", Static).update(out)

    def action_back(self) -> None:
        """Back to where we came from."""
        self.dismiss(None)
