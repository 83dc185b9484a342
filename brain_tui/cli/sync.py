"""`bsi sync`, `bsi log [ID]`, `bsi verify ID`."""

from __future__ import annotations

import argparse

from brain_tui.cli.common import Context, add_command, one_line

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from typing import Any


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the git-facing commands."""
    add_command(sub, parent, "sync", "fetch, rebase pending local changes, re-check, push", cmd_sync)
    p = add_command(sub, parent, "log", "audit trail: who changed which claim, when", cmd_log)
    p.add_argument("sess_id", nargs="?")
    p.add_argument("-n", "--limit", type=int, default=50)
    add_command(sub, parent, "verify", "files a session changed outside its scope (exit 13)", cmd_verify, "sess_id")


def cmd_sync(ctx: Context) -> int:
    """`bsi sync`."""
    from brain_tui.core.rules.reconcile import dropped_warning

    report = ctx.brain.remote.sync()
    for renamed in report.renamed:
        ctx.say(f"bsi: {renamed.old} was also opened on another machine, which pushed it first: "
                f"the local claim is now {renamed.new}")
    for item in report.lost:
        winners = ", ".join(f"{w.sess_id} ({w.instance or '?'})" for w in item.winners)
        ctx.say(f"lost while offline: {item.sess_id} on {item.scope} — held first by {winners}; "
                "marked failed")
    for subject in report.dropped:
        ctx.say(f"bsi: {dropped_warning(subject)}")
    for note in report.notes:
        ctx.say(f"bsi: {note}")
    text = f"synced: {'pushed' if report.pushed else 'up to date'}, ahead {report.ahead}, behind {report.behind}"
    ctx.emit(report.as_dict(), text)
    return 10 if report.lost else 0


def cmd_log(ctx: Context) -> int:
    """`bsi log [ID]`."""
    entries = ctx.brain.audit.log(ctx.args.sess_id, limit=ctx.args.limit)
    lines = [f"{e.date[:16].replace('T', ' ')}  {e.commit}  {one_line(e.author, 40)}  {one_line(e.message, 80)}"
             for e in entries]
    ctx.emit({"entries": [e.as_dict() for e in entries]}, "\n".join(lines) or "no history")
    return 0


def cmd_verify(ctx: Context) -> int:
    """`bsi verify ID`: exit 13 on scope drift."""
    from brain_tui.core.errors import ScopeDrift

    report = ctx.brain.audit.verify(ctx.args.sess_id)
    if ctx.json:
        ctx.emit(report.as_dict())
    else:
        lines = [f"{report.sess_id} scope {report.scope}: {len(report.changed)} committed, "
                 f"{len(report.uncommitted)} uncommitted files"]
        lines += [f"  outside scope: {p}" for p in report.outside]
        ctx.emit(None, "\n".join(lines))
    if report.outside:
        ctx.say(f"bsi: {report.sess_id} changed {len(report.outside)} file(s) outside its scope: "
                f"{', '.join(report.outside[:5])}{' …' if len(report.outside) > 5 else ''}")
        return ScopeDrift.exit_code
    return 0
