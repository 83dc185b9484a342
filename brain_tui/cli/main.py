"""The `bsi` command line: builds the parser from the command modules and maps errors to exit codes.

`brain_tui.entry` runs it (the console script); it hands `bsi mcp` here only when the fast front did not
serve it, with the server to call (`serve_mcp`): the CLI stands below the MCP server and never imports it.
"""

from __future__ import annotations

import importlib
import os
import sys

TYPE_CHECKING = False  # not `typing`: `bsi hook` must start fast
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import Any

    from brain_tui.cli.common import Context, McpServer, Parser

#: Exit code of an unexpected error inside bsi (a bug), kept apart from every code of SPEC 19 (EX_SOFTWARE).
INTERNAL_ERROR = 70

#: The modules under brain_tui.cli holding `register(subparsers, parent)`, each with the commands it adds, in the
#: parser's order (imported only to build the parser: `bsi hook` never builds it). A command line naming one
#: of these commands imports its module alone: the others stay names (all an invalid choice lists).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "admin": ("init", "demo", "index"),
    "claims": ("claim", "check-scope", "watchdog"),
    "gates": ("gate",),
    "signals": ("signal",),
    "preflight": ("preflight", "lock"),
    "sync": ("sync", "log", "verify"),
    "state": ("env", "breath", "lint"),
    "attention": ("attention",),
    "launch": ("launch",),
    "hooks": ("hook", "hooks", "mcp"),
    "agent": ("agent",),
    "notify": ("notify",),
}

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


#: The global flags that take a value (`--brain PATH`, `--now ISO`): skipped when looking for the command.
_VALUE_FLAGS = ("--brain", "--now")


def words_of(args_list: Sequence[str]) -> tuple[str, str]:
    """The command word and the word after it (its action: `list` of `bsi claim list`), "" when missing.

    The command word is the first word that is no flag. Only this command's parsers are built in full
    (`build_parser(only=…)`), and of its actions only the one named; a wrong guess (`--br PATH`, an
    abbreviation of `--brain`) only costs time: reaching a command not built parses the line again with the
    whole tree (`RebuildParser`).
    """
    skip = positional = False
    words: list[str] = []
    for arg in args_list:
        if skip:
            skip = False
        elif positional or not arg.startswith("-"):
            words.append(arg)
            if len(words) == 2:
                break
        elif arg in _VALUE_FLAGS:
            skip = True
        elif arg == "--":  # every word after it is positional
            positional = True
    words += ["", ""]
    return words[0], words[1]


class _Unbuilt:
    """What `register` gets back for a command not asked for: takes every call and builds nothing."""

    def __getattr__(self, name: str) -> Any:
        return self._absorb

    def _absorb(self, *args: Any, **kwargs: Any) -> _Unbuilt:
        return self


class RebuildParser(Exception):
    """The command line reached a command that was not built (`words_of` guessed wrong): build them all."""


def _unbuilt_parser_class() -> type[Parser]:
    from brain_tui.cli.common import Parser

    class UnbuiltParser(Parser):
        """The one parser behind every command not built: entering it asks for the whole tree."""

        def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
            raise RebuildParser(self.prog)

    return UnbuiltParser


