"""`bsi agent peek|answer|interrupt|stop ID`: read a claim's agent session; type into, interrupt or stop its pane."""

from __future__ import annotations

from brain_tui.cli.common import add_command

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from brain_tui.cli.common import Context


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add `bsi agent peek|answer|interrupt|stop`."""
    agent = sub.add_parser("agent", help="the agent sessions bound to claims", parents=[parent])
    asub = agent.add_subparsers(dest="agent_command", metavar="ACTION")
    add_command(asub, parent, "peek", "what a claim's agent last said and did, and its context runway", cmd_peek,
                "sess_id")
    p = add_command(asub, parent, "answer", "type a reply into the tmux pane of a claim's launched agent, then Enter",
                    cmd_pane, "sess_id", pane_action="answer")
    p.add_argument("text", help="the reply (one line; sent as literal keys)")
    add_command(asub, parent, "interrupt", "press Escape in the pane of a claim's launched agent (stops its turn)",
                cmd_pane, "sess_id", pane_action="interrupt")
    add_command(asub, parent, "stop", "kill the tmux window of a claim's launched agent (the claim stays as it is)",
                cmd_pane, "sess_id", pane_action="stop")


def cmd_pane(ctx: Context) -> int:
    """`bsi agent answer ID TEXT`, `interrupt ID`, `stop ID`: a human's keys to a launched agent's tmux pane.

    Exit 0; 66 without a running tmux launch; 64 for a bad reply; 65 when tmux refuses; 77 from an agent.
    """
    sess_id = ctx.args.sess_id
    action = ctx.args.pane_action
    launches = ctx.brain.launches
    if action == "answer":
        record = launches.answer(sess_id, ctx.args.text)
        done = f"typed the reply into {sess_id}'s pane ({record.target or record.window}) and pressed Enter"
    elif action == "interrupt":
        record = launches.interrupt(sess_id)
        done = f"pressed Escape in {sess_id}'s pane ({record.target or record.window})"
    else:
        record = launches.stop(sess_id)
        done = (f"stopped {sess_id}'s agent (tmux window {record.target or record.window} killed); "
                "the claim stays as it is")
    ctx.emit({"sess_id": sess_id, "action": action, "window": record.window, "target": record.target}, done)
    return 0


def cmd_peek(ctx: Context) -> int:
    """`bsi agent peek ID [--json]`: the peek of the claim's transcript (exit 0; 66 without a bound session)."""
    from brain_tui.core.paths.text_safety import inert_line as inert

    sess_id = ctx.args.sess_id
    peek = ctx.brain.peek(sess_id)
    live = ctx.brain.read_liveness()[sess_id]
    message = inert(live.input_message, 200) if live.input_message else None
    if ctx.json:
        ctx.emit({"sess_id": sess_id, "state": live.state, "agent": live.agent,
                  "input_kind": inert(live.input_kind, 64) if live.input_kind else None, "input_message": message,
                  "transcript": inert(live.transcript, 400) if live.transcript else None,
                  "peek": peek.as_dict() if peek is not None else None})
        return 0
    lines = [f"{sess_id}  {live.state}" + (f" ({inert(live.input_kind, 64)})" if live.input_kind else "")]
    if message:
        lines.append(f"  waits for: {message}")
    if peek is None:
        lines.append("  no transcript read (its hooks named none yet, or it cannot be read)"
                     if live.state != "ended" else "  session ended")
    else:
        if peek.runway is not None:
            lines.append(f"  {peek.runway.describe()}  ({peek.runway.used:,} of {peek.runway.window:,} tokens)")
        if peek.tool is not None:
            when = f" at {peek.tool.at.isoformat()}" if peek.tool.at else ""
            state = "done" if peek.tool.done else "running"
            lines.append(f"  tool: {peek.tool.name} {peek.tool.target} ({state}{when})".rstrip())
        if peek.text:
            when = f" at {peek.text_at.isoformat()}" if peek.text_at else ""
            lines.append(f"  said{when}:")
            lines.extend(f"    {line}" for line in peek.text)
    ctx.emit(None, "\n".join(lines))
    return 0
