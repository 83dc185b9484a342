"""`bsi launch ID`: start an agent for an open claim (SPEC 20.5); `--attach`, `--list`, `--handoff SIG`."""

from __future__ import annotations

import argparse
import os
import sys

from brain_tui.cli.common import Context, table

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from typing import Any

    from brain_tui.core.sessions.launch import LaunchPlan


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add `bsi launch`."""
    p = sub.add_parser("launch", parents=[parent],
                       help="start an agent for an open claim (launch.command in brain-compose.yml)",
                       description="Start an agent for an open claim: launch.command of brain-compose.yml, "
                                   "in a new tmux window named after the slug, with BSI_SESSION and "
                                   "BRAIN_ROOT set. At most 3 launched agents run at once.")
    p.add_argument("sess_id", nargs="?", metavar="ID", help="the open claim to launch")
    p.add_argument("--handoff", metavar="SIG", help="open the claim a HANDOFF signal asks for, then launch it")
    p.add_argument("--dry-run", action="store_true", help="print the argv and environment, start nothing")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--tmux", dest="tmux", action="store_const", const=True, default=None,
                       help="in a new tmux window (the default when tmux is installed)")
    where.add_argument("--here", dest="tmux", action="store_const", const=False,
                       help="in this terminal (this process runs the agent and ends with it)")
    p.add_argument("--attach", action="store_true", help="show the tmux window of the claim's running agent")
    p.add_argument("--list", action="store_true", help="the launched agents still running")
    p.set_defaults(handler=cmd_launch)


def cmd_launch(ctx: Context) -> int:
    """Run `bsi launch`."""
    from brain_tui.core.errors import UsageError
    from brain_tui.core.sessions.launch import NoLaunchCommand

    a = ctx.args
    brain = ctx.brain
    if a.list:
        if a.sess_id or a.handoff or a.attach or a.dry_run or a.tmux is not None:
            raise UsageError("launch --list: takes no claim ID and no other option")
        return _list(ctx)
    if a.attach and (not a.sess_id or a.handoff):
        raise UsageError("launch --attach: give the claim ID (and no --handoff)")
    if bool(a.sess_id) == bool(a.handoff):
        raise UsageError("launch: give a claim ID or --handoff SIG (one of them)")
    if a.handoff and a.dry_run:
        raise UsageError("launch: --dry-run does not go with --handoff (it opens a claim)")
    if a.attach:
        if a.dry_run or a.tmux is not None:
            raise UsageError("launch --attach: --dry-run, --tmux and --here do not go with it")
        attach = brain.launches.attach_command(a.sess_id, current_tmux=os.environ.get("TMUX"))
        if attach.takes_terminal and not sys.stdin.isatty():
            from brain_tui.core.paths.text_safety import inert_line

            raise UsageError("launch --attach: needs a terminal (stdin is not one); from a terminal: "
                             + inert_line(" ".join(attach.argv), 300))
        sys.stdout.flush()
        if attach.takes_terminal:  # a client of its own, even inside tmux (a read-only one, for an agent)
            os.environ.pop("TMUX", None)
        os.execvp(attach.argv[0], list(attach.argv))
    try:
        if a.handoff:
            brain.launches.check_settings()
            sess_id = brain.launches.open_handoff(a.handoff)
            ctx.say(f"bsi: opened {sess_id} for {a.handoff}")
        else:
            sess_id = a.sess_id
        if a.dry_run:
            plan = brain.launches.plan(sess_id, tmux=a.tmux)
            ctx.emit(plan.as_dict(), _dry_run_text(plan))
            return 0
        record = brain.launches.start(sess_id, tmux=a.tmux)
    except NoLaunchCommand:
        return _no_command(ctx)
    ctx.say(f"bsi: {sess_id} launched in tmux window {record.target} ({record.name}); "
            f"attach: bsi launch --attach {sess_id}")
    ctx.emit(record.as_dict(), record.target)
    return 0


def _dry_run_text(plan: LaunchPlan) -> str:
    """What `--dry-run` prints: the argv (one exact, inert quoted argument a line), the environment set, and where."""
    from brain_tui.core.paths.text_safety import quoted_exact

    def shown(value: str) -> str:
        quoted = quoted_exact(value)
        return value if quoted[1:-1] == value else quoted

    lines = [quoted_exact(arg) for arg in plan.argv]
    lines += [f"{key}={shown(value)}" for key, value in plan.env.items()]
    lines.append(f"in a new tmux window {shown(plan.name)}" if plan.tmux else "in this terminal")
    return "\n".join(lines)


def _no_command(ctx: Context) -> int:
    """No `launch.command`: exit 64 with the examples to copy (unprefixed, so they paste as YAML)."""
    import json

    from brain_tui.core.sessions.launch import EXAMPLES

    first, _, rest = EXAMPLES.partition("\n")
    if ctx.json:
        sys.stdout.write(json.dumps({"error": first, "exit": 64, "examples": rest}, ensure_ascii=False) + "\n")
    sys.stderr.write(f"bsi: {first}\n{rest}\n")
    return 64


def _list(ctx: Context) -> int:
    records = ctx.brain.launches.running()
    rows = [[r.sess_id, r.mode, r.target or "-", r.name or "-", str(r.pid), r.started_at] for r in records]
    ctx.emit({"launches": [r.as_dict() for r in records]},
             table(rows, ["ID", "MODE", "TMUX", "WINDOW", "PID", "STARTED"]) or "no launched agent runs")
    return 0
