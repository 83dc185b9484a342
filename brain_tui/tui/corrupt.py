"""Files that do not read, as rows of the stale pane ("human control required") and as a selection line.

A claim file that does not read fails closed in the core: it blocks what it may hold (the whole brain
when nothing can be read from it); a lock file that does not read keeps its file locked; a signal file that does not
read may hide a message. SPEC 13 wants each shown as one row with its path, line and reason; the cockpit lists each
such file among the stale claims, keyed ``corrupt:<path>`` (never a claim's ID, so no claim key acts on it), with
the repair the core names (`records.unreadable.repair_of`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.content import Content

from brain_tui.core.records.model import BrainSnapshot, CorruptFile
from brain_tui.core.records.unreadable import repair_of
from brain_tui.core.rules.unreadable_items import file_name

from .present import short_id
from .safe import safe_text, styled
from .styles import ERROR, MUTED, STRONG, WARN

if TYPE_CHECKING:
    from brain_tui.core.rules.attention import AttentionItem

#: The row key prefix of a file that does not read.
PREFIX = "corrupt:"


def corrupt_icon() -> Content:
    """The mark of a file that does not read, wherever its row is (the stale pane, the queue)."""
    return styled("✗", ERROR)


def corrupt_key(bad: CorruptFile) -> str:
    """The row key of `bad` in the stale pane."""
    return PREFIX + bad.path


def _held(bad: CorruptFile) -> str:
    return " ".join(str(entry) for entry in bad.holds)


def _fix(bad: CorruptFile) -> str:
    """What to do (the core's `repair_of`): the repair command for a claim file; a lock or signal file is fixed or
    removed by hand."""
    return repair_of(bad.path)


def _why(bad: CorruptFile) -> str:
    """Why it does not read, then its repair: a cut at the end gives up the reason's tail first."""
    return f"line {bad.line}: {bad.reason} · {_fix(bad)}"


def item_name(item: AttentionItem, snapshot: BrainSnapshot) -> str:
    """How a row or a toast names a queue item: its claim (short, as the tables show it); for a file that does not
    read, the claim it names, as its stale row does (never its whole path, which wraps at 80 columns); else its
    signal."""
    named = item.sess_id or (file_name(item.path) if item.path else None)
    return short_id(named, snapshot.now, snapshot.tz) if named else (item.sig_id or "—")


def corrupt_what(snapshot: BrainSnapshot, path: str | None) -> Content | None:
    """What the queue says of the file `path` that does not read, in a column that may be narrow: that it does not
    read, then why and its repair (its row names the file; the panel below has the whole text). None when `path`
    is no such file."""
    bad = next((b for b in snapshot.corrupt if b.path == path), None) if path else None
    if bad is None:
        return None
    return styled("does not read · ", ERROR) + safe_text(_why(bad), 300, style=WARN)


def corrupt_rows(snapshot: BrainSnapshot, needle: str = "") -> list[tuple[str, dict[str, Any]]]:
    """One stale-pane row per file that does not read (path, line, reason, what it holds, the repair); `needle`
    filters on the path, the reason and what it holds. A file whose work-tree copy and HEAD's copy both do not read
    is one row, its first entry's (as `corrupt_line` reads it): a row key may be given once."""
    rows: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    for bad in snapshot.corrupt:
        if corrupt_key(bad) in seen or needle and needle.lower() not in f"{bad.path} {bad.reason} {_held(bad)}".lower():
            continue
        seen.add(corrupt_key(bad))
        rows.append((corrupt_key(bad), {
            "status": corrupt_icon(),
            "id": safe_text(short_id(file_name(bad.path), snapshot.now, snapshot.tz), 40),
            "instance": styled("—", MUTED),
            "scope": safe_text(_held(bad) or "—", 120),
            "expired": styled("corrupt", ERROR),
            "action": safe_text(_why(bad), 200, style=WARN),
            "agent": styled("file does not read", MUTED),
        }))
    return rows


def corrupt_line(snapshot: BrainSnapshot, key: str | None) -> Content | None:
    """The selection line of the corrupt row `key`, or None when `key` is not one."""
    if not key or not key.startswith(PREFIX):
        return None
    bad = next((b for b in snapshot.corrupt if corrupt_key(b) == key), None)
    if bad is None:
        return None
    out = styled("✗ ", ERROR) + safe_text(short_id(file_name(bad.path), snapshot.now, snapshot.tz), 40, style=STRONG)
    out += safe_text(f" · line {bad.line}: {bad.reason} · ", 300, style=MUTED) + safe_text(_fix(bad), 200)
    if bad.holds:
        out += safe_text(f" · until repaired it holds {_held(bad)}", 200, style=WARN)
    return out + safe_text(f" · {bad.path}", 200, style=MUTED)
