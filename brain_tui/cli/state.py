"""`bsi env`, `bsi breath inhale|reference|expire|show`, `bsi lint` (SPEC 16, 17, 18)."""

from __future__ import annotations

import argparse

from brain_tui.cli.common import Context, add_command, one_line, table

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the environment, breath and lint commands."""
    p = add_command(sub, parent, "env", "the environment, derived live (git, pm2, ports, system)", cmd_env)
    p.add_argument("--timeout", type=_timeout, default=2.0, metavar="SECONDS",
                   help=f"timeout of each probe (above 0, at most {MAX_TIMEOUT_S:.0f})")

    breath = sub.add_parser("breath", help="context-broker breath records and metrics", parents=[parent])
    bsub = breath.add_subparsers(dest="breath_command", metavar="ACTION")
    p = add_command(bsub, parent, "inhale", "record the files loaded for an agent", cmd_inhale, "sprint")
    p.add_argument("--agent", required=True)
    p.add_argument("--session", help="the session running the sprint")
    p.add_argument("files", nargs="+", metavar="FILE")
    p = add_command(bsub, parent, "reference", "record files the sprint actually used", cmd_reference, "sprint")
    p.add_argument("files", nargs="+", metavar="FILE")
    p = add_command(bsub, parent, "expire", "release files (or keep them with a reason); closes the sprint",
                    cmd_expire, "sprint")
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument("--keep", action="append", default=[], metavar="FILE=REASON", help="keep a file, with why")
    p = add_command(bsub, parent, "show", "breath metrics of the sprints", cmd_show)
    p.add_argument("sprints", nargs="*", metavar="SPRINT")

    p = add_command(sub, parent, "lint", "check brain-language headers (ADR-010)", cmd_lint)
    p.add_argument("paths", nargs="*", metavar="PATH")


# -- env ------------------------------------------------------------------------------------------
#: The longest probe timeout `bsi env --timeout` takes, in seconds.
MAX_TIMEOUT_S = 60.0


def _timeout(text: str) -> float:
    """`--timeout SECONDS`: a number above 0 and at most MAX_TIMEOUT_S; anything else is invalid data (65).

    Raises:
        InvalidData: not a number, not finite, or out of range.
    """
    from brain_tui.core.errors import InvalidData

    try:
        seconds = float(text.strip())
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds <= MAX_TIMEOUT_S:  # NaN fails both comparisons
        raise InvalidData(f"invalid --timeout {text!r}: a number of seconds above 0, at most {MAX_TIMEOUT_S:.0f}")
    return seconds


def _cpu(value: Any) -> str:
    """pm2's cpu percentage, to one decimal at most (``0.3%``, ``12%``)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "-"
    return f"{value:.1f}".rstrip("0").rstrip(".") + "%"


