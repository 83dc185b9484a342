"""`bsi [--brain PATH] [--now ISO] hook EVENT [--agent claude|codex|gemini]`: read, decide, answer, exit 0 or 2.

Reached straight from `bsi`'s entry point, before the command-line parser is
built: the hook path imports only what its event needs. Whatever happens,
the process exits 0 or 2 (Claude Code reads any other code, 1 included, as
"go ahead") and no traceback is ever printed: a `pre-tool-use` that cannot
decide for a bound session fails closed (exit 2, one line and the command
to check by hand); every other event, and an unbound session, goes on with a note.

The hook never outruns the timeout its installer writes (`HOOK_TIMEOUT_S` in
core/agent_settings/claude.py, 10 s; Claude Code treats a timed-out hook as "go ahead"): it
keeps its own deadline, `DEADLINE_S` from the process start, and a bound
session's write it has not decided by then is denied ("brain busy, retry").
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time


def _process_start() -> float:
    """When this process started, on the `time.monotonic()` scale (Linux: from /proc; else: now)."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", encoding="ascii", errors="replace") as handle:
            ticks = int(handle.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
        age = uptime - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return now
    return now - min(max(age, 0.0), 60.0)


#: When this process started. A `bsi … hook EVENT` process counts its deadline from here (its first
#: run); any other call of `run` (in process, or a later one) from the call itself.
STARTED = _process_start()
_FIRST_RUN = [True]
#: The hook's own deadline, in seconds from `STARTED`: below the 10 s timeout `bsi hooks install` writes.
DEADLINE_S = 8.0

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence
    from typing import Any, BinaryIO, TextIO

USAGE = "usage: bsi hook EVENT [--agent claude|codex|gemini]  (EVENT: {events})"
HELP = ("Run one agent hook: read the client's event (one JSON object) on stdin and answer it; exit 0 (go on) or 2\n"
        "(denied). The clients run it as `bsi hooks install` wrote it into their settings.")
_VALUE_FLAGS = ("--brain", "--now", "--agent")
_BARE_FLAGS = ("--json", "--no-commit", "--sync", "--offline")


def is_hook_command(argv: Sequence[str]) -> bool:
    """True when the command line is `bsi [global flags] hook …` (checked before any parser is built)."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("--brain", "--now"):
            skip = True
            continue
        if arg.startswith(("--brain=", "--now=")) or arg in _BARE_FLAGS:
            continue
        return arg == "hook"
    return False


def find_brain(explicit: str | None, environ: dict[str, str], event: dict[str, Any], files: list[str]) -> str | None:
    """The brain: `--brain`, `$BRAIN_ROOT`, `$CLAUDE_PROJECT_DIR`, the event's cwd, then up from the file.

    Returns:
        The brain folder, or None when none is found from the places an agent gives.

    Raises:
        NotFound: `--brain` or `$BRAIN_ROOT` names a folder that is not a brain.
    """
    from brain_tui.core.paths.layout import ROOT_VARIABLE, find_root, locate_brain

    if explicit or environ.get(ROOT_VARIABLE):
        return str(find_root(explicit or None, environ=environ))
    cwd = event.get("cwd")
    starts: list[str] = [environ.get("CLAUDE_PROJECT_DIR", ""), cwd if isinstance(cwd, str) else ""]
    return locate_brain(None, environ, starts + [os.path.dirname(f) for f in files])


class DeadlineExceeded(BaseException):  # noqa: N818 - not an error of the input: the clock ran out
    """The hook's deadline passed (a BaseException, so no `except Exception` on the way swallows it)."""


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise DeadlineExceeded


def _arm(seconds: float) -> Any:
    """Raise `DeadlineExceeded` in `seconds` (SIGALRM; the main thread only). Returns what `_disarm` restores.

    A deadline already past arms nothing: `_run` reads the event, then finds it past (so the answer knows
    whose write it refuses)."""
    if seconds <= 0:
        return None
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return None
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return previous


def _disarm(previous: Any) -> None:
    if previous is None:
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def run(argv: Sequence[str], stdin: BinaryIO | None = None, stdout: TextIO | None = None,
        stderr: TextIO | None = None, environ: dict[str, str] | None = None, *,
        started: float | None = None, deadline_s: float = DEADLINE_S) -> int:
    """Run one hook (`argv`: the command line after `bsi`, global flags allowed); its exit code: 0 or 2, ever.

    Streams and environment are the process's own by default. `started` (`time.monotonic()`) defaults to the
    process's start (`STARTED`) for the first run of a `bsi hook` process, else the call itself; the deadline
    is `deadline_s` after it.
    """
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    env = dict(os.environ if environ is None else environ)
    if started is None:
        started = STARTED if _FIRST_RUN[0] and is_hook_command(sys.argv[1:]) else time.monotonic()
    _FIRST_RUN[0] = False
    deadline_at = started + deadline_s
    seen: dict[str, Any] = {"deadline_at": deadline_at}
    try:
        previous = _arm(deadline_at - time.monotonic())
        try:
            # a process started with stdin closed (`<&-`) has no `sys.stdin`: input that cannot be read
            code, text, note = _run(argv, stdin if stdin is not None else getattr(sys.stdin, "buffer", None), env,
                                    seen)
        finally:
            _disarm(previous)
    except DeadlineExceeded:
        code, text, note = _busy(seen, env, deadline_s)
    except BaseException as exc:  # noqa: BLE001 - the contract: exit 0 or 2, never a traceback
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            code, text, note = 2, "", "bsi hook: interrupted\n"
        else:
            code, text, note = 2, "", f"bsi hook: internal error ({type(exc).__name__}): check by hand with " \
                                      "`bsi preflight check ID FILE`\n"
    _say(out, text)
    _say(err, note)
    return code if code in (0, 2) else 2


def _say(stream: TextIO | None, text: str) -> None:
    """Write `text` on `stream`, if it can be written: a stream closed at the start (`>&-`: None) or since (a
    broken pipe) loses only its own text; the exit code stays the decision."""
    if not text or stream is None:
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        pass


def _busy(seen: dict[str, Any], env: dict[str, str], deadline_s: float) -> tuple[int, str, str]:
    """No decision by the deadline: a bound session's write is denied ("brain busy, retry"); else a note."""
    from brain_tui.hooks import events, wire

    reason = f"brain busy: no decision within {deadline_s:g} s (the hook's deadline), retry"
    ctx = events.HookContext(seen.get("event_name", ""), seen.get("event", {}), seen.get("agent", "claude"),
                             seen.get("root"), None, env)
    if ctx.event_name != "pre-tool-use":
        return 0, "", f"bsi hook {ctx.event_name or '?'}: {reason} (not enforced: nothing to protect here)\n"
    try:
        if ctx.root is None:
            files = wire.target_files(ctx.event) or []
            ctx.root = find_brain(seen.get("flags", {}).get("brain"), env, ctx.event, files)
    except Exception:  # noqa: BLE001 - no brain found: only `$BSI_SESSION` can tell the session is bound
        ctx.root = None
    bound = _bound(ctx)
    if bound:
        return _denied(ctx, f"{reason}. Check by hand: `bsi preflight check {bound[0]} FILE`")
    if _undecided_write(ctx):
        return _denied(ctx, f"{reason}. Check by hand: `bsi check-scope FILE`")
    return 0, "", f"bsi hook pre-tool-use: {reason} (no write into a brain: not enforced)\n"


def _undecided_write(ctx: Any) -> bool:
    """True when the event is a write (a file tool naming a file, a shell command, a line typed into a running shell)
    and a brain was found, or the write lands in one (the brain `--brain` or `$BRAIN_ROOT` names is none:
    `landing.lands_in_brain`): an unbound session's write the hook could not decide may land in a claimed scope, so
    it fails closed too."""
    from brain_tui.hooks import wire

    if not isinstance(ctx.event, dict):
        return False
    try:
        shell = wire.shell_command(ctx.event)
        if shell is None:  # text typed into a running shell (Codex `write_stdin`) is shell lines too
            shell = wire.typed_text(ctx.event) or None
        files = wire.target_files(ctx.event) or []
    except Exception:  # noqa: BLE001 - an event that cannot be read as a write or not: fail closed
        return ctx.root is not None
    if not (shell or files):
        return False
    if ctx.root is not None:
        return True
    from brain_tui.core.rules.landing import lands_in_brain, write_folder

    try:
        cwd = write_folder(ctx.event.get("cwd"))
        return lands_in_brain(files, shell or None, cwd, wire.shell_cwd(ctx.event, cwd))
    except Exception:  # noqa: BLE001 - where it lands cannot be read: fail closed
        return True


def _bound(ctx: Any) -> list[str]:
    """The claims the session holds; a binding that cannot be read counts as bound (fail closed)."""
    from brain_tui.hooks import events

    try:
        return events.bound_claims(ctx)
    except Exception:  # noqa: BLE001 - fail closed
        return ["ID"]


def _denied(ctx: Any, reason: str) -> tuple[int, str, str]:
    """The write denied with `reason` (a note only under ``BSI_HOOKS=warn``): exit code, stdout, stderr."""
    from brain_tui.hooks import wire

    if ctx.environ.get("BSI_HOOKS", "").strip().lower() == "warn":
        return 0, wire.dumps(wire.note(f"bsi: note (BSI_HOOKS=warn): {reason}")), f"bsi: note: {reason}\n"
    return wire.deny_exit(ctx.agent), wire.dumps(wire.deny(reason, ctx.agent)), f"bsi: {reason}\n"


def _run(argv: Sequence[str], stream: BinaryIO | None, env: dict[str, str],
         seen: dict[str, Any] | None = None) -> tuple[int, str, str]:
    """Parse, read the event, try the fast path, then decide; `seen` keeps what is known so far (for `_busy`)."""
    seen = {} if seen is None else seen
    from brain_tui.core.command_line import split_flags
    from brain_tui.hooks import wire

    events = ", ".join(wire.EVENT_NAMES)
    if _asks_help(argv, wire.EVENT_NAMES):
        return 0, f"{USAGE.format(events=events)}\n\n{HELP}\n", ""
    try:
        flags, rest = split_flags(argv, _VALUE_FLAGS, _BARE_FLAGS)
    except ValueError as exc:
        return _unreadable(argv, f"bsi hook: {exc}; {USAGE.format(events=events)}")
    if rest[:1] == ["hook"]:
        rest = rest[1:]
    if len(rest) > 1 and rest[0] in wire.EVENT_NAMES:
        return _unreadable(argv, f"bsi hook {rest[0]}: one event expected, {len(rest) - 1} more word(s) given "
                                 f"({rest[1][:40]!r}); {USAGE.format(events=events)}")
    if len(rest) != 1 or rest[0] not in wire.EVENT_NAMES:
        given = repr(rest[0][:40]) if rest else "no event"
        return 2, "", f"bsi hook: {given} is not a hook event; {USAGE.format(events=events)}\n"
    event_name = rest[0]
    agent = flags.get("agent", "claude")
    if agent not in wire.AGENTS:
        return _unreadable(argv, f"bsi hook: unknown agent {agent[:40]!r}: claude, codex or gemini")
    seen.update(event_name=event_name, agent=agent)
    bad: str | None = None
    event: dict[str, Any] = {}
    try:
        if stream is None:
            raise wire.BadInput("stdin is closed (expected one JSON object)")
        event = wire.read_event(stream)
    except wire.BadInput as exc:
        bad = str(exc)
    except OSError as exc:
        bad = f"stdin could not be read ({type(exc).__name__})"
    agent = wire.sender(event, flags.get("agent"))
    seen.update(event=event, flags=flags, agent=agent)
    if time.monotonic() >= seen.get("deadline_at", float("inf")):
        raise DeadlineExceeded
    if event_name == "pre-tool-use" and bad is None:
        from brain_tui.hooks import fast

        try:
            quick = fast.decide(event, flags, env)
        except Exception:  # noqa: BLE001 - the shortcut only ever speeds up; the core decides otherwise
            quick = None
        if quick is not None:
            return quick
    return _decide(event_name, event, agent, flags, env, bad, seen)


def _asks_help(argv: Sequence[str], event_names: Collection[str]) -> bool:
    """True for `bsi hook --help` (or `-h`) naming no event: a person asking, never a hook line of a client.

    A line that names an event keeps its meaning whatever else it carries: `pre-tool-use --help` cannot be read
    and denies, as any unknown flag there does.
    """
    return any(arg in ("-h", "--help") for arg in argv) and not any(arg in event_names for arg in argv)


def _unreadable(argv: Sequence[str], line: str) -> tuple[int, str, str]:
    """A hook command line that cannot be read: `line` on stderr; exit 2 only where a write may be at stake.

    Only `pre-tool-use` denies anything (SPEC 20.2); every other event never blocks (`session-start` always
    exits 0, and an exit 2 would block the user's prompt or the agent's stop), so a hook line written wrong
    for one of them is said, and the agent goes on. A line naming no known event exits 2: nothing says it
    is not a `pre-tool-use`.
    """
    from brain_tui.hooks import wire

    skip = False
    named: str | None = None
    for arg in argv:
        if skip:
            skip = False
        elif arg in _VALUE_FLAGS:
            skip = True
        elif arg in wire.EVENT_NAMES:
            named = arg
            break
    return (2 if named in (None, "pre-tool-use") else 0), "", line + "\n"


def _decide(event_name: str, event: dict[str, Any], agent: str, flags: dict[str, str], env: dict[str, str],
            bad: str | None, seen: dict[str, Any] | None = None) -> tuple[int, str, str]:
    from brain_tui.hooks import events, wire

    ctx = events.HookContext(event_name, event, agent, None, flags.get("now"), env)
    try:
        files = (wire.target_files(event) or []) if bad is None else []
        ctx.root = find_brain(flags.get("brain"), env, event, files)
        if seen is not None:
            seen["root"] = ctx.root
        if bad is not None:
            raise wire.BadInput(bad)
        answer = events.handler(event_name)(ctx)
        return answer.code, answer.out, answer.err
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback; fail closed when bound
        return _failure(ctx, exc)


def _failure(ctx: Any, exc: Exception) -> tuple[int, str, str]:
    """Fail closed for a write in a brain (`_undecided_write`, or any tool of a bound session); any other event
    goes on with a note."""
    from brain_tui.core.errors import BsiError, os_refusal
    from brain_tui.core.paths.text_safety import inert_line as fact
    from brain_tui.hooks import wire

    if isinstance(exc, OSError):  # the system's refusal (read-only, full, a file in the way), as the CLI words it
        exc = os_refusal(exc, agent=False) or exc
    what = exc.message if isinstance(exc, BsiError) else str(exc) if isinstance(exc, wire.BadInput) \
        else f"internal error ({type(exc).__name__})"
    what = fact(what, 300)
    bound = _bound(ctx) if ctx.event_name == "pre-tool-use" else []
    if not bound and not (ctx.event_name == "pre-tool-use" and _undecided_write(ctx)):
        return 0, "", f"bsi hook {ctx.event_name}: {what} (not enforced: nothing to protect here)\n"
    file = _file_to_check(ctx)
    check = f"bsi preflight check {bound[0]} {fact(file, 200)}" if bound else f"bsi check-scope {fact(file, 200)}"
    return _denied(ctx, f"bsi hook pre-tool-use could not decide: {what}. Check by hand: `{check}`")


def _file_to_check(ctx: Any) -> str:
    """The file a check by hand names: the tool's first target relative to the brain (`bsi preflight check` and
    `bsi check-scope` refuse an absolute path), as given when it is outside the brain, ``FILE`` when none is read."""
    from brain_tui.hooks import wire

    try:
        files = (wire.target_files(ctx.event) or ["FILE"]) if isinstance(ctx.event, dict) else ["FILE"]
    except Exception:  # noqa: BLE001 - the event's own fault: the check names no file
        return "FILE"
    if ctx.root is None or files[0] == "FILE":
        return files[0]
    from brain_tui.hooks.events import relative_to_brain

    try:
        return relative_to_brain(ctx.root, files[0], ctx.cwd) or files[0]
    except Exception:  # noqa: BLE001 - a path that does not resolve: named as the tool gave it
        return files[0]
