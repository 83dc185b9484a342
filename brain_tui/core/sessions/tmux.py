"""tmux as the launcher of satellites (SPEC 20.5): the new window, and attaching to it.

tmux reads its own argv, which must not let claim text through as tmux syntax:
an argument ending in ``;`` ends the command and starts another (``x;`` then
``run-shell …`` would run a shell command), a single command argument is run
by a shell, and ``-n`` names and ``-c`` folders are format-expanded (``#(…)``
runs a command); and it carries its command line in one message of about 16 KiB,
which the longest claim text fills. So the agent's argv never travels on tmux's
command line: it is written to ``.brain/launch/<sess-id>.<token>.argv.json`` (`launch.argv_file`, one per launch),
which the launch root (`core.sessions.launch_root`) waits for, reads and removes (it is written only
once the launch is recorded: a launcher that ends before its record starts no agent); what tmux
runs is that root, always several arguments; every argument is escaped for ``;``,
``#`` is doubled in the folder, and window names come from `launch.window_name`
(``[A-Za-z0-9._-]`` only).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from brain_tui.core.errors import InvalidData, NotFound, UsageError
from brain_tui.core.record import record
from brain_tui.core.records.yamlio import atomic_write_text
from brain_tui.core.sessions.launch import (
    LaunchPlan,
    LaunchRecord,
    argv_file,
    create_time,
    one_line,
    require_program,
    write_settings,
)
from brain_tui.core.sessions.launch_root import root_argv_file

#: What tmux prints of the new window: the fields without spaces first; a session name may hold spaces but
#: never ``:`` (tmux refuses it), so the session, the window index and the socket path end the line, ``:``-separated.
LAUNCH_FORMAT = "#{window_id} #{pane_id} #{pane_pid} #{session_name}:#{window_index}:#{socket_path}"
#: A tmux command that has not answered after this many seconds never will (a stopped server, a hung client).
TMUX_TIMEOUT_S = 10.0


def run_tmux(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run one tmux command (an argv list, no stdin), its output captured, within `TMUX_TIMEOUT_S`.

    Raises:
        InvalidData: tmux did not answer in time (65; its client is killed).
    """
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
                              timeout=TMUX_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        args = argv[3:] if argv[1:2] == ["-S"] else argv[1:]
        raise InvalidData(f"tmux {args[0] if args else ''} did not answer within {TMUX_TIMEOUT_S:g} s (is its "
                          "server stopped?)") from None


def parse_launch_output(text: str) -> tuple[str, str, int, str, str]:
    """`LAUNCH_FORMAT` as printed: (window id, pane id, pane pid, ``session:index`` target, socket path)."""
    head = text.strip("\n").split(" ", 3)
    window, pane, pid_text, rest = (head + ["", "", "0", ""])[:4]
    session, _, rest = rest.partition(":")
    index, _, socket = rest.partition(":")
    target = f"{session}:{index}" if session or index else ""
    return window, pane, int(pid_text) if pid_text.isdigit() else 0, target, socket


def tmux_arg(arg: str) -> str:
    """One argument as tmux must receive it to pass it on unchanged.

    tmux ends a command at an argument ending in ``;`` unless that ``;`` is escaped as ``\\;``.
    """
    return arg[:-1] + "\\;" if arg.endswith(";") else arg


#: What a tmux session name keeps: tmux stores ``.`` and ``:`` as ``_``, so a name holding them is never found again.
_SESSION_NAME_RE = re.compile(r"[^A-Za-z0-9_-]+")


def tmux_session_name(brain_name: str) -> str:
    """The tmux session used for launches when the caller is not inside tmux (the name tmux keeps as given)."""
    return "bsi-" + (_SESSION_NAME_RE.sub("-", brain_name).strip("-")[:30] or "brain")


def tmux_command(plan: LaunchPlan, *, inside_tmux: bool, session: str, session_exists: bool,
                 tmux: str = "tmux", program: str | None = None, handed: Path | None = None) -> list[str]:
    """The tmux argv that starts `plan` in a new, detached window (every argument escaped for tmux).

    The window runs bsi's launch root, which runs the plan's argv (`program`: its program's path, default
    the argv's first element) as its child: the pane's process is the launch root. It is always several
    arguments (tmux runs a single one by a shell). The argv itself is read from `launch.argv_file` (written by
    `start_tmux`), never from tmux's command line. Inside tmux: a window in the current session. Outside:
    a window in `session` (created when it does not exist yet). `handed`: the file the root waits for (default
    `launch.argv_file` without a token).
    """
    command = root_argv_file(program or plan.argv[0], str(handed or argv_file(Path(plan.cwd), plan.sess_id)))
    fmt = LAUNCH_FORMAT
    if inside_tmux or session_exists:
        head = [tmux, "new-window", "-d", "-P", "-F", fmt, "-n", plan.name]
        if not inside_tmux:
            head += ["-t", f"={session}:"]
    else:
        head = [tmux, "new-session", "-d", "-P", "-F", fmt, "-s", session, "-n", plan.name]
    env_args: list[str] = []
    for key, value in plan.env.items():
        env_args += ["-e", f"{key}={value}"]
    args = [*head, *env_args, "-c", plan.cwd.replace("#", "##"), "--", *command]
    return [args[0], *(tmux_arg(a) for a in args[1:])]


