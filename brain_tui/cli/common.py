"""What every `bsi` command shares: global flags, the context, output helpers."""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False  # not `typing`: the parser, `--help` and usage errors load no core module (start-up)
if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Collection
    from typing import Any, NoReturn, TypeAlias

    from brain_tui.core.brain import Brain

    #: What serves `bsi mcp` (root, now, stdout) -> exit code: given by `brain_tui.entry`, which stands above
    #: both the CLI and the MCP server.
    McpServer: TypeAlias = Callable[[str | os.PathLike[str], str | None, Any], int]


class CommandLineError(Exception):
    """A usage error found while parsing (exit 64, SPEC 19), raised without loading the core.

    It carries what `brain_tui.core.errors.BsiError` carries, so `bsi` reports both the same way.
    """

    exit_code = 64
    kind: str | None = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.payload: dict[str, Any] = {}


def terminal_columns() -> int:
    """The width `shutil.get_terminal_size` gives (``$COLUMNS``, else the terminal of stdout, else 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter at the width it would choose, found without importing `shutil`.

    argparse makes a formatter for every argument it adds and imports `shutil` for its width, and `shutil`
    loads the bz2 and lzma modules: ~2 ms of every `bsi` start (issue 18).
    """

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, terminal_columns() - 2 if width is None else width)


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as exit 64 (SPEC 19).

    A value that starts with ``-`` and a digit (``--ttl -1h``) is read as a value,
    not as an unknown flag, so a bad value gets its own exit 65 rather than 64.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        import re

        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\d")

    def error(self, message: str) -> NoReturn:
        raise CommandLineError(f"{message}\n{self.format_usage().strip()}")

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """Flags may stand between a command's positionals: `bsi gate request ID --json "why"`.

        argparse alone fills an optional positional (`MESSAGE`, `TTL_MIN`) with nothing when a flag follows
        the one before it, then refuses the word after the flag; a command with one reads flags first, then
        its positionals in order (argparse's intermixed parse). Commands with actions of their own are left
        to argparse's parse, which the intermixed one cannot run.

        A command without actions of its own refuses a word it does not know itself, with its own usage (SPEC 13):
        argparse would hand it up to `bsi`, whose usage says nothing of what the command takes.
        """
        if getattr(self, "_intermixing", False) or self._subparsers is not None:
            return super().parse_known_args(args, namespace)
        if not any(action.nargs == "?" for action in self._get_positional_actions()):
            parsed, extras = super().parse_known_args(args, namespace)
        else:
            self._intermixing = True
            try:
                parsed, extras = self.parse_known_intermixed_args(args, namespace)
            finally:
                self._intermixing = False
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def add_global_flags(parser: argparse.ArgumentParser, *, suppress: bool, hidden: Collection[str] = ()) -> None:
    """The global flags, accepted before or after the command; those in `hidden` are parsed but left out of the
    help (a command that refuses them says so itself)."""
    default: Any = argparse.SUPPRESS if suppress else None
    off: Any = argparse.SUPPRESS if suppress else False

    def shown(flag: str, text: str) -> str:
        return argparse.SUPPRESS if flag in hidden else text

    parser.add_argument("--brain", metavar="PATH", default=default, help=shown("--brain", "the brain folder"))
    parser.add_argument("--now", metavar="ISO", default=default,
                        help=shown("--now", "the time to act at (tests, demos)"))
    parser.add_argument("--json", action="store_true", default=off, help=shown("--json", "one JSON document on stdout"))
    parser.add_argument("--no-commit", dest="no_commit", action="store_true", default=off,
                        help=shown("--no-commit", "leave the change uncommitted"))
    # both hidden: no group (argparse leaves an empty group's gap in the usage line); the command refuses both
    group: Any = parser if {"--sync", "--offline"} <= set(hidden) else parser.add_mutually_exclusive_group()
    group.add_argument("--sync", action="store_true", default=off,
                       help=shown("--sync", "sync with the git remote (fetch, re-check, push)"))
    group.add_argument("--offline", action="store_true", default=off,
                       help=shown("--offline", "record locally; push at the next sync"))


def global_parent(*, hidden: Collection[str] = ()) -> argparse.ArgumentParser:
    """A parent parser carrying the global flags, for every subcommand (those in `hidden` left out of its help)."""
    parent = Parser(add_help=False)
    add_global_flags(parent, suppress=True, hidden=hidden)
    return parent


def add_command(sub: Any, parent: argparse.ArgumentParser, name: str, help_text: str,
                handler: Callable[[Context], int], *positionals: str, **defaults: Any) -> Any:
    """Add the subcommand `name` of `sub`, with the plain positional arguments `positionals`, run by
    `handler` (with `defaults` set too); its parser is returned, for more arguments."""
    p = sub.add_parser(name, help=help_text, parents=[parent])
    for positional in positionals:
        p.add_argument(positional)
    p.set_defaults(handler=handler, **defaults)
    return p


