"""`bsi claim …`, `bsi check-scope`, `bsi watchdog`."""

from __future__ import annotations

import argparse

from brain_tui.cli.common import Context, add_command, one_line, table

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from brain_tui.core.paths.scope import ScopeEntry
    from brain_tui.core.records.model import Claim


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the claim commands."""
    claim = sub.add_parser("claim", help="open, close, renew, release, show, list claims", parents=[parent])
    csub = claim.add_subparsers(dest="claim_command", metavar="ACTION")

    p = add_command(csub, parent, "open", "open a claim on a scope", cmd_open)
    p.add_argument("--scope", action="append", required=True, metavar="S", help="scope entry (repeatable)")
    p.add_argument("--ttl", help="2h (default), 4h, 8h, 90m, 2h30m… at most 8h")
    p.add_argument("--type", dest="claim_type", help="pilote | satellite | solo")
    p.add_argument("--satellite-type", help="code | brain-write | test | deploy | search | domain")
    p.add_argument("--level", help="leaf | domain")
    p.add_argument("--parent", help="parent session ID (satellites)")
    p.add_argument("--story", default="", help="what the session is doing")
    p.add_argument("--slug", help="ID slug ([a-z0-9-]); random by default")
    p.add_argument("--instance", help="brain_name@machine (default: this machine)")
    p.add_argument("--on-done")
    p.add_argument("--on-partial")
    p.add_argument("--on-fail")
    p.add_argument("--theme-branch")
    p.add_argument("--blocked-on", action="store_true",
                   help="when refused, send BLOCKED_ON to each holder in the same step (seed 002)")
    p.add_argument("--agent-session", metavar="ID",
                   help="bind this agent session to the claim (default: $CLAUDE_CODE_SESSION_ID, else "
                        "$GEMINI_SESSION_ID, $CODEX_THREAD_ID or $CODEX_SESSION_ID; '' binds none)")

    p = add_command(csub, parent, "close", "close a claim (tier rules apply)", cmd_close, "sess_id")
    p.add_argument("--status", choices=None, help="ok | partial | failed")
    p.add_argument("--files", nargs="+", action="extend", default=[], metavar="F",
                   help="files modified (repeatable)")
    p.add_argument("--commit")
    p.add_argument("--tests-total", type=_count)
    p.add_argument("--tests-passed", type=_count)
    p.add_argument("--tests-failed", type=_count)
    p.add_argument("--notes")

    p = add_command(csub, parent, "renew", "extend an open claim (never past 8h after opening)", cmd_renew, "sess_id")
    p.add_argument("--ttl")

    p = add_command(csub, parent, "release", "release a stale claim (human; reason required)", cmd_release, "sess_id")
    p.add_argument("--reason", default="")

    add_command(csub, parent, "show", "one claim", cmd_show, "sess_id")

    p = add_command(csub, parent, "list", "claims (blocking ones by default)", cmd_list)
    p.add_argument("--status", nargs="+", action="extend", default=None, metavar="S", help="statuses (repeatable)")
    p.add_argument("--all", action="store_true", help="include closed, failed and released claims")

    p = add_command(csub, parent, "repair", "restore a corrupt claim file to its last committed version that reads",
                    cmd_repair)
    p.add_argument("target", metavar="ID|PATH")

    p = add_command(sub, parent, "check-scope", "conflicts a claim on S would meet (opens nothing)", cmd_check_scope)
    p.add_argument("scopes", nargs="+", metavar="S")
    p.add_argument("--parent")
    p.add_argument("--satellite-type")
    p.add_argument("--ttl", help="the TTL the claim would be opened with (default: the brain's, as `claim open`)")

    add_command(sub, parent, "watchdog", "mark expired claims stale", cmd_watchdog)


def _count(text: str) -> int:
    """A test count: ASCII digits only; a bad count is invalid data (65), not a usage error.

    Raises:
        InvalidData: not a whole number (full-width digits included), or negative.
    """
    from brain_tui.core.errors import InvalidData

    raw = text.strip()
    if raw.startswith("-") and raw[1:].isascii() and raw[1:].isdigit():
        raise InvalidData(f"invalid test count {text!r}: it is negative")
    if not (raw.isascii() and raw.isdigit()):
        raise InvalidData(f"invalid test count {text!r}: a whole number like 12")
    return int(raw)


def _scope_entries(ctx: Context, values: list[str]) -> tuple[ScopeEntry, ...]:
    """The entries of the `--scope` values (`parse_scope_args`); a value read as several entries is said on
    stderr, so a name holding a space that was split is seen."""
    from brain_tui.core.paths.scope import parse_scope_args

    entries = parse_scope_args(values, ctx.brain.root)
    for value in values:
        parts = parse_scope_args([value], ctx.brain.root)
        if len(parts) > 1:
            ctx.say(f"bsi: --scope {value!r} read as {len(parts)} entries ({', '.join(map(str, parts))}): "
                    "whitespace and commas separate entries; a file or folder whose name holds a space is one "
                    "entry once it exists")
    return entries


def cmd_open(ctx: Context) -> int:
    """`bsi claim open`."""
    import os

    from brain_tui.core.brain import OpenRequest
    from brain_tui.core.clock import parse_duration
    from brain_tui.core.errors import ConflictError
    from brain_tui.core.records.statuses import Status
    from brain_tui.core.rules.authority import own_agent_session
    from brain_tui.core.rules.conflicts import ask_holder
    from brain_tui.core.sessions.agents import agent_session_for_open

    a = ctx.args
    brain = ctx.brain
    entries = _scope_entries(ctx, list(a.scope))
    ttl = parse_duration(a.ttl) if a.ttl is not None else brain.config.ttl_default
    req = OpenRequest(
        scope=entries, ttl=ttl, instance=brain.instance if a.instance is None else a.instance, type=a.claim_type,
        satellite_type=a.satellite_type, level=a.level, parent=a.parent, story=a.story, slug=a.slug,
        on_done=a.on_done, on_partial=a.on_partial, on_fail=a.on_fail, theme_branch=a.theme_branch,
        agent_session=agent_session_for_open(a.agent_session, os.environ)
        if a.agent_session is not None else agent_session_for_open(None, os.environ) or own_agent_session(),
        signal_holders=a.blocked_on,
    )
    try:
        sess_id = brain.open_claim(req)
    except ConflictError as exc:
        if not ctx.json:
            for conflict in exc.payload.get("conflicts", []):
                ctx.say(f"  conflict: {conflict['sess_id']} ({conflict['status']}, {conflict['overlap']}) "
                        f"on {conflict['scope']}")
            for sig_id in exc.payload.get("signals", []):
                ctx.say(f"  sent BLOCKED_ON {sig_id} to the holder: its close will free the scope")
            conflicts = exc.payload.get("conflicts", [])
            for conflict in conflicts:
                if conflict["status"] == Status.STALE:  # its session stopped: a signal to it reaches no one at work
                    ctx.say(f"  {ask_holder(conflict['sess_id'], conflict['status'])}")
            if not a.blocked_on and any(c["status"] != Status.STALE for c in conflicts):
                ctx.say("  to wait for it: add --blocked-on (BLOCKED_ON to each holder, in the same step)")
        raise
    ctx.emit_claim(sess_id, {}, sess_id)
    return 0


def cmd_close(ctx: Context) -> int:
    """`bsi claim close`."""
    from brain_tui.core.brain import CloseRequest

    a = ctx.args
    req = CloseRequest(status=a.status, files=list(a.files), commit=a.commit, tests_total=a.tests_total,
                       tests_passed=a.tests_passed, tests_failed=a.tests_failed, notes=a.notes)
    from brain_tui.core.records.statuses import Status  # not at import: `--help` loads no core

    outcome = ctx.brain.close_claim(a.sess_id, req)
    if outcome.status == Status.WAITING_HUMAN:
        ctx.say(f"{a.sess_id} waits for a human gate (exit trigger gate:human); approve closes it")
    ctx.emit_claim(outcome.sess_id, {"sess_id": outcome.sess_id, "status": outcome.status, "tier": outcome.tier,
                                     "result": outcome.result, "signals": outcome.signals},
                   f"{outcome.sess_id} {outcome.status}")
    return 0


def cmd_renew(ctx: Context) -> int:
    """`bsi claim renew`."""
    from brain_tui.core.clock import parse_duration

    ttl = parse_duration(ctx.args.ttl) if ctx.args.ttl is not None else None
    expires = ctx.brain.renew_claim(ctx.args.sess_id, ttl)
    ctx.emit_claim(ctx.args.sess_id, {"sess_id": ctx.args.sess_id, "expires_at": expires},
                   f"{ctx.args.sess_id} expires {expires}")
    return 0


def cmd_release(ctx: Context) -> int:
    """`bsi claim release`."""
    from brain_tui.core.records.statuses import Status

    ctx.brain.release_claim(ctx.args.sess_id, ctx.args.reason)
    ctx.emit_claim(ctx.args.sess_id, {"sess_id": ctx.args.sess_id, "status": Status.RELEASED.value},
                   f"{ctx.args.sess_id} released")
    return 0


def cmd_show(ctx: Context) -> int:
    """`bsi claim show`."""
    from brain_tui.core.records.views import claim_json, shown_file
    from brain_tui.core.rules.claims import require_claim

    snapshot = ctx.brain.snapshot()
    claim = require_claim(snapshot, ctx.args.sess_id)
    data = claim_json(claim, snapshot)
    if ctx.json:
        ctx.emit(data)
    else:
        from brain_tui.core.paths.text_safety import inert_block, inert_line

        # brain text (SPEC 15), read as `read_text` would, bounded; never waited on (a FIFO planted there)
        text = inert_block(shown_file(ctx.brain.root, claim.path).replace("\r\n", "\n").replace("\r", "\n"))
        head = inert_line(f"# {claim.path} — {claim.status}, tier {data['tier']} ({data['tier_name']})", 400)
        ctx.emit(None, f"{head}\n{text}")
    return 0


def _ttl_cell(claim: Claim, now: datetime) -> str:
    """Time left as the cockpit counts it (``1m`` in the last minute, ``-1m`` just after), then the claim's display
    flags (``clock-skew``…: SPEC 3)."""
    from brain_tui.core.clock import humanize_countdown

    left = "—" if claim.expires_at is None or claim.is_terminal else humanize_countdown(claim.expires_at - now)
    return " ".join([left, *claim.flags])


def cmd_list(ctx: Context) -> int:
    """`bsi claim list`."""
    from brain_tui.core.records.unreadable import repair_command
    from brain_tui.core.records.views import claim_json, listed_claims

    claims, snapshot = listed_claims(ctx.brain.snapshot, ctx.args.status, ctx.args.all)
    if ctx.json:
        ctx.emit({"claims": [claim_json(c, snapshot) for c in claims],
                  "corrupt": [c.as_dict() for c in snapshot.corrupt]})
        return 0
    rows = [[c.sess_id, c.status, c.level, one_line(c.scope_text, 40), _ttl_cell(c, snapshot.now),
             one_line(c.story, 40)] for c in claims]
    out = table(rows, ["SESSION", "STATUS", "LEVEL", "SCOPE", "TTL", "STORY"]) or "no claims"
    ctx.emit(None, out)
    for bad in snapshot.corrupt:
        held = f"; until repaired it holds {' '.join(str(e) for e in bad.holds)} " \
               f"(`{repair_command(bad.path)}`)" if bad.holds else ""
        ctx.say(f"corrupt: {bad.path} line {bad.line}: {bad.reason}{held}")
    return 0


def cmd_repair(ctx: Context) -> int:
    """`bsi claim repair ID|PATH`: a corrupt claim file back to its last committed version that reads."""
    done = ctx.brain.repair_claim(ctx.args.target)
    if done.repaired:
        text = f"{done.path} restored from {done.commit[:10]}: {done.sess_id} is {done.status}"
    else:
        text = f"{done.path} reads ({done.sess_id}, {done.status}): nothing to repair"
    ctx.emit(done.as_dict(), text)
    return 0


def cmd_check_scope(ctx: Context) -> int:
    """`bsi check-scope`: exit 10 when the scope would conflict, 0 when free."""
    from brain_tui.core.clock import parse_duration
    from brain_tui.core.errors import ConflictError

    brain = ctx.brain
    entries = _scope_entries(ctx, list(ctx.args.scopes))
    ttl = parse_duration(ctx.args.ttl) if ctx.args.ttl is not None else None
    conflicts = brain.check_scope(entries, parent=ctx.args.parent, satellite_type=ctx.args.satellite_type, ttl=ttl)
    ctx.emit({"conflicts": [c.as_dict() for c in conflicts]},
             "\n".join(c.describe() for c in conflicts) if conflicts else None)
    if conflicts:
        held = ", ".join(f"{c.sess_id} ({c.status})" for c in conflicts[:5]) + (", …" if len(conflicts) > 5 else "")
        ctx.say(f"scope {' '.join(str(e) for e in entries)} would conflict with {len(conflicts)} claim(s): {held}")
        return ConflictError.exit_code
    if not ctx.json:
        ctx.say(f"scope {' '.join(str(e) for e in entries)} is free")
    return 0


def cmd_watchdog(ctx: Context) -> int:
    """`bsi watchdog`."""
    report = ctx.brain.watchdog()
    ctx.emit(report.as_dict(), report.summary())
    for sess_id in report.unwritable:
        ctx.say(f"bsi: warning: {sess_id} expired but its file cannot take the change (stale all the same): "
                "a human releases it")
    return 0
