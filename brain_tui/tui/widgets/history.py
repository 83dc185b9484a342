"""The locks pane (file mutexes, SPEC 9) and the closed history, one page at a time."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo

from textual.binding import Binding
from textual.content import Content
from textual.message import Message

from brain_tui.core.records.model import BrainSnapshot, Claim, Lock
from brain_tui.core.rules.locks import holder_ended, holds, is_expired

from ..present import age, countdown, result_of, short_id, status_icon
from ..safe import safe_text
from ..styles import ERROR, MUTED, STRONG
from .table import Col, KeyedTable, Row, timed

#: Sorts a claim with no readable time last.
_NEVER = datetime.min.replace(tzinfo=UTC)
#: Closed claims shown per history page (a DataTable of 10,000 rows costs ~0.9 s to mount).
PAGE_SIZE = 50


class LocksTable(KeyedTable):
    """Every lock file: the file, its holder, when it expires."""

    COLUMNS = (
        Col("file", "File", None, weight=3, min_width=16, keep_end=True),
        Col("holder", "Holder", None, weight=2, min_width=12),
        Col("left", "Expires", 10),
        Col("generation", "Gen", 4, min_table_width=70),
    )


def _keyed_locks(snapshot: BrainSnapshot) -> list[tuple[str, Lock]]:
    """Each lock with its row key, by file: one file can show two copies in force (the committed one and the work
    tree's edit), one row each."""
    keyed: list[tuple[str, Lock]] = []
    keys: set[str] = set()
    for lock in sorted(snapshot.locks, key=lambda item: item.file):
        key = lock.path if lock.path not in keys else f"{lock.path}#{len(keys)}"
        keys.add(key)
        keyed.append((key, lock))
    return keyed


def _expiry(lock: Lock, now: datetime) -> Content:
    """When `lock` expires, counted as a TTL is: "in 40m", "in 1m" in its last minute, "2h ago" once expired
    (from "1m ago"), or "—"."""
    if lock.expires_at is None:
        return safe_text("—", 4, style=MUTED)
    text = countdown(lock.expires_at, now)
    return safe_text(text, 16, style=ERROR if is_expired(lock, now) else None)


def lock_line(snapshot: BrainSnapshot, focused: object) -> Content | None:
    """The selection line of the lock under the cursor of `focused` when it is the locks table, else None."""
    key = focused.selected_key if isinstance(focused, LocksTable) else None
    lock = next((lock for k, lock in _keyed_locks(snapshot) if k == key), None)
    if lock is None:
        return None
    holder = short_id(lock.holder, snapshot.now, snapshot.tz)
    out = safe_text(f"lock {lock.file} · ", 260, style=MUTED) + safe_text(holder, 80, style=STRONG)
    expired = lock.expires_at is not None and is_expired(lock, snapshot.now)
    out += safe_text(" · expired " if expired else " · expires ", 12, style=MUTED) + _expiry(lock, snapshot.now)
    out += safe_text(f" · gen {lock.generation}", 40, style=MUTED)
    if ended := holder_ended(snapshot, lock):
        out += safe_text(f" · holds nothing: its claim is {ended}", 60, style=MUTED)
    if not holds(snapshot, lock):  # expired, or its holder's claim has ended
        out += safe_text(" · `bsi lock cleanup` removes it", 40, style=MUTED)
    return out + safe_text(f" · held by {lock.holder}", 100, style=MUTED)


def lock_rows(snapshot: BrainSnapshot, needle: str = "") -> list[Row]:
    """Rows of the locks table (expired locks are marked, a lock of an ended claim reads "free"; `bsi lock
    cleanup` removes both)."""
    rows: list[Row] = []
    for key, lock in _keyed_locks(snapshot):
        if needle and needle.lower() not in f"{lock.file} {lock.holder}".lower():
            continue
        ended = holder_ended(snapshot, lock)
        # a lock of an ended claim holds nothing, however long it has left: said so, as `bsi lock list` says it
        left = safe_text("free", 16, style=MUTED) if ended and not is_expired(lock, snapshot.now) \
            else _expiry(lock, snapshot.now)
        rows.append((key, {
            "file": safe_text(lock.file, 200),
            "holder": safe_text(short_id(lock.holder, snapshot.now, snapshot.tz), 60, style=STRONG),
            "left": timed(left, lock.expires_at),
            "generation": safe_text(str(lock.generation), 8, style=MUTED),
        }))
    return rows


class HistoryTable(KeyedTable):
    """Closed, failed and released claims, newest first, a page at a time (`[` / `]`)."""

    BINDINGS = [
        Binding("right_square_bracket", "page(1)", "Older", show=False, id="history-older"),
        Binding("left_square_bracket", "page(-1)", "Newer", show=False, id="history-newer"),
    ]
    COLUMNS = (
        Col("status", "", 1),
        Col("id", "ID", 17, wide_width=22),
        Col("scope", "Scope", None, weight=2, min_width=12, keep_end=True),
        Col("when", "Ended", 8),
        Col("result", "Result", 8, min_table_width=80),
        Col("story", "Story", None, weight=3, min_width=10),
    )

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.page = 0
        self.total = 0

    def action_page(self, step: int) -> None:
        """Show the next (older) or previous (newer) page."""
        pages = max(1, -(-self.total // PAGE_SIZE))
        page = min(max(0, self.page + step), pages - 1)
        if page != self.page:
            self.page = page
            self.post_message(HistoryTable.PageChanged())

    class PageChanged(Message):
        """The page changed: the screen redraws the table."""


def ended_at(claim: Claim, tz: tzinfo) -> datetime | None:
    """When a finished claim ended: its close time, else its opening time (naive times in the brain's zone;
    None when neither is readable)."""
    ended = claim.closed_at or claim.opened_at
    if ended is None or ended.tzinfo is not None:
        return ended
    return ended.replace(tzinfo=tz)


def history_rows(claims: Sequence[Claim], now: datetime, tz: tzinfo) -> list[Row]:
    """The rows of one history page, the latest ended first.

    `brain.audit.history_page` pages the finished claims by file name (opening time) without reading the
    others; within the page read, the rows are ordered by when each claim ended.
    """
    rows: list[Row] = []
    for claim in sorted(claims, key=lambda item: ended_at(item, tz) or _NEVER, reverse=True):
        result = result_of(claim)
        ended = ended_at(claim, tz)
        rows.append((claim.sess_id, {
            "status": status_icon(claim.status),
            "id": safe_text(short_id(claim.sess_id, now, tz), 40, style=MUTED),
            "scope": safe_text(claim.scope_text or "—", 200),
            "when": timed(safe_text(age(ended, now, column=True), 10, style=MUTED), ended),
            "result": safe_text(str(result.get("status") or claim.status), 12),
            "story": safe_text(claim.story or "—", 200, style=MUTED),
        }))
    return rows