def _size(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return "?"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def _duration(seconds: Any) -> str:
    if not isinstance(seconds, (int, float)):
        return "-"
    from datetime import timedelta

    from brain_tui.core.clock import humanize_delta

    return humanize_delta(timedelta(seconds=int(seconds)))


def format_env(env: dict[str, Any]) -> str:
    """A short human summary of `collect_env(...).as_dict()`."""
    from brain_tui.core.environment.env_readings import GitReading

    out = [f"host      {one_line(env['hostname'], 40)}   instance {one_line(env['instance'], 60)}"]
    git = env["git"]
    if git.get("error"):
        out.append(f"git       error: {one_line(git['error'], 100)}")
    else:
        sync = (f"↑{git['ahead']} ↓{git['behind']}" if git.get("ahead") is not None
                else f"upstream {one_line(git['upstream'], 40)} not fetched" if git.get("upstream") else "no upstream")
        out.append(f"git       {one_line(git.get('branch') or '(detached)', 30)}  "
                   f"{one_line(git.get('version') or '(no commit)', 60)}")
        out.append(f"          {sync}  remote {one_line(git.get('remote') or '-', 30)}  "
                   f"dirty {git.get('dirty_count', 0)}  last sync {git.get('last_sync') or 'never'}")
        said = GitReading.of(git).operation_said
        if said:
            out.append(f"git op    {one_line(said, 200)}")
    if env.get("sync"):
        out.append(_sync_row(env["sync"]))
    pm2 = env["pm2"]
    if not pm2.get("available"):
        out.append(f"pm2       {one_line(pm2.get('error') or 'pm2 not found', 80)}")
    elif pm2.get("error"):
        out.append(f"pm2       error: {one_line(pm2['error'], 100)}")
    elif not pm2.get("processes"):
        out.append("pm2       no processes")
    else:
        rows = [[one_line(p["name"], 30), one_line(p["status"], 12), _duration(p.get("uptime_s")),
                 str(p.get("restarts") if p.get("restarts") is not None else "-"),
                 _cpu(p.get("cpu")), _size(p.get("memory")),
                 str(p.get("port") or "-")] for p in pm2["processes"]]
        out.append("pm2")
        out.extend("  " + line for line in
                   table(rows, ["NAME", "STATUS", "UPTIME", "RESTARTS", "CPU", "MEMORY", "PORT"]).splitlines())
    ports = env["ports"]
    if ports.get("error"):
        out.append(f"ports     error: {one_line(ports['error'], 100)}")
    listening = ports.get("listening") or []
    shown = ", ".join(f"{r['port']} ({one_line(r['process'] or '?', 20)})" for r in listening[:12])
    more = f" … +{len(listening) - 12}" if len(listening) > 12 else ""
    out.append(f"listening {shown or 'none'}{more}")
    for entry in ports.get("configured") or []:
        state = "up" if entry.get("up") else "down"
        detail = f"  ({one_line(entry['error'], 50)})" if entry.get("error") else ""
        out.append(f"port      {one_line(entry['name'], 30)} {entry.get('port') or '-'} {state}{detail}")
    system = env["system"]
    if system.get("error"):
        out.append(f"system    error: {one_line(system['error'], 100)}")
        return "\n".join(out)
    load = system.get("load", {})
    mem = system.get("memory", {})
    disk = system.get("disk", {})
    parts = [
        f"load {load['1m']} {load['5m']} {load['15m']}" if "1m" in load else f"load ? ({load.get('error')})",
        f"mem {mem['percent']}% ({_size(mem['used'])}/{_size(mem['total'])})" if "percent" in mem
        else f"mem ? ({mem.get('error')})",
        f"disk {disk['percent']}% ({_size(disk['used'])}/{_size(disk['total'])})" if "total" in disk
        else f"disk ? ({disk.get('error')})",
    ]
    out.append("system    " + "  ".join(parts))
    return "\n".join(out)


def _sync_row(sync: dict[str, Any]) -> str:
    """The `sync` line of `bsi env`: the mode `sync:` sets, the remote, the local changes not pushed yet (`sync`:
    the core's `SyncStatus.as_dict`, its mode and fetch interval as the configuration settles them)."""
    if sync.get("error"):
        return f"sync      error: {one_line(str(sync['error']), 100)}"
    mode = one_line(str(sync["mode"]), 20)
    if mode == "auto":
        mode += f" (fetch every {sync['fetch_interval_s']}s)"
    parts = [mode]
    if not sync.get("has_remote"):
        parts.append("no remote")
    ahead = sync.get("ahead") or 0
    if sync.get("pending_since") or ahead:
        since = f" since {one_line(sync['pending_since'], 40)}" if sync.get("pending_since") else ""
        parts.append(f"{ahead} pending{since}")
    return "sync      " + "  ".join(parts)


def cmd_env(ctx: Context) -> int:
    """`bsi env [--json]`: always exits 0; a failing source shows its error."""
    env = ctx.brain.env(ctx.args.timeout).as_dict()
    try:
        env["sync"] = ctx.brain.remote.status().as_dict()
    except Exception as exc:  # noqa: BLE001 - a source that fails shows as such, the others still fill in
        env["sync"] = {"error": f"{type(exc).__name__}: {exc}"}
    ctx.emit(env, format_env(env))
    return 0


# -- breath ---------------------------------------------------------------------------------------
def _keeps(items: list[str]) -> dict[str, str]:
    from brain_tui.core.errors import UsageError

    kept: dict[str, str] = {}
    for item in items:
        file, sep, reason = item.partition("=")
        if not sep or not file.strip() or not reason.strip():
            raise UsageError(f"--keep {item!r}: expected FILE=REASON")
        kept[file.strip()] = reason.strip()
    return kept


def cmd_inhale(ctx: Context) -> int:
    """`bsi breath inhale SPRINT --agent A FILE…` (alerts of the 2-sources rule on stderr)."""
    a = ctx.args
    out = ctx.brain.breath.inhale(a.sprint, a.agent, a.files, session=a.session)
    for alert in out.alerts:
        ctx.say(f"bsi: alert: {one_line(alert['message'], 160)}")
    ctx.emit(out.as_dict(), f"{out.sprint}: {one_line(out.agent, 80)} inhaled {len(out.files)} file(s)")
    return 0


def cmd_reference(ctx: Context) -> int:
    """`bsi breath reference SPRINT FILE…`."""
    a = ctx.args
    out = ctx.brain.breath.reference(a.sprint, a.files)
    ctx.emit(out.as_dict(), f"{out.sprint}: {len(out.added)} file(s) referenced")
    return 0


def cmd_expire(ctx: Context) -> int:
    """`bsi breath expire SPRINT FILE… [--keep FILE=REASON]`."""
    a = ctx.args
    from brain_tui.core.errors import UsageError

    kept = _keeps(a.keep)
    if not a.files and not kept:
        raise UsageError("breath expire: give files to release and/or --keep FILE=REASON")
    out = ctx.brain.breath.expire(a.sprint, a.files, kept)
    for warning in out.warnings:
        ctx.say(f"bsi: warning: {one_line(warning, 160)}")
    ctx.emit(out.as_dict(), f"{out.sprint}: {len(out.released)} released, {len(out.kept)} kept")
    return 0


def _ratio_text(metric: str, value: float | None) -> str:
    from brain_tui.core.environment.breath_metrics import metric_text

    return "-" if value is None else metric_text(metric, value)


def cmd_show(ctx: Context) -> int:
    """`bsi breath show [SPRINT…]`."""
    found = ctx.brain.breath.metrics(ctx.args.sprints)
    rows = found.sprints
    for bad in found.corrupt:
        ctx.say(f"bsi: warning: {one_line(bad.path, 120)} line {bad.line}: {one_line(bad.reason, 160)}")
    if ctx.json:
        ctx.emit(found.as_dict())
        return 0
    if not rows:
        ctx.emit(None, "no breath records")
        return 0
    lines = [table(
        [[m.sprint + (" (open)" if m.is_open else ""), _ratio_text("context_load", m.context_load),
          _ratio_text("stale_ratio", m.stale_ratio), f"{m.breath_depth:+d}", _ratio_text("exhale_rate", m.exhale_rate),
          str(len(m.alerts))] for m in rows],
        ["SPRINT", "CONTEXT_LOAD", "STALE_RATIO", "BREATH_DEPTH", "EXHALE_RATE", "ALERTS"],
    ), ctx.brain.breath.thresholds_text()]
    for m in rows:
        for alert in m.alerts:
            lines.append(f"alert  {m.sprint}  {one_line(alert['message'], 100)}")
    ctx.emit(None, "\n".join(lines))
    return 0


# -- lint -----------------------------------------------------------------------------------------
def _lint_root(ctx: Context) -> Path:
    from pathlib import Path

    from brain_tui.core.brain import find_root
    from brain_tui.core.errors import NotFound

    try:
        return find_root(getattr(ctx.args, "brain", None))
    except NotFound:
        if ctx.args.paths:
            return Path.cwd()
        raise


def cmd_lint(ctx: Context) -> int:
    """`bsi lint [PATHS]`: exit 0 when clean, 1 with findings."""
    from brain_tui.core.records.headers import lint_given

    # `bsi lint FILE` works outside any brain too, so no Brain is opened here (a broken
    # brain-compose.yml must not stop a lint of plain files).
    findings = lint_given(_lint_root(ctx), ctx.args.paths)
    if ctx.json:
        ctx.emit({"findings": [f.as_dict() for f in findings]})
    else:
        text = "\n".join(f"{one_line(f.path, 80)}:{f.line}: {f.field}: {one_line(f.message, 140)}" for f in findings)
        ctx.emit(None, text or None)
        files = len({f.path for f in findings})
        ctx.say(f"{len(findings)} finding(s) in {files} file(s)" if findings else "headers clean")
    return 1 if findings else 0
