"""BRAIN-INDEX.md: the generated block (SPEC 8) and the legacy signal rows (SPEC 7).

Everything here is a pure function of its arguments: no file I/O, no clock, no locale, no local time. The same
snapshot and display zone give byte-identical text on every machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta, tzinfo

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.text_safety import CONTROL_RE, placeholder
from brain_tui.core.records.statuses import LIVE_STATUSES, TERMINAL_STATUSES, SignalState, Status

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from brain_tui.core.records.model import BrainSnapshot, Claim, Signal

START = "<!-- bsi:generated:start -->"
END = "<!-- bsi:generated:end -->"

#: Placeholder for a missing value.
EMPTY = "—"
#: How far back the history table looks (SPEC 8).
HISTORY_WINDOW = timedelta(days=30)

#: Signal states listed in ``## Signals`` (archived ones are not).
LISTED_SIGNAL_STATES = frozenset({SignalState.PENDING, SignalState.DELIVERED})

H_ACTIVE = "## Claims actifs"
H_STALE = "## Claims stale — contrôle humain requis"
H_SIGNALS = "## Signals — Bus inter-sessions"
H_HISTORY = "## Historique — 30 derniers jours"

COLS_ACTIVE = ("Session", "Instance", "Portée", "Niveau", "Ouvert le", "Expire le", "État")
COLS_STALE = ("Session", "Instance", "Portée", "Expiré le", "Action requise")
COLS_SIGNALS = ("ID", "De", "Pour", "Type", "Concerné", "Payload", "État")
COLS_HISTORY = ("Session", "Instance", "Portée", "Commits", "Ouvert", "Fermé", "Statut")

EMPTY_ACTIVE = "*Aucun claim actif.*"
EMPTY_STALE = "*Aucun claim stale.*"
EMPTY_SIGNALS = "*Aucun signal.*"
EMPTY_HISTORY = "*Aucun historique.*"

_EPOCH_MIN = datetime.min.replace(tzinfo=UTC)

# Characters that end a line for str.splitlines() (and for most editors).
_LINE_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_BREAK_RE = LazyPattern("(?:\r\n|[" + re.escape(_LINE_BREAKS) + "\t])")
# Runs of characters beyond ASCII: the only ones that may be invisible or turn the text around.
_NON_ASCII_RE = LazyPattern("[^\x00-\x7f]+")


# --------------------------------------------------------------------------- cells


def escape_cell(value: object) -> str:
    """Make `value` safe for one markdown table cell.

    Line breaks (CR, LF, tabs and the other Unicode line separators) become a space, other control characters are
    dropped, a bidi, zero-width or other invisible character shows as its placeholder (``⟨U+202E⟩``, SPEC 15),
    ``|`` becomes ``\\|`` and the HTML-comment opener ``<!--`` is written ``<\\!--`` so a cell can never
    forge or hide a generated-block marker. An empty result is ``—``.
    """
    if value is None:
        return EMPTY
    text = value if isinstance(value, str) else str(value)
    if text.isascii() and text.isprintable() and "|" not in text and "<!--" not in text:
        return text.strip() or EMPTY  # nothing to replace (line breaks and controls are not printable)
    text = CONTROL_RE.sub("", _LINE_BREAK_RE.sub(" ", text))
    if not text.isascii():
        text = _NON_ASCII_RE.sub(lambda run: "".join(placeholder(ch) or ch for ch in run.group()), text)
    return text.replace("|", "\\|").replace("<!--", "<\\!--").strip() or EMPTY


def format_moment(moment: datetime | None, display_tz: tzinfo, naive_tz: tzinfo | None = None) -> str:
    """Format `moment` as ``YYYY-MM-DD HH:MM`` in `display_tz` (``—`` when None).

    Built from the numeric fields, never with ``strftime``, so the process locale cannot change it. A naive value is
    read in `naive_tz` (else UTC), never in the machine's local time.
    """
    if moment is None:
        return EMPTY
    if moment.tzinfo is None or moment.utcoffset() is None:
        moment = moment.replace(tzinfo=naive_tz or UTC)
    try:
        shown = moment.astimezone(display_tz)
    except (OverflowError, ValueError):
        shown = moment
    return f"{shown.year:04d}-{shown.month:02d}-{shown.day:02d} {shown.hour:02d}:{shown.minute:02d}"


def _table(columns: Sequence[str], rows: Iterable[Sequence[str]], empty_line: str) -> list[str]:
    """Lines of one markdown table: header, separator, rows; the italic line when empty."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    body = ["| " + " | ".join(row) + " |" for row in rows]
    return lines + body if body else [*lines, "", empty_line]


