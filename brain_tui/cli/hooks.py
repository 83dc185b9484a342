"""`bsi hook EVENT`, `bsi hooks install|uninstall|status`, `bsi mcp`, `bsi mcp install` (SPEC 20.2, 20.3)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from brain_tui.cli.common import Context, table
from brain_tui.core.errors import UsageError


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the hook and MCP commands."""
    from brain_tui.hooks.wire import EVENT_NAMES

    p = sub.add_parser("hook", help="run one agent hook (reads the event on stdin; exits 0 or 2)", parents=[parent])
    p.add_argument("event", choices=list(EVENT_NAMES), metavar="EVENT", help=", ".join(EVENT_NAMES))
    p.add_argument("--agent", default="claude", help="claude (default), codex or gemini")
    p.set_defaults(handler=cmd_hook)

    hooks = sub.add_parser("hooks", help="install, remove or check the Claude Code hooks", parents=[parent])
    hsub = hooks.add_subparsers(dest="hooks_command", metavar="ACTION")
    for name, text in (("install", "merge the hooks into .claude/settings.json"),
                       ("uninstall", "remove exactly the bsi hooks"),
                       ("status", "what is installed, missing or outdated")):
        p = hsub.add_parser(name, help=text, parents=[parent])
        p.add_argument("--local", action="store_true", help="use .claude/settings.local.json")
        p.add_argument("--bsi", default="bsi", metavar="CMD", help="how the hooks run bsi (default: bsi)")
        p.set_defaults(handler=cmd_hooks, action=name)

    mcp = sub.add_parser("mcp", help="the MCP server over stdio (install: write .mcp.json)", parents=[parent])
    msub = mcp.add_subparsers(dest="mcp_command", metavar="ACTION")
    mcp.set_defaults(handler=cmd_mcp_serve)
    p = msub.add_parser("install", help="write the bsi entry of .mcp.json", parents=[parent])
    p.add_argument("--bsi", default="bsi", metavar="CMD", help="how the agent runs bsi (default: bsi)")
    p.set_defaults(handler=cmd_mcp_install)


def cmd_hook(ctx: Context) -> int:
    """Reached only when the fast path did not see `hook` (e.g. flags in an unusual place)."""
    from brain_tui.hooks import main as hooks_main

    argv = ["hook", ctx.args.event, "--agent", ctx.args.agent]
    if getattr(ctx.args, "brain", None):
        argv = ["--brain", ctx.args.brain, *argv]
    if getattr(ctx.args, "now", None):
        argv = ["--now", ctx.args.now, *argv]
    return hooks_main.run(argv)


def _root(ctx: Context) -> Any:
    return ctx.brain.root


def cmd_hooks(ctx: Context) -> int:
    """`bsi hooks install|uninstall|status [--local] [--json]`."""
    from brain_tui.hooks import settings

    a = ctx.args
    root = _root(ctx)
    if a.action == "install":
        report = settings.install(root, a.local, a.bsi)
    elif a.action == "uninstall":
        report = settings.uninstall(root, a.local)
    else:
        report = settings.status(root, a.local, a.bsi)
    lines = [f"{report.path}: {report.action}"]
    if a.action != "uninstall":
        rows = [[item, "missing"] for item in report.missing] + [[item, "outdated"] for item in report.outdated]
        if rows:
            lines.append(table(rows, ["entry", "state"]))
        elif a.action == "status":
            lines.append("every hook and deny rule is installed")
        lines.append(f"`{report.command}`: bsi {'resolves' if report.resolves else 'does NOT resolve'} on PATH")
    ctx.emit(report.as_dict(), "\n".join(lines))
    if a.action == "status" and not ctx.json and (report.missing or report.outdated):
        ctx.say("bsi: run `bsi hooks install` to add or update them")
    return 0


def cmd_mcp_install(ctx: Context) -> int:
    """`bsi mcp install`: the `bsi` server in `.mcp.json`."""
    from brain_tui.hooks import settings

    report = settings.mcp_install(_root(ctx), ctx.args.bsi)
    ctx.emit(report.as_dict(), f"{report.path}: {report.action} (`{report.command}`)")
    return 0


def cmd_mcp_serve(ctx: Context) -> int:
    """`bsi mcp`: serve the protocol as MCP tools on stdin/stdout until the client closes."""
    if getattr(ctx.args, "mcp_command", None):
        raise UsageError(f"mcp: unknown action {ctx.args.mcp_command!r}")
    if getattr(ctx.args, "json", False):
        raise UsageError("bsi mcp speaks JSON-RPC on stdout already: drop --json")
    from brain_tui.mcp.server import serve

    root = _root(ctx)
    return serve(root, now=getattr(ctx.args, "now", None), stdout=sys.stdout)
