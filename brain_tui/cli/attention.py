"""`bsi attention`: everything waiting for a human, ranked by what each unblocks (the cockpit's queue)."""

from __future__ import annotations

import argparse

from brain_tui.cli.common import Context, add_command, one_line, table

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from typing import Any

    from brain_tui.core.rules.attention import AttentionItem


#: The WHAT column's width for an ordinary item (a line of a gate, a signal, a stale claim…).
WHAT_WIDTH = 60
#: The WHAT column's width for an `unreadable` item: its reason, what it holds and its repair command are what a
#: human acts on (a file named by its path makes the command long), so they are kept whole within reason.
UNREADABLE_WHAT_WIDTH = 240


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add `bsi attention`."""
    add_command(sub, parent, "attention", "what waits for a human, most unblocking first", cmd_attention)


def cmd_attention(ctx: Context) -> int:
    """`bsi attention [--json]`: the ranked queue (exit 0, also when it is empty)."""
    from brain_tui.core.rules.attention import describe_time_left

    items = ctx.brain.attention()
    if ctx.json:
        ctx.emit({"items": [item.as_dict() for item in items]})
        return 0
    rows = [[str(rank), item.kind, item.sess_id or item.sig_id or item.path or "—", str(item.unblocks),
             describe_time_left(item.time_left) + (" !" if item.warning else ""), one_line(item.summary, _width(item))]
            for rank, item in enumerate(items, 1)]
    ctx.emit(None, table(rows, ["#", "KIND", "ID", "UNBLOCKS", "TIME LEFT", "WHAT"]) or "nothing waits for a human")
    return 0


def _width(item: AttentionItem) -> int:
    """How much of an item's summary its text row shows: more for a file or claim that does not read."""
    return UNREADABLE_WHAT_WIDTH if item.kind == "unreadable" else WHAT_WIDTH
