"""The cockpit's header (brain, instance, branch, sync state, clock) and the one-line selection bar."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from brain_tui.core.clock import try_parse_timestamp
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.rules.attention import AttentionItem

from ..present import ago, format_clock
from ..safe import safe_text, styled
from ..styles import ACCENT, ERROR, MUTED, STRONG, WARN, with_style

if TYPE_CHECKING:
    from brain_tui.core.environment.env import EnvState
    from brain_tui.core.sync.remote import SyncStatus


def sync_badge(
    sync: SyncStatus | None,
    snapshot: BrainSnapshot,
    *,
    error: str = "",
    busy: str = "",
    compact: bool = False,
    fetched_at: datetime | None = None,
) -> Content:
    """The header's sync state: ahead/behind, the last sync, pending local changes, errors.

    Args:
        sync: `brain.remote.status()` (None when unknown: nothing is shown).
        snapshot: for the clock (ages) and the timezone.
        error: the last sync or fetch error ("" when the last one worked).
        busy: "syncing" while `s` runs ("" otherwise).
        compact: the short form for narrow terminals.
        fetched_at: when this cockpit's last background fetch worked (brain clock): with nothing
            pending, the brain then matches the remote, so it counts as the last sync when newer.

    Returns:
        A Content starting with a space, or an empty Content when the brain has no remote.
    """
    out = Content()
    if sync is None or not sync.has_remote:
        return out
    ahead, behind = sync.ahead or 0, sync.behind or 0
    pending_since = try_parse_timestamp(sync.pending_since, snapshot.tz)
    last = try_parse_timestamp(sync.last_sync, snapshot.tz)
    out += Content.styled(" " if compact else " ⇅ ", MUTED)
    out += Content.styled(f"↑{ahead}", WARN if ahead or pending_since else MUTED)
    out += Content.styled(f"↓{behind}" if compact else f" ↓{behind}", ACCENT if behind else MUTED)
    if busy:
        out += Content.styled(" …" if compact else f" · {busy}…", MUTED)
    elif error:
        out += Content.styled(" ✗" if compact else " · ✗ ", ERROR)
        if not compact:
            out += safe_text(error, 24, style=ERROR)
    elif pending_since is not None or ahead:
        if compact:
            out += Content.styled(" pending", WARN)
        else:
            since = f" since {pending_since.astimezone(snapshot.tz):%H:%M}" if pending_since else ""
            out += Content.styled(f" · {ahead} pending{since}", WARN)
    else:
        # Nothing pending: a background fetch that brought the work tree to the remote tip is a sync too.
        moment = max((m for m in (last, fetched_at) if m is not None), default=None)
        if compact:
            out += Content.styled(f" {ago(moment, snapshot.now)}" if moment else " never synced", MUTED)
        else:
            out = out.append_text(f" · synced {ago(moment, snapshot.now)}" if moment else " · never synced",
                                  style=MUTED)
    return out


def expiry_counts(items: Sequence[AttentionItem]) -> tuple[int, int]:
    """How many items near their expiry are still to come (expiring) and how many are past it (expired): past its
    expiry an item is no longer "expiring", it is expired (stale for every decision). The header and the queue's
    title count the same."""
    expired = sum(1 for item in items if item.warning and item.time_left is not None
                  and item.time_left <= timedelta(0))
    return sum(1 for item in items if item.warning) - expired, expired


def header_text(
    *,
    brain_name: str,
    instance: str,
    branch: str,
    snapshot: BrainSnapshot,
    readonly: bool,
    hint: str = "",
    env: EnvState | None = None,
    width: int = 120,
    sync: SyncStatus | None = None,
    sync_error: str = "",
    sync_busy: str = "",
    fetched_at: datetime | None = None,
    queue: Sequence[AttentionItem] | None = None,
    unreadable: bool = False,
) -> Content:
    """The header line: brain, instance, `branch`, READ-ONLY, `hint` (e.g. "demo"), the sync badge (`sync_badge`;
    `env`'s ahead/behind when `sync` is unknown), what needs the pilot (`queue`: counted, and those close to
    expiry) and the clock right-aligned in `width`. `unreadable`: the last read of the brain failed (its folder
    is gone): what is shown is the last state read."""
    compact = width < 100
    left = styled("◆ " if compact else "◆ brain-tui ", STRONG) + safe_text(brain_name, 30, style=ACCENT)
    if hint:
        left += safe_text(f" ({hint})", 20, style=MUTED)
    left += Content.styled(" · ", MUTED)
    left += safe_text(instance.partition("@")[2] or instance if compact else instance, 40)
    if branch:
        left += Content.styled(" · ⎇ ", MUTED) + safe_text(branch, 30)
    git = env.git_reading if env is not None else None
    if sync is not None:
        left = left.append(sync_badge(sync, snapshot, error=sync_error, busy=sync_busy, compact=compact,
                                      fetched_at=fetched_at))
    elif git is not None and (git.ahead is not None or git.behind is not None):
        left += safe_text(f" ↑{git.ahead or 0}↓{git.behind or 0}", 16, style=MUTED)
    if readonly:
        left += Content.styled("  READ-ONLY", WARN)
    items = list(queue or ())
    expiring, expired = expiry_counts(items)
    right = Content()
    if items:
        right += Content.styled(f"⚑ {len(items)}" + ("  " if compact else " need you  "), WARN)
    if expiring:
        right += Content.styled(f"⏳ {expiring}" + ("  " if compact else " expiring  "), with_style(ERROR, "reverse"))
    if expired:
        right += Content.styled(f"⌛ {expired}" + ("  " if compact else " expired  "), ERROR)
    if snapshot.corrupt:
        right += Content.styled(f"✗ {len(snapshot.corrupt)}" + ("  " if compact else " corrupt  "), ERROR)
    if unreadable:
        right += Content.styled("✗ unread  " if compact else "✗ brain unreadable: last state shown  ",
                                with_style(ERROR, "reverse"))
    clock = format_clock(snapshot.now, snapshot.tz)
    right += Content.styled(clock[11:] if compact else clock, STRONG)
    gap = width - left.cell_length - right.cell_length
    if gap < 1:
        left = left.truncate(max(10, width - right.cell_length - 1), ellipsis=True)
        gap = max(1, width - left.cell_length - right.cell_length)
    left += " " * gap
    left += right
    return left


class BrainHeader(Static):
    """One line at the top of every screen, drawn at its own width (a resize never loses the counters)."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Content(""), id=id, markup=False)

    def render(self) -> Content:
        """The app's header line for this widget's current width."""
        app = self.app
        line = getattr(app, "header_line", None)
        if line is None:
            return Content("")
        return line(app.snapshot, self.content_region.width or app.size.width - 2)  # type: ignore[attr-defined,no-any-return]


class SelectionBar(Static):
    """One line above the footer: the full ID, status and story of the selected claim or signal."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Content(""), id=id, markup=False)