# --------------------------------------------------------------------------- rows


def _aware(moment: datetime | None, naive_tz: tzinfo) -> datetime | None:
    """`moment` with a zone (naive values read in `naive_tz`)."""
    if moment is None:
        return None
    if moment.tzinfo is None or moment.utcoffset() is None:
        return moment.replace(tzinfo=naive_tz)
    return moment


def _claim_key(claim: Claim, naive_tz: tzinfo) -> tuple[datetime, str]:
    """Sort key of claims: opening time (missing first), then ID."""
    return (_aware(claim.opened_at, naive_tz) or _EPOCH_MIN, claim.sess_id)


def _signal_key(signal: Signal, naive_tz: tzinfo) -> tuple[datetime, str]:
    """Sort key of signals: creation time (missing first), then ID."""
    return (_aware(signal.created_at, naive_tz) or _EPOCH_MIN, signal.sig_id)


def _scope_cell(claim: Claim) -> str:
    """The claim's scope as written, else its parsed entries."""
    text = claim.scope_text or ", ".join(str(entry) for entry in claim.scope)
    return escape_cell(text)


def _level_cell(claim: Claim) -> str:
    """``pilote`` for pilots, else the claim's level."""
    return escape_cell("pilote" if claim.type == "pilote" else claim.level)


def _commit_cell(claim: Claim) -> str:
    """``result.commit`` (a list is joined with commas), else ``—``."""
    commit = claim.result.commit_text if claim.result is not None else None
    return EMPTY if commit is None else escape_cell(commit)


def _who(claim: Claim) -> list[str]:
    """The first three cells of every claim table: session, instance and scope."""
    return [escape_cell(claim.sess_id), escape_cell(claim.instance), _scope_cell(claim)]


def _active_rows(claims: Sequence[Claim], tz: tzinfo, naive_tz: tzinfo) -> list[list[str]]:
    """Rows of ``## Claims actifs``: open, waiting_human and paused claims."""
    return [[*_who(c), _level_cell(c), format_moment(c.opened_at, tz, naive_tz),
             format_moment(c.expires_at, tz, naive_tz), escape_cell(c.status)]
            for c in claims if c.status in LIVE_STATUSES]


def _stale_rows(claims: Sequence[Claim], tz: tzinfo, naive_tz: tzinfo) -> list[list[str]]:
    """Rows of ``## Claims stale``: the release command a human has to run."""
    return [[*_who(c), format_moment(c.expires_at, tz, naive_tz),
             escape_cell(f"bsi claim release {c.sess_id} --reason …")]
            for c in claims if c.status == Status.STALE]


def _history_rows(claims: Sequence[Claim], now: datetime, tz: tzinfo, naive_tz: tzinfo) -> list[list[str]]:
    """Rows of ``## Historique``: terminal claims ended (``closed_at``, else ``opened_at``; neither: left out) in
    the 30 days before `now`; a (skewed) end later than `now` is kept."""
    since = now.replace(tzinfo=naive_tz) - HISTORY_WINDOW if now.tzinfo is None else now - HISTORY_WINDOW
    rows = []
    for c in claims:
        ended = _aware(c.closed_at or c.opened_at, naive_tz)
        if c.status in TERMINAL_STATUSES and ended is not None and ended >= since:
            rows.append([*_who(c), _commit_cell(c), format_moment(c.opened_at, tz, naive_tz),
                         format_moment(c.closed_at, tz, naive_tz), escape_cell(c.status)])
    return rows


def _signal_rows(signals: Sequence[Signal]) -> list[list[str]]:
    """Rows of ``## Signals``: pending and delivered signals (archived ones are not listed)."""
    return [[escape_cell(value) for value in (s.sig_id, s.sender, s.to, s.type, s.scope, s.payload, s.state)]
            for s in signals if s.state in LISTED_SIGNAL_STATES]