def _partial_parser_classes() -> tuple[type[Parser], type[Parser]]:
    """The parser classes of a tree built for one command: (its root, the command's own parser)."""
    from brain_tui.cli.common import Parser

    class PartialRoot(Parser):
        """The root of a tree built for one command: its help (`bsi --help claim`) needs the whole tree."""

        def format_help(self) -> str:
            raise RebuildParser(self.prog)

    class OneActionParser(Parser):
        """The parser of the command built: of its actions, the one asked for is built in full (`_OnlyCommand`)."""

        def __init__(self, *args: Any, only_action: str, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._only_action = only_action

        def add_subparsers(self, **kwargs: Any) -> Any:
            kwargs.setdefault("parser_class", _parser_factory())  # argparse's default: this class again
            return _OnlyCommand(super().add_subparsers(**kwargs), self._only_action)

    return PartialRoot, OneActionParser


class _OnlyCommand:
    """The subparsers action as the command modules see it: the command asked for is built in full, every
    other one gets only its name and help line (all that `bsi --help` and an invalid choice show), and
    shares one empty parser with the others. With `action`, the command's own subparsers action is seen
    the same way (only that action built in full)."""

    def __init__(self, sub: Any, only: str, action: str | None = None) -> None:
        self._sub = sub
        self._only = only
        self._action = action

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if name == self._only:
            if self._action is not None:
                kwargs["only_action"] = self._action
            return self._sub.add_parser(name, **kwargs)
        self._sub.add_parser(name, help=kwargs.get("help"), unbuilt=True)
        return _Unbuilt()


def _parser_factory() -> Callable[..., Parser]:
    """The parser class of the commands: a new `Parser`, or (`unbuilt=True`) the one shared unbuilt parser, or
    (`only_action=`) the parser of a command built for one of its actions."""
    from brain_tui.cli.common import Parser

    shared: list[Parser] = []

    def make(*, unbuilt: bool = False, only_action: str | None = None, **kwargs: Any) -> Parser:
        if only_action is not None:
            return _partial_parser_classes()[1](only_action=only_action, **kwargs)
        if not unbuilt:
            return Parser(**kwargs)
        if not shared:
            shared.append(_unbuilt_parser_class()(prog="bsi", add_help=False))
        return shared[0]

    return make


def build_parser(*, only: str | None = None, action: str | None = None) -> Parser:
    """The `bsi` parser: every command in full, or with `only`, that command in full and the others by name.

    Building the whole tree costs more than the interpreter's own start (issue 18), so `bsi` builds the one
    command it runs; the tree is the same for that command either way. With `action` too, that command's
    other actions are built by name only. A command of `COMMAND_MODULES` imports its module alone: the
    other commands are then names without their help lines, and asking for the top-level help (`bsi --help
    claim`) raises `RebuildParser`, as reaching a command not built does.
    """
    from brain_tui.cli.common import Parser, add_global_flags, global_parent

    module = next((name for name, commands in COMMAND_MODULES.items() if only in commands), None)
    root_class = Parser if module is None else _partial_parser_classes()[0]
    parser = root_class(prog="bsi", description="Brain Session Index: claims, gates and signals for a shared brain.")
    add_global_flags(parser, suppress=False)
    parser.add_argument("--version", action="version", version=f"bsi {_version()}")
    # argparse only calls `parser_class(**kwargs)`: a factory does (typeshed asks for a class).
    sub = parser.add_subparsers(dest="command", metavar="COMMAND",
                                parser_class=_parser_factory())  # type: ignore[call-overload]
    parent = global_parent()
    target = sub if only is None else _OnlyCommand(sub, only, action)
    for name, commands in COMMAND_MODULES.items():
        if module is None or name == module:
            importlib.import_module(f"brain_tui.cli.{name}").register(target, parent)
        else:
            for command in commands:
                sub.add_parser(command, help=None, unbuilt=True)
    return parser


def _print_help(parser: Parser) -> None:
    """The top-level help on stderr (`bsi` without a command), from the whole tree when `parser` was built for
    one command (`--br claim` took the command word for its value)."""
    try:
        parser.print_help(sys.stderr)
    except RebuildParser:
        build_parser(only="").print_help(sys.stderr)


def _version() -> str:
    from brain_tui import __version__

    return __version__


def main(argv: Sequence[str] | None = None, *, serve_mcp: McpServer | None = None) -> int:
    """Run `bsi` on `argv` (default: the process's own words after `bsi`) and return its exit code (SPEC 19).

    `serve_mcp`: what `bsi mcp` serves with (`brain_tui.entry` passes the MCP server); without it `bsi mcp` is
    refused as a usage error.
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    if "hook" in args_list:
        from brain_tui.hooks import main as hooks_main

        if hooks_main.is_hook_command(args_list):  # the hot path: no parser tree, only what the event needs
            return hooks_main.run(args_list)
    return _main(args_list, serve_mcp)


def _main(args_list: list[str], serve_mcp: McpServer | None) -> int:
    import argparse

    from brain_tui.cli.common import CommandLineError, Context

    ctx = Context(argparse.Namespace(), serve_mcp=serve_mcp)
    try:
        if not all(word.isascii() for word in args_list):  # (help and usage errors load no core: issue 18)
            from brain_tui.core.command_line import not_utf8

            undecodable = not_utf8(args_list)
            if undecodable is not None:
                from brain_tui.core.errors import InvalidData

                raise InvalidData(f"argument {undecodable} is not UTF-8 text: the brain's names and text are UTF-8")
        try:
            command, action = words_of(args_list)
            parser = build_parser(only=command, action=action)
            args = parser.parse_args(args_list)
        except RebuildParser:
            parser = build_parser()
            args = parser.parse_args(args_list)
        ctx.args = args
        handler = getattr(args, "handler", None)
        if handler is None:
            if args.command is None:
                _print_help(parser)
                return 64
            raise CommandLineError(f"{args.command}: missing subcommand (see bsi {args.command} --help)")
        ctx.reading = is_read(args)
        if getattr(args, "sync", False) and ctx.reading:
            ctx.pull()
        code = handler(ctx)
        ctx.report_applied()
        return int(code or 0)
    except KeyboardInterrupt:
        sys.stderr.write("bsi: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a read-only brain, a denied permission, a full disk: the system's refusal, not a bug
        from brain_tui.core.errors import os_refusal
        from brain_tui.core.rules.authority import current_actor

        refusal = os_refusal(exc, current_actor().is_agent)
        if refusal is None:
            return _internal_error(exc)
        ctx.report_applied()
        return _refuse(refusal, ctx, args_list)
    except Exception as exc:
        if not _is_refusal(exc):
            return _internal_error(exc)
        ctx.report_applied()
        return _refuse(exc, ctx, args_list)


def _is_refusal(exc: Exception) -> bool:
    """True for an error carrying its SPEC 19 exit code: a parse error, or a core `BsiError`.

    The core's errors are looked up only when the core is loaded: a usage error loads none of it.
    """
    from brain_tui.cli.common import CommandLineError, OutputLost

    errors = sys.modules.get("brain_tui.core.errors")
    return isinstance(exc, (CommandLineError, OutputLost)) or (errors is not None and isinstance(exc, errors.BsiError))


def _serves_mcp(ctx: Context, args_list: list[str]) -> bool:
    """True for the command line of the MCP server (`bsi … mcp`, not `bsi mcp install`), parsed or not."""
    parsed = vars(ctx.args)
    if parsed:
        return parsed.get("command") == "mcp" and not parsed.get("mcp_command")
    command, action = words_of(args_list)
    return command == "mcp" and action != "install"


def _refuse(exc: Any, ctx: Context, args_list: list[str]) -> int:
    """Report a refusal: one JSON document with --json, the message on stderr; its exit code.

    `bsi mcp`'s stdout is the protocol's (SPEC 20.3): a refusal of its command line goes to stderr only.
    """
    asked = getattr(ctx.args, "json", False) or (not vars(ctx.args) and "--json" in args_list)
    if asked and not _serves_mcp(ctx, args_list):
        import json

        doc = {"error": exc.message, "exit": exc.exit_code, **({"kind": exc.kind} if exc.kind else {}),
               **exc.payload}
        try:
            sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        except (OSError, AttributeError):  # stdout full or closed: the line on stderr still says what happened
            pass
    inert = _inert_block() if "brain_tui.core" in sys.modules else str  # a usage error loads no core
    for line in exc.message.splitlines() or [""]:
        sys.stderr.write(f"bsi: {inert(line)}\n")
    return int(exc.exit_code)


def _inert_block() -> Callable[[str], str]:
    """`text_safety.inert_block`: a refusal of the core may quote brain text, shown with placeholders."""
    from brain_tui.core.paths.text_safety import inert_block

    return inert_block


def _internal_error(exc: Exception) -> int:
    """A bug: one line, never a traceback (SPEC 13); BSI_DEBUG=1 shows it."""
    if os.environ.get("BSI_DEBUG"):
        raise exc
    from brain_tui.core.paths.text_safety import inert_line

    detail = inert_line(str(exc), 300)
    sys.stderr.write(f"bsi: internal error ({type(exc).__name__}: {detail}); nothing was committed by this "
                     f"command; BSI_DEBUG=1 shows the traceback\n")
    return INTERNAL_ERROR


def run() -> None:
    """`bsi` as `python -m brain_tui.cli.main` or an older console script naming this function: runs
    `brain_tui.entry.run`, the entry above the layers (looked up by name when called: the CLI module itself
    never imports the MCP server)."""
    importlib.import_module("brain_tui.entry").run()


if __name__ == "__main__":
    run()
