"""`bsi signal send|list|ack|archive`."""

from __future__ import annotations

import argparse

from brain_tui.cli.common import Context, add_command, one_line, table

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from typing import Any


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the signal commands."""
    sig = sub.add_parser("signal", help="the inter-session signal bus", parents=[parent])
    ssub = sig.add_subparsers(dest="signal_command", metavar="ACTION")
    p = add_command(ssub, parent, "send", "send a signal", cmd_send)
    p.add_argument("--to", required=True)
    p.add_argument("--type", dest="sig_type", required=True)
    p.add_argument("--from", dest="sender")
    p.add_argument("--scope", default="")
    p.add_argument("payload")
    p = add_command(ssub, parent, "list", "list signals", cmd_list)
    p.add_argument("--pending", action="store_true")
    p.add_argument("--to")
    p.add_argument("--all", action="store_true", help="include archived signals")
    add_command(ssub, parent, "ack", "acknowledge (pending → delivered)", cmd_ack, "sig_id").add_argument("--by")
    add_command(ssub, parent, "archive", "archive signals delivered 24h ago or more", cmd_archive)


def cmd_send(ctx: Context) -> int:
    """`bsi signal send`: prints the new ID."""
    from brain_tui.core.records.statuses import BLOCKING_STATUSES
    from brain_tui.core.rules.authority import acting_in, sender_for

    a = ctx.args
    brain = ctx.brain
    sender = a.sender
    if sender is None:  # `--from ''` is a sender given blank: the core refuses it (65)
        acting = acting_in(brain.root)  # an agent speaks as its own live claim by default
        sender = sender_for(acting, brain.instance, brain.snapshot(only_statuses=BLOCKING_STATUSES)
                            if acting.is_agent else None)
    sig_id = brain.signals.send(sender, a.to, a.sig_type, a.payload, a.scope)
    if sig_id is None:
        ctx.say("an identical signal is already pending: not written twice")
        ctx.emit({"sig_id": None, "duplicate": True}, None)
        return 0
    ctx.emit({"sig_id": sig_id}, sig_id)
    return 0


def cmd_list(ctx: Context) -> int:
    """`bsi signal list`."""
    from brain_tui.core.ids import party_text
    from brain_tui.core.records.views import signal_json
    from brain_tui.core.rules.signals import listed_signals

    sigs, corrupt = listed_signals(lambda only: ctx.brain.snapshot(only_statuses=only), ctx.args.to,
                                   ctx.args.pending, ctx.args.all)
    if ctx.json:
        doc: dict[str, Any] = {"signals": [signal_json(s) for s in sigs]}
        if corrupt:  # SPEC 19's shape, plus the corrupt rows when there are any
            doc["corrupt"] = [c.as_dict() for c in corrupt]
        ctx.emit(doc)
        return 0
    rows = [[s.sig_id, s.state, one_line(s.type, 24), one_line(party_text(s.sender), 30),
             one_line(party_text(s.to), 30),
             one_line(s.payload, 50)] for s in sigs]
    rows += [[one_line(c.path, 40), "corrupt", "—", "—", "—", one_line(f"line {c.line}: {c.reason}", 50)]
             for c in corrupt]
    ctx.emit(None, table(rows, ["SIGNAL", "STATE", "TYPE", "FROM", "TO", "PAYLOAD"]) or "no signals")
    return 0


def cmd_ack(ctx: Context) -> int:
    """`bsi signal ack`."""
    from brain_tui.core.records.statuses import BLOCKING_STATUSES, SignalState
    from brain_tui.core.rules.signals import require_signal

    changed = ctx.brain.signals.ack(ctx.args.sig_id, by=ctx.args.by)
    state: str = SignalState.DELIVERED
    if not changed:  # delivered (the live read holds it) or archived (only the whole brain does)
        live = ctx.brain.snapshot(only_statuses=BLOCKING_STATUSES)
        held = next((s for s in live.signals if s.sig_id == ctx.args.sig_id), None)
        state = (held or require_signal(ctx.brain.snapshot(), ctx.args.sig_id)).state
        ctx.say(f"{ctx.args.sig_id} was already acknowledged: it is {state}")
    ctx.emit({"sig_id": ctx.args.sig_id, "state": SignalState.DELIVERED if changed else "unchanged"},
             f"{ctx.args.sig_id} {state}")
    return 0


def cmd_archive(ctx: Context) -> int:
    """`bsi signal archive`."""
    archived = ctx.brain.signals.archive()
    ctx.emit({"archived": archived}, f"{len(archived)} signals archived")
    return 0