def handover_file(plan: LaunchPlan) -> Path:
    """A new launch's own argv file (`launch.argv_file` with a random token)."""
    import secrets

    return argv_file(Path(plan.cwd), plan.sess_id, secrets.token_hex(8))


def start_tmux(plan: LaunchPlan, *, brain_name: str, started_at: str, handed: Path | None = None) -> LaunchRecord:
    """Start the agent's launch root in a new tmux window and return what to remember; the root waits for its argv
    in `handed` (default: a new `handover_file`), which `hand_argv` writes once the record is written.

    Raises:
        UsageError: tmux is not installed (exit 64). NotFound: the agent's program is not (66).
        InvalidData: tmux refused, or did not answer within `TMUX_TIMEOUT_S` (65).
    """
    tmux = shutil.which("tmux")
    if tmux is None:
        raise UsageError("launch: tmux is not installed (set `launch.tmux: false` to run in this terminal)")
    program = require_program(plan)
    inside = bool(os.environ.get("TMUX"))
    session = tmux_session_name(brain_name)
    exists = False
    if not inside:
        probe = run_tmux([tmux, "has-session", "-t", f"={session}"])
        exists = probe.returncode == 0
    handed = handed or handover_file(plan)
    argv = tmux_command(plan, inside_tmux=inside, session=session, session_exists=exists, tmux=tmux,
                        program=program, handed=handed)
    write_settings(plan)
    done = run_tmux(argv)
    if done.returncode != 0:
        reason = one_line(done.stderr or done.stdout)[:200] or f"exit {done.returncode}"
        raise InvalidData(f"launch: tmux refused the new window: {reason}")
    window, pane, pid, target, socket = parse_launch_output(done.stdout)
    return LaunchRecord(sess_id=plan.sess_id, mode="tmux", pid=pid, create_time=create_time(pid),
                        started_at=started_at, window=window, target=target, socket=socket, name=plan.name,
                        pane=pane)


def hand_argv(plan: LaunchPlan, handed: Path) -> None:
    """Hand the agent's argv to the launch root `start_tmux` started on `handed`, which waits for it (after the launch
    is recorded: a launcher that ends before its record never starts an agent)."""
    atomic_write_text(handed, json.dumps(list(plan.argv), ensure_ascii=False) + "\n")


@record
class AttachCommand:
    """How to show a launched agent's tmux window.

    Attributes:
        argv: the tmux command line.
        takes_terminal: True when it attaches this terminal (the caller gives it the screen until
            the user detaches); False when it only switches the current tmux client.
    """

    argv: tuple[str, ...]
    takes_terminal: bool


def attach_command(record: LaunchRecord, *, current_tmux: str | None, read_only: bool = False) -> AttachCommand:
    """The tmux command that shows a launched agent's window: inside the same tmux server (`current_tmux`,
    the caller's ``$TMUX``) the client switches to it; elsewhere a terminal attaches to it. `read_only` (a
    `--readonly` cockpit) always attaches a read-only client (`attach-session -r`): a switched client would take
    the pilot's keys to the agent's pane.

    Raises:
        NotFound: the launch did not run in tmux (exit 66).
        UsageError: tmux is not on PATH (exit 64).
    """
    if record.mode != "tmux" or not record.window:
        raise NotFound(f"{record.sess_id} was not launched in tmux: nothing to attach to")
    if shutil.which("tmux") is None:
        raise UsageError("attach: tmux is not installed")
    base = ["tmux"] + (["-S", record.socket] if record.socket else [])
    if read_only:
        return AttachCommand((*base, "attach-session", "-r", "-t", record.window), takes_terminal=True)
    same_server = bool(current_tmux) and (not record.socket or str(current_tmux).split(",")[0] == record.socket)
    if same_server:
        return AttachCommand((*base, "switch-client", "-t", record.window), takes_terminal=False)
    return AttachCommand((*base, "attach-session", "-t", record.window), takes_terminal=True)
