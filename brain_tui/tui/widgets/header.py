"""The cockpit's header (brain, instance, branch, sync state, clock) and the one-line selection bar."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.widgets import Static

from brain_tui.core.model import BrainSnapshot

from ..present import Palette, format_clock
from ..safe import safe_text, styled


def header_text(
    *,
    brain_name: str,
    instance: str,
    branch: str,
    snapshot: BrainSnapshot,
    palette: Palette,
    readonly: bool,
    hint: str = "",
    env: Mapping[str, Any] | None = None,
    width: int = 120,
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
        env: the environment data (ahead/behind).
        width: the header's width (the clock is right-aligned).
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
    git = env.get("git") if isinstance(env, Mapping) else None
    if isinstance(git, Mapping) and (git.get("ahead") is not None or git.get("behind") is not None):
        left.append_text(safe_text(f" ↑{git.get('ahead') or 0}↓{git.get('behind') or 0}", 16, style=palette.muted))
    if readonly:
        left.append("  READ-ONLY", style=palette.warn)
    waiting = sum(1 for c in snapshot.claims if c.status == "waiting_human")
    stale = sum(1 for c in snapshot.claims if c.status == "stale")
    right = Text(end="")
    if waiting:
        right.append(f"⚑ {waiting}" + ("  " if compact else f" gate{'s' if waiting > 1 else ''}  "),
                     style=palette.warn)
    if stale:
        right.append(f"! {stale}" + ("  " if compact else " stale  "), style=palette.error)
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
    """One line at the top of the cockpit."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Text("", end=""), id=id, markup=False)


class SelectionBar(Static):
    """One line above the footer: the full ID, status and story of the selected claim or signal."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(Text("", end=""), id=id, markup=False)
