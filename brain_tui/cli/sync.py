"""`bsi sync`, `bsi log [ID]`, `bsi verify ID`."""

from __future__ import annotations

import argparse
from typing import Any

from brain_tui.cli.common import Context, one_line
from brain_tui.core.errors import ScopeDrift


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the git-facing commands."""
    p = sub.add_parser("sync", help="fetch, rebase pending local changes, re-check, push", parents=[parent])
    p.set_defaults(handler=cmd_sync)
    p = sub.add_parser("log", help="audit trail: who changed which claim, when", parents=[parent])
    p.add_argument("sess_id", nargs="?")
    p.add_argument("-n", "--limit", type=int, default=50)
    p.set_defaults(handler=cmd_log)
    p = sub.add_parser("verify", help="files a session changed outside its scope (exit 13)", parents=[parent])
    p.add_argument("sess_id")
    p.set_defaults(handler=cmd_verify)


def cmd_sync(ctx: Context) -> int:
    """`bsi sync`."""
    report = ctx.brain.remote.sync()
    for renamed in report.renamed:
        ctx.say(f"bsi: {renamed.old} was also opened on another machine, which pushed it first: "
                f"the local claim is now {renamed.new}")
    for item in report.lost:
        winners = ", ".join(f"{w.sess_id} ({w.instance or '?'})" for w in item.winners)
        ctx.say(f"lost while offline: {item.sess_id} on {item.scope} — held first by {winners}; "
                "marked failed")
    text = f"synced: {'pushed' if report.pushed else 'up to date'}, ahead {report.ahead}, behind {report.behind}"
    ctx.emit(report.as_dict(), text)
    return 10 if report.lost else 0


def cmd_log(ctx: Context) -> int:
    """`bsi log [ID]`."""
    from brain_tui.core.audit import claim_log
    from brain_tui.core.protocol import require_claim
    from brain_tui.core.store import valid_session_id

    sess_id = ctx.args.sess_id
    if sess_id is not None and not valid_session_id(sess_id):
        require_claim(ctx.brain.snapshot(), sess_id)
    entries = claim_log(ctx.brain.root, sess_id, limit=max(1, ctx.args.limit))
    if sess_id is not None and not entries and ctx.brain.snapshot().claim(sess_id) is None:
        require_claim(ctx.brain.snapshot(), sess_id)
    lines = [f"{e.date[:16].replace('T', ' ')}  {e.commit}  {one_line(e.author, 40)}  {one_line(e.message, 80)}"
             for e in entries[: ctx.args.limit]]
    ctx.emit({"entries": [e.as_dict() for e in entries[: ctx.args.limit]]}, "\n".join(lines) or "no history")
    return 0


def cmd_verify(ctx: Context) -> int:
    """`bsi verify ID`: exit 13 on scope drift."""
    from brain_tui.core.audit import verify_scope
    from brain_tui.core.protocol import require_claim

    snapshot = ctx.brain.snapshot()
    claim = require_claim(snapshot, ctx.args.sess_id)
    report = verify_scope(ctx.brain.root, snapshot, claim)
    if ctx.json:
        ctx.emit(report.as_dict())
    else:
        lines = [f"{claim.sess_id} scope {claim.scope_text}: {len(report.changed)} committed, "
                 f"{len(report.uncommitted)} uncommitted files"]
        lines += [f"  outside scope: {p}" for p in report.outside]
        ctx.emit(None, "\n".join(lines))
    if report.outside:
        ctx.say(f"bsi: {claim.sess_id} changed {len(report.outside)} file(s) outside its scope: "
                f"{', '.join(report.outside[:5])}{' …' if len(report.outside) > 5 else ''}")
        return ScopeDrift.exit_code
    return 0