class Context:
    """The parsed command line and lazily opened brain."""

    def __init__(self, args: argparse.Namespace, brain: Brain | None = None, reading: bool = False,
                 serve_mcp: McpServer | None = None) -> None:
        self.args = args
        self._brain = brain
        #: What `bsi mcp` serves with (None: the command line runs without the MCP server).
        self.serve_mcp = serve_mcp
        #: True for a command that only reads (`main.READ_COMMANDS`): a broken brain-compose.yml only warns.
        self.reading = reading

    @property
    def json(self) -> bool:
        """True with --json."""
        return bool(getattr(self.args, "json", False))

    @property
    def brain(self) -> Brain:
        """The Brain (found from --brain, $BRAIN_ROOT, or the current folder)."""
        if self._brain is None:
            from brain_tui.core.brain import Brain, find_root
            from brain_tui.core.errors import UsageError

            root = find_root(getattr(self.args, "brain", None))
            no_commit = bool(getattr(self.args, "no_commit", False))
            sync = "sync" if getattr(self.args, "sync", False) else None
            if getattr(self.args, "offline", False):
                if sync == "sync":
                    raise UsageError("--sync and --offline do not go together: choose one")
                sync = "offline"
            if sync == "sync" and no_commit:
                raise UsageError("--sync and --no-commit do not go together: a synced change is a pushed commit")
            self._brain = Brain(root, now=getattr(self.args, "now", None), commit=not no_commit, sync=sync)
            self._brain.on_lock_wait = lambda note: self.say(f"bsi: {note}")
            from brain_tui.core.network import network_timeout_problem

            timeout_note = network_timeout_problem()
            for note in [*self._brain.config.warnings(reading=self.reading), *filter(None, [timeout_note])]:
                self.say(f"bsi: warning: {note}")
        return self._brain

    def pull(self) -> None:
        """`--sync` on a read: bring the remote's changes in first (the explicit pull step)."""
        if self.brain.config.problem:
            return  # pulling writes (rebase, index); the warning already says why it is skipped
        from brain_tui.core.rules.reconcile import dropped_warning

        report = self.brain.pull()
        for renamed in report.renamed:
            self.say(f"bsi: {renamed.old} was also opened on another machine, which pushed it first: "
                     f"the local claim is now {renamed.new}")
        for item in report.lost:
            self.say(f"bsi: lost while offline: {item.sess_id} on {item.scope}; marked failed")
        for subject in report.dropped:
            self.say(f"bsi: {dropped_warning(subject)}")
        for note in report.notes:
            self.say(f"bsi: {note}")

    def emit(self, data: Any, text: str | None = None) -> None:
        """Print a result: JSON with --json, else `text` (when given).

        Raises:
            OutputLost: stdout refused the result (a full disk, a closed descriptor); the command itself ran.
        """
        if self.json:
            from brain_tui.core.json_shape import json_text

            print_out(json_text(data) + "\n")
        elif text is not None:
            from brain_tui.core.paths.text_safety import inert_block

            # brain text it quotes (an instance, a scope read from a file) reaches the terminal inert (SPEC 15)
            text = inert_block(text)
            print_out(text + ("\n" if text and not text.endswith("\n") else ""))

    def say(self, message: str) -> None:
        """A message for humans, on stderr; a hidden character of brain text it quotes shows as its placeholder."""
        from brain_tui.core.paths.text_safety import inert_block

        sys.stderr.write(inert_block(message.rstrip("\n")) + "\n")

    def emit_claim(self, sess_id: str, outcome: dict[str, Any], text: str) -> None:
        """Print a write's result on one claim: with --json the claim as it now is and the write's own keys over
        it (`views.claim_result`); else `text`."""
        if not self.json:
            self.emit(None, text)
            return
        from brain_tui.core.records.views import claim_result

        applied = self.brain.last_applied
        self.emit(claim_result(sess_id, applied.snapshot if applied else None, self.brain.snapshot, outcome))

    def report_applied(self) -> None:
        """Print warnings and imported signals of the last write on stderr."""
        brain = self._brain
        applied = brain.last_applied if brain is not None else None
        if applied is None:
            return
        for warning in applied.warnings:
            self.say(f"bsi: warning: {warning}")
        if applied.imported_signals:
            self.say(f"bsi: imported {len(applied.imported_signals)} legacy signal rows from BRAIN-INDEX.md")


class OutputLost(Exception):
    """stdout refused a result the command had already reached (exit 74, EX_IOERR): the command ran, its
    printed result is what was lost, so the message never says that nothing was done."""

    exit_code = 74
    kind: str | None = None

    def __init__(self, reason: str) -> None:
        self.message = (f"cannot print the result on stdout: {reason}; the command itself ran to its end "
                        "(a change it made is in place: `bsi claim list`, `git log`)")
        super().__init__(self.message)
        self.payload: dict[str, Any] = {}


def print_out(text: str) -> None:
    """Write `text` on stdout and flush it.

    Raises:
        OutputLost: stdout is closed or refused the write (a full disk, an I/O error); a closed pipe stays a
            `BrokenPipeError` (the reader went away: not an error of the command).
    """
    stdout = sys.stdout
    if stdout is None:
        raise OutputLost("stdout is closed")
    try:
        stdout.write(text)
        stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputLost(exc.strerror or type(exc).__name__) from exc


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain aligned text table (no colours: output may be piped); every cell is brain text made inert (SPEC 15:
    a control, escape or bidi character is shown as its ``⟨ESC⟩``-style placeholder, never sent to the terminal)."""
    if not rows:
        return ""
    rows = [[_inert_cell(cell) for cell in row] for row in rows]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True)).rstrip()]
    for row in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


def _inert_cell(value: object) -> str:
    text = str(value)
    if text.isascii() and text.isprintable():
        return text
    from brain_tui.core.paths.text_safety import fold_placeholder

    return "".join(fold_placeholder(ch) or ch for ch in text)


def one_line(text: object, limit: int = 60) -> str:
    """Brain text on one line, cut at `limit` with an ellipsis: whitespace collapsed, every hidden character (a
    control, a bidi override, a zero-width character) its visible placeholder (SPEC 15: core's `inert_line`)."""
    from brain_tui.core.paths.text_safety import inert_line

    return inert_line(text, limit)
