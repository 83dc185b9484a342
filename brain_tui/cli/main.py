"""Entry point of `bsi`: builds the parser from the command modules and maps errors to exit codes."""

from __future__ import annotations

import importlib
import os
import sys

from brain_tui.hooks import main as hooks_main

TYPE_CHECKING = False  # not `typing`: `bsi hook` must start fast
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from brain_tui.cli.common import Context, Parser
    from brain_tui.core.errors import BsiError

#: Exit code of an unexpected error inside bsi (a bug), kept apart from every code of SPEC 19 (EX_SOFTWARE).
INTERNAL_ERROR = 70

#: The modules under brain_tui.cli holding `register(subparsers, parent)` (imported only to build the parser:
#: `bsi hook` never builds it).
COMMAND_MODULES = [
    "admin", "claims", "gates", "signals", "preflight", "sync", "state", "attention", "launch", "hooks",
    "agent",
]

#: The commands that only read: under `--sync` they pull the remote first (`Brain.pull`), as an
#: explicit step, because a snapshot never fetches. None: the command has no subcommand.
READ_COMMANDS: dict[str, frozenset[str] | None] = {
    "claim": frozenset({"show", "list"}),
    "check-scope": None,
    "gate": frozenset({"status"}),
    "signal": frozenset({"list"}),
    "preflight": frozenset({"check", "status"}),
    "lock": frozenset({"check", "list"}),
    "breath": frozenset({"show"}),
    "env": None,
    "lint": None,
    "log": None,
    "verify": None,
    "agent": frozenset({"peek"}),
}


def is_read(args: argparse.Namespace) -> bool:
    """True when the parsed command only reads the brain (see `READ_COMMANDS`)."""
    command = getattr(args, "command", None)
    if command not in READ_COMMANDS:
        return False
    actions = READ_COMMANDS[command]
    return actions is None or getattr(args, f"{command}_command", None) in actions


def build_parser() -> Parser:
    """The whole `bsi` parser."""
    from brain_tui.cli.common import Parser, add_global_flags, global_parent

    parser = Parser(prog="bsi", description="Brain Session Index: claims, gates and signals for a shared brain.")
    add_global_flags(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    parent = global_parent()
    for name in COMMAND_MODULES:
        importlib.import_module(f"brain_tui.cli.{name}").register(sub, parent)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run `bsi` and return its exit code (SPEC 19)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if hooks_main.is_hook_command(args_list):  # the hot path: no parser tree, only what the event needs
        return hooks_main.run(args_list)
    if args_list[-1:] == ["mcp"]:  # `bsi mcp` answers `initialize` before the parser, the SDK or the core load
        from brain_tui.mcp import front

        served = front.main(args_list)
        if served is not None:
            return served
    return _main(args_list)


def _main(args_list: list[str]) -> int:
    import argparse

    from brain_tui.cli.common import Context
    from brain_tui.core.errors import BsiError, UsageError, os_refusal

    ctx = Context(argparse.Namespace())
    try:
        parser = build_parser()
        args = parser.parse_args(args_list)
        ctx.args = args
        handler = getattr(args, "handler", None)
        if handler is None:
            if args.command is None:
                parser.print_help(sys.stderr)
                return 64
            raise UsageError(f"{args.command}: missing subcommand (see bsi {args.command} --help)")
        ctx.reading = is_read(args)
        if getattr(args, "sync", False) and ctx.reading:
            ctx.pull()
        code = handler(ctx)
        ctx.report_applied()
        return int(code or 0)
    except BsiError as exc:
        return _refuse(ctx, exc, args_list)
    except KeyboardInterrupt:
        sys.stderr.write("bsi: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a read-only brain, a denied permission, a full disk: the system's refusal, not a bug
        refusal = os_refusal(exc)
        if refusal is None:
            return _internal_error(exc)
        return _refuse(ctx, refusal, args_list)
    except Exception as exc:  # a bug: one line, never a traceback (SPEC 13); BSI_DEBUG=1 shows it
        return _internal_error(exc)


def _refuse(ctx: Context, exc: BsiError, args_list: list[str]) -> int:
    """Say a refusal in one line (and as JSON under `--json`); its exit code."""
    import json

    ctx.report_applied()
    if getattr(ctx.args, "json", False) or (not vars(ctx.args) and "--json" in args_list):
        doc = {"error": exc.message, "exit": exc.exit_code, **({"kind": exc.kind} if exc.kind else {}),
               **exc.payload}
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    for line in exc.message.splitlines() or [""]:
        sys.stderr.write(f"bsi: {line}\n")
    return exc.exit_code


def _internal_error(exc: BaseException) -> int:
    """A bug: one line, never a traceback (SPEC 13); BSI_DEBUG=1 re-raises it."""
    if os.environ.get("BSI_DEBUG"):
        raise exc
    detail = " ".join(str(exc).split())[:300]
    sys.stderr.write(f"bsi: internal error ({type(exc).__name__}: {detail}); nothing was committed by this "
                     f"command; BSI_DEBUG=1 shows the traceback\n")
    return INTERNAL_ERROR


def run() -> None:
    """Console-script wrapper."""
    sys.exit(main())


if __name__ == "__main__":
    run()