# --------------------------------------------------------------------------- block


def render_block(snapshot: BrainSnapshot, display_tz: tzinfo) -> str:
    """Render the generated part of BRAIN-INDEX.md, markers included (SPEC 8).

    Four sections in the SPEC's order, each a heading, a table (header and ``|---|`` separator) and, when the table
    is empty, an ``*Aucun …*`` line. Claims are sorted by opening time then ID, signals by creation time then ID;
    times are ``YYYY-MM-DD HH:MM`` in `display_tz` (naive ones read in ``snapshot.tz``; ``snapshot.now`` anchors the
    history window). The text starts with `START` and ends with `END` (no trailing newline)."""
    naive_tz = snapshot.tz
    claims = sorted(snapshot.claims, key=lambda c: _claim_key(c, naive_tz))
    signals = sorted(snapshot.signals, key=lambda s: _signal_key(s, naive_tz))
    sections = (
        (H_ACTIVE, COLS_ACTIVE, _active_rows(claims, display_tz, naive_tz), EMPTY_ACTIVE),
        (H_STALE, COLS_STALE, _stale_rows(claims, display_tz, naive_tz), EMPTY_STALE),
        (H_SIGNALS, COLS_SIGNALS, _signal_rows(signals), EMPTY_SIGNALS),
        (H_HISTORY, COLS_HISTORY, _history_rows(claims, snapshot.now, display_tz, naive_tz), EMPTY_HISTORY),
    )
    lines = [START]
    for heading, columns, rows, empty_line in sections:
        lines.extend([heading, ""])
        lines.extend(_table(columns, rows, empty_line))
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def apply_block(existing: str | None, block: str) -> str:
    """Put `block` into the text of BRAIN-INDEX.md, keeping everything outside the markers.

    - Markers present: the text from the first `START` to the end of the last
      `END` after it is replaced by `block` (several pairs collapse into one).
    - `START` with no `END` after it: from `START` to the end of the text is replaced.
    - No `START` (a stray `END` alone is ordinary text): ``"\\n" + block + "\\n"``
      is appended; an empty or missing file becomes ``"# BRAIN-INDEX.md\\n\\n" + block + "\\n"``.

    A git conflict whose ``<<<<<<<`` and ``>>>>>>>`` lines fence only the block
    loses those lines with the old blocks (a merge of two regenerated indexes).

    Idempotent: applying the same block twice gives the same text.
    """
    if not existing:
        return "# BRAIN-INDEX.md\n\n" + block + "\n"
    start = existing.find(START)
    if start < 0:
        return existing + "\n" + block + "\n"
    end = existing.rfind(END)
    stop = end + len(END) if end >= start + len(START) else len(existing)
    before, after = _drop_merge_fence(existing[:start], existing[start:stop], existing[stop:])
    return before + block + after


_OURS_RE = LazyPattern(r"(?:^|\n)<{7}(?: [^\n]*)?\n[ \t\n]*$")
_THEIRS_RE = LazyPattern(r"^[ \t\n]*\n>{7}(?: [^\n]*)?(?=\n|$)")
_BLOCK_RE = LazyPattern(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)
_FENCE_MIDDLE_RE = LazyPattern(r"^(?:={7}|\|{7}(?: .*)?)$")


def _drop_merge_fence(before: str, replaced: str, after: str) -> tuple[str, str]:
    """Drop a git conflict's ``<<<<<<<`` / ``>>>>>>>`` lines that fence only the generated block.

    A merge that conflicted inside the block leaves both sides' blocks between the fence lines; the block is
    regenerated, never merged (SPEC 8), so the fence goes with it. A conflict that also holds hand-written text is
    left for the human to resolve.
    """
    ours, theirs = _OURS_RE.search(before), _THEIRS_RE.match(after)
    if ours is None or theirs is None:
        return before, after
    between = _BLOCK_RE.sub("", replaced).splitlines()
    if any(line.strip() and not _FENCE_MIDDLE_RE.match(line.strip()) for line in between):
        return before, after  # hand-written text stood between the blocks: the fence stays as the hint
    kept_before = before[: ours.start()] + ("\n" if ours.group().startswith("\n") else "")
    return kept_before, after[theirs.end():]
