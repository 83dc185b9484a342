"""The cockpit's header (brain, instance, branch, sync state, clock) and the one-line selection bar."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from brain_tui.core.attention import AttentionItem
from brain_tui.core.clock import try_parse_timestamp
from brain_tui.core.env import EnvState
from brain_tui.core.model import BrainSnapshot
from brain_tui.core.remote import SyncStatus

from ..present import Palette, age, format_clock
from ..safe import safe_text, styled


def sync_badge(
    sync: SyncStatus | None,
    snapshot: BrainSnapshot,
    palette: Palette,
    *,
    error: str = "",
    busy: str = "",
    compact: bool = False,
    fetched_at: datetime | None = None,
) -> Text:
    """The header's sync state: ahead/behind, the last sync, pending local changes, errors.

    Args:
        sync: `brain.remote.status()` (None when unknown: nothing is shown).
        snapshot: for the clock (ages) and the timezone.
        palette: theme styles.
        error: the last sync or fetch error ("" when the last one worked).
        busy: "syncing" while `s` runs ("" otherwise).
        compact: the short form for narrow terminals.
        fetched_at: when this cockpit's last background fetch worked (brain clock): with nothing
            pending, the brain then matches the remote, so it counts as the last sync when newer.

    Returns:
        A Text starting with a space, or an empty Text when the brain has no remote.
    """
    out = Text(end="")
    if sync is None or not sync.has_remote:
        return out
    ahead, behind = sync.ahead or 0, sync.behind or 0
    pending_since = try_parse_timestamp(sync.pending_since, snapshot.tz)
    last = try_parse_timestamp(sync.last_sync, snapshot.tz)
    out.append(" " if compact else " ⇅ ", style=palette.muted)
    out.append(f"↑{ahead}", style=palette.warn if ahead or pending_since else palette.muted)
    out.append(f"↓{behind}" if compact else f" ↓{behind}", style=palette.accent if behind else palette.muted)
    if busy:
        out.append(" …" if compact else f" · {busy}…", style=palette.muted)
    elif error:
        out.append(" ✗" if compact else " · ✗ ", style=palette.error)
        if not compact:
            out.append_text(safe_text(error, 24, style=palette.error))
    elif pending_since is not None or ahead:
        if compact:
            out.append(" pending", style=palette.warn)
        else:
            since = f" since {pending_since.astimezone(snapshot.tz):%H:%M}" if pending_since else ""
            out.append(f" · {ahead} pending{since}", style=palette.warn)
    else:
        # Nothing pending: a background fetch that brought the work tree to the remote tip is a sync too.
        moment = max((m for m in (last, fetched_at) if m is not None), default=None)
        if compact:
            out.append(f" {age(moment, snapshot.now)} ago" if moment else " never synced", style=palette.muted)
        else:
            out.append(f" · synced {age(moment, snapshot.now)} ago" if moment else " · never synced",
                       style=palette.muted)
    return out


def header_text(
    *,
    brain_name: str,
    instance: str,
    branch: str,
    snapshot: BrainSnapshot,
    palette: Palette,
    readonly: bool,
    hint: str = "",
    env: EnvState | None = None,
    width: int = 120,
    sync: SyncStatus | None = None,
    sync_error: str = "",
    sync_busy: str = "",
    fetched_at: datetime | None = None,
    queue: Sequence[AttentionItem] | None = None,
) -> Text:
    """The header line.

    Args:
        brain_name: the brain's name.
        instance: this cockpit's instance.
        branch: the git branch ("" when unknown).
        snapshot: for the clock and counts.
        palette: theme styles.
        readonly: show the READ-ONLY badge.
        hint: e.g. "demo".
        env: the environment reading (ahead/behind, when `sync` is unknown).
        width: the header's width (the clock is right-aligned).
        sync: `brain.remote.status()` — ahead/behind, last sync, pending changes.
        sync_error: the last sync or background fetch error.
        sync_busy: set while `s` runs.
        fetched_at: when the last background fetch worked.
        queue: what needs the pilot (`Brain.attention`): counted, and those close to expiry.
    """
    compact = width < 100
    left = styled("◆ " if compact else "◆ brain-tui ", palette.strong)
    left.append_text(safe_text(brain_name, 30, style=palette.accent))
    if hint:
        left.append_text(safe_text(f" ({hint})", 20, style=palette.muted))
    left.append(" · ", style=palette.muted)
    left.append_text(safe_text(instance.partition("@")[2] or instance if compact else instance, 40))
    if branch:
        left.append(" · ⎇ ", style=palette.muted)
        left.append_text(safe_text(branch, 30))
    git = env.git_reading if env is not None else None
    if sync is not None:
        left.append_text(sync_badge(sync, snapshot, palette, error=sync_error, busy=sync_busy, compact=compact,
                                    fetched_at=fetched_at))
    elif git is not None and (git.ahead is not None or git.behind is not None):
        left.append_text(safe_text(f" ↑{git.ahead or 0}↓{git.behind or 0}", 16, style=palette.muted))
    if readonly:
        left.append("  READ-ONLY", style=palette.warn)
    items = list(queue or ())
    expiring = sum(1 for item in items if item.warning)
    right = Text(end="")
    if items:
        right.append(f"⚑ {len(items)}" + ("  " if compact else " need you  "), style=palette.warn)
    if expiring:
        right.append(f"⏳ {expiring}" + ("  " if compact else " expiring  "), style=palette.error + Style(reverse=True))
    if snapshot.corrupt:
        right.append(f"✗ {len(snapshot.corrupt)}" + ("  " if compact else " corrupt  "), style=palette.error)
    clock = format_clock(snapshot.now, snapshot.tz)
    right.append(clock[11:] if compact else clock, style=palette.strong)
    gap = width - left.cell_len - right.cell_len
    if gap < 1:
        left.truncate(max(10, width - right.cell_len - 1), overflow="ellipsis")
        gap = max(1, width - left.cell_len - right.cell_len)
    left.append(" " * gap)
    left.append_text(right)
    return left


class BrainHeader(Static):
    """One line at the top of every screen, drawn at its own width (a resize never loses the counters)."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Text("", end=""), id=id, markup=False)

    def render(self) -> Text:
        """The app's header line for this widget's current width."""
        app = self.app
        line = getattr(app, "header_line", None)
        if line is None:
            return Text("", end="")
        return line(app.snapshot, self.content_region.width or app.size.width - 2)  # type: ignore[attr-defined,no-any-return]

    def update_line(self) -> None:
        """Draw again with the app's current snapshot."""
        self.refresh()


class SelectionBar(Static):
    """One line above the footer: the full ID, status and story of the selected claim or signal."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Text("", end=""), id=id, markup=False)
