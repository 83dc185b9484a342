"""`bsi hook EVENT`, `bsi hooks install|uninstall|status`, `bsi mcp`, `bsi mcp install` (SPEC 20.2, 20.3)."""

from __future__ import annotations

import argparse
import sys

from brain_tui.cli.common import Context, add_command, global_parent, table

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from typing import Any

    from brain_tui.core.agent_settings.files import Report

AGENTS = ("claude", "gemini", "codex")
#: The global flags `bsi mcp` (the server) refuses (`cmd_mcp_serve`): parsed, so the refusal says why, not in its help.
MCP_REFUSED = ("--json", "--no-commit", "--sync", "--offline")


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the hook and MCP commands."""
    p = sub.add_parser("hook", help="run one agent hook (reads the event on stdin; exits 0 or 2)", parents=[parent])
    if isinstance(p, argparse.ArgumentParser):  # only when `hook` is the command built (cli/main.py build_parser)
        from brain_tui.hooks.wire import EVENT_NAMES

        p.add_argument("event", choices=list(EVENT_NAMES), metavar="EVENT", help=", ".join(EVENT_NAMES))
        p.add_argument("--agent", default="claude", help="claude (default), codex or gemini")
        p.set_defaults(handler=cmd_hook)

    hooks = sub.add_parser("hooks", help="install, remove or check the agents' hooks (Claude Code, Gemini CLI, "
                           "Codex)", parents=[parent])
    hsub = hooks.add_subparsers(dest="hooks_command", metavar="ACTION")
    for name, text in (("install", "merge the hooks (and Claude Code's sandbox fence) into the agent's settings"),
                       ("uninstall", "remove exactly the bsi hooks (and the fence)"),
                       ("status", "what is installed, missing or outdated; whether the sandbox can run")):
        p = add_command(hsub, parent, name, text, cmd_hooks, action=name)
        _agent_flag(p)
        p.add_argument("--local", action="store_true", help="Claude Code: use .claude/settings.local.json")
        p.add_argument("--bsi", default="bsi", metavar="CMD", help="how the hooks run bsi (default: bsi)")
        if name != "uninstall":
            p.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                           help="Claude Code: without the OS sandbox fence of the protocol files")
        if name == "install":
            p.add_argument("--trust", action="store_true",
                           help="Gemini CLI: also mark this folder trusted in ~/.gemini/trustedFolders.json")

    mcp = sub.add_parser("mcp", help="the MCP server over stdio (install: write the agent's MCP settings)",
                         parents=[global_parent(hidden=MCP_REFUSED)],
                         epilog=f"{', '.join(MCP_REFUSED[:-1])} and {MCP_REFUSED[-1]} are refused: the server "
                                "speaks JSON-RPC on stdout, and every tool call writes as the brain's `sync:` "
                                "setting in brain-compose.yml says.")
    msub = mcp.add_subparsers(dest="mcp_command", metavar="ACTION")
    mcp.set_defaults(handler=cmd_mcp_serve)
    p = add_command(msub, parent, "install", "check that `bsi mcp` starts, then write the agent's bsi server entry "
                    "(.mcp.json, .gemini/settings.json, ~/.codex/config.toml)", cmd_mcp_install)
    _agent_flag(p)
    p.add_argument("--bsi", default="bsi", metavar="CMD", help="how the agent runs bsi (default: bsi)")
    p.add_argument("--trust", action="store_true",
                   help="Gemini CLI: also mark this folder trusted in ~/.gemini/trustedFolders.json")
    p.add_argument("--no-check", dest="check", action="store_false",
                   help="write the entry without starting the server first")


def _agent_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default="claude", choices=AGENTS, help="claude (default), gemini or codex")


def cmd_hook(ctx: Context) -> int:
    """Reached only when the fast path did not see `hook` (e.g. flags in an unusual place)."""
    from brain_tui.hooks import main as hooks_main

    argv = ["hook", ctx.args.event, "--agent", ctx.args.agent]
    if getattr(ctx.args, "brain", None):
        argv = ["--brain", ctx.args.brain, *argv]
    if getattr(ctx.args, "now", None):
        argv = ["--now", ctx.args.now, *argv]
    return hooks_main.run(argv)


def _check_flags(a: argparse.Namespace) -> None:
    """Refuse a flag that does not apply to the agent asked (exit 64), rather than ignore it."""
    from brain_tui.core.errors import UsageError

    given = [flag for flag, on, agent in (("--local", getattr(a, "local", False), "claude"),
                                          ("--no-sandbox", not getattr(a, "sandbox", True), "claude"),
                                          ("--trust", getattr(a, "trust", False), "gemini")) if on and a.agent != agent]
    if given:
        owner = "claude" if given[0] != "--trust" else "gemini"
        raise UsageError(f"{given[0]} is for --agent {owner}, not --agent {a.agent}")


def _hooks_report(ctx: Context) -> Report:
    """Run one `bsi hooks ACTION` for the agent asked."""
    from brain_tui.core.agent_settings import claude as settings
    from brain_tui.core.agent_settings import codex as settings_codex
    from brain_tui.core.agent_settings import gemini as settings_gemini

    a = ctx.args
    _check_flags(a)
    root = ctx.brain.root
    if a.agent == "gemini":
        if a.action == "install":
            return settings_gemini.install(root, a.bsi, trust_folder=a.trust)
        return settings_gemini.uninstall(root) if a.action == "uninstall" else settings_gemini.status(root, a.bsi)
    if a.agent == "codex":
        if a.action == "install":
            return settings_codex.install(a.bsi, root)
        return settings_codex.uninstall(root) if a.action == "uninstall" else settings_codex.status(a.bsi)
    if a.action == "install":
        return settings.install(root, a.local, a.bsi, fence=a.sandbox)
    if a.action == "uninstall":
        return settings.uninstall(root, a.local)
    return settings.status(root, a.local, a.bsi, fence=a.sandbox)


def cmd_hooks(ctx: Context) -> int:
    """`bsi hooks install|uninstall|status [--agent A] [--local] [--no-sandbox] [--trust] [--json]`.

    Installing and removing the hooks (and with them the sandbox fence) is a human's: an agent that could
    run `bsi hooks uninstall` from its shell would lift every check on its own writes.
    """
    a = ctx.args
    if a.action in ("install", "uninstall"):
        from brain_tui.core.rules.authority import require_human

        require_human(f"hooks {a.action}", "in this brain")
    report = _hooks_report(ctx)
    lines = [f"{report.path}: {report.action}"]
    if a.action != "uninstall":
        rows = [[item, "missing"] for item in report.missing] + [[item, "outdated"] for item in report.outdated]
        if rows:
            lines.append(table(rows, ["entry", "state"]))
        elif a.action == "status":
            lines.append("every hook and deny rule is installed" if a.agent == "claude"
                         else "every hook is installed")
        lines.append(f"`{report.command}`: bsi {'resolves' if report.resolves else 'does NOT resolve'} on PATH")
    lines.extend(report.notes)
    ctx.emit(report.as_dict(), "\n".join(lines))
    if a.action == "status" and not ctx.json and (report.missing or report.outdated):
        flag = "" if a.agent == "claude" else f" --agent {a.agent}"
        ctx.say(f"bsi: run `bsi hooks install{flag}` to add or update them")
    return 0


def cmd_mcp_install(ctx: Context) -> int:
    """`bsi mcp install [--agent A]`: start `bsi mcp` once (it must answer `initialize`), then write the entry."""
    from brain_tui.core.agent_settings import claude as settings
    from brain_tui.core.agent_settings import codex as settings_codex
    from brain_tui.core.agent_settings import gemini as settings_gemini
    from brain_tui.core.rules.authority import require_human

    a = ctx.args
    require_human("mcp install", "in this brain")
    _check_flags(a)
    root = ctx.brain.root
    server = ""
    if a.check:
        from brain_tui.core.agent_settings.files import command_words
        from brain_tui.hooks.mcp_check import check_server

        server = check_server([*(command_words(a.bsi) or ["bsi"]), "mcp"], root)
    if a.agent == "gemini":
        report = settings_gemini.mcp_install(root, a.bsi, trust_folder=a.trust)
    elif a.agent == "codex":
        report = settings_codex.mcp_install(root, a.bsi)
    else:
        report = settings.mcp_install(root, a.bsi)
    if server:
        report.extra["server"] = server
    started = f"; it answered as {server}" if server else ""
    ctx.emit(report.as_dict(), "\n".join([f"{report.path}: {report.action} (`{report.command}`{started})",
                                          *report.notes]))
    return 0


def cmd_mcp_serve(ctx: Context) -> int:
    """`bsi mcp`: serve the protocol as MCP tools on stdin/stdout until the client closes."""
    from brain_tui.core.errors import UsageError

    if getattr(ctx.args, "mcp_command", None):
        raise UsageError(f"mcp: unknown action {ctx.args.mcp_command!r}")
    if getattr(ctx.args, "json", False):
        raise UsageError("bsi mcp speaks JSON-RPC on stdout already: drop --json")
    ignored = [flag for flag, name in (("--sync", "sync"), ("--offline", "offline"), ("--no-commit", "no_commit"))
               if getattr(ctx.args, name, False)]
    if ignored:  # the server's tools write as the brain's settings say; a flag it would drop is refused
        raise UsageError(f"bsi mcp takes no {', '.join(ignored)}: every tool call writes as the brain's `sync:` "
                         "setting in brain-compose.yml says")
    if ctx.serve_mcp is None:
        raise UsageError("bsi mcp: this command line runs without the MCP server (run `bsi mcp`, "
                         "`python -m brain_tui mcp`)")
    root = ctx.brain.root
    return ctx.serve_mcp(root, getattr(ctx.args, "now", None), sys.stdout)
