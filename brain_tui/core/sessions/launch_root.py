"""The launch root: the process every launched command runs under (SPEC 20.5, 21.1).

`bsi launch` never starts `launch.command` itself: it starts this small program
(``python -I …/launch_root.py --exec PROGRAM -- ARGV…``, argv only), which starts
the command as its child, passes it SIGTERM, SIGHUP, SIGINT and SIGQUIT, waits,
and ends as the command ended. `core.agent_tree` counts this process as an agent
process: a launched satellite is an agent, whoever launched it, so everything
below it is an agent's even when it strips its markers (``exec env -u
BSI_SESSION …``) and even when its parent is a tmux server or pid 1. Its pid is
the launch's pid (``.brain/launches/``, the tmux pane's process): it lives as long
as the command does.

The terminal stays the command's: the child keeps this process's file
descriptors and process group (it is the foreground job). What a terminal's key
(^C, ^\\) sends goes to the whole foreground group, so it already reached the
child: it is passed on only when the child left the group. A hangup reaches only
the session leader (this process, in a tmux pane): it is always passed on.
Linux: when this process is killed (SIGKILL), the child is killed too
(``PR_SET_PDEATHSIG``), so no launched command outlives its record. Standard library only, and run by path in
isolated mode: it imports nothing of the package.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Sequence

#: The signals passed on to the command.
FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT)
#: `si_code` of a signal the kernel sent (a terminal's ^C, ^\\, hangup), Linux.
_SI_KERNEL = 0x80
#: `prctl` option: the signal a child gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1
#: Exit code when the command cannot be started (as a shell says of a program it cannot run).
CANNOT_RUN = 127
USAGE = 64


#: How long a root started by tmux waits for its argv file: `bsi launch` writes it only once the launch is recorded.
HANDOVER_WAIT_S = 20.0


def root_argv_file(program: str, path: str, wait: float | None = None) -> list[str]:
    """The argv that runs the command whose argv the JSON file `path` holds (read, then removed, by the root).

    What a tmux window runs: tmux carries its own command line in one message of about 16 KiB, which the longest
    claim text fills (a story of 8,000 characters, in `{story}` and `{prompt}` alike); a file carries any argv.
    The root waits up to `wait` seconds (default `HANDOVER_WAIT_S`) for the file to appear: the launcher writes it
    after it recorded the launch, so a launcher that ends before its record leaves no agent it does not know of.
    """
    python = sys.executable or "python3"
    seconds = HANDOVER_WAIT_S if wait is None else wait
    return [python, "-I", os.path.abspath(__file__), "--exec", program, "--argv-file", path, "--wait", f"{seconds:g}"]


def _open_handed(path: str, wait: float) -> int:
    """A descriptor of the file `path`, waiting up to `wait` seconds for it to appear (FileNotFoundError after)."""
    import time

    deadline = time.monotonic() + wait
    while True:
        try:
            return os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def _read_argv(path: str, wait: float = 0.0) -> list[str] | None:
    """The argv list in the JSON file `path` (awaited up to `wait` seconds), which is removed whatever it holds; None
    when it is not one."""
    import json

    try:
        fd = _open_handed(path, wait)
        with os.fdopen(fd, "rb") as handle:
            data = json.loads(handle.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    if isinstance(data, list) and data and all(isinstance(arg, str) for arg in data):
        return data
    return None


def root_argv(program: str, argv: Sequence[str]) -> list[str]:
    """The argv that runs `argv` (its program resolved to `program`) under the launch root."""
    python = sys.executable or "python3"
    return [python, "-I", os.path.abspath(__file__), "--exec", program, "--", *argv]


def _death_signal() -> object:
    """A callable that makes the calling process get SIGKILL when its parent dies (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, ImportError):
        return None


def _start(program: str, argv: list[str], prctl: object) -> int:
    """Fork the command: the child's signal mask and dispositions as a fresh program expects them."""
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: nothing here may return into the parent's code
        if callable(prctl):
            prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
            if os.getppid() != parent:  # the root died before the death signal was set
                os._exit(CANNOT_RUN)
        for number in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores these; a program expects the default
            signal.signal(number, signal.SIG_DFL)
        for number in FORWARDED:
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        if os.sep in program:
            os.execv(program, argv)
        os.execvp(program, argv)  # a bare name: looked up on PATH
    except BaseException:  # noqa: BLE001 - the child reports through its exit code only
        pass
    try:
        os.write(2, f"bsi launch: cannot run {program!r}\n".encode("utf-8", "replace"))
    finally:
        os._exit(CANNOT_RUN)


def _exit_as(status: int) -> int:
    """End as the command ended: its exit code, or the signal that killed it (raised again on this process)."""
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        return code
    number = -code
    try:
        if number not in (signal.SIGKILL, signal.SIGSTOP):  # those have no handler to reset
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
    except (OSError, ValueError):
        pass
    return 128 + number


#: What a terminal's keys send to its whole foreground group (a hangup goes to the session leader only).
_KEYS = (signal.SIGINT, signal.SIGQUIT)


def _forward(pid: int, number: int, from_kernel: bool) -> None:
    """Pass a signal on to the command, unless the terminal already sent it to the command's group (^C, ^\\)."""
    try:
        if from_kernel and number in _KEYS and os.getpgid(pid) == os.getpgrp():
            return
        os.kill(pid, number)
    except OSError:  # the command has just ended: its end is reaped next
        pass


def run(program: str, argv: list[str]) -> int:
    """Start the command, pass signals on to it, wait, and give its exit code."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # an inherited SIG_IGN would reap the child unseen
    watched = {*FORWARDED, signal.SIGCHLD}
    waits = hasattr(signal, "sigwaitinfo")
    if waits:
        signal.pthread_sigmask(signal.SIG_BLOCK, watched)
        pid = _start(program, argv, _death_signal())
        while True:
            info = signal.sigwaitinfo(watched)
            if info.si_signo != signal.SIGCHLD:
                _forward(pid, info.si_signo, info.si_code == _SI_KERNEL)
                continue
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == pid:
                return _exit_as(status)
    # no sigwaitinfo (macOS): handlers pass every signal on, except what the terminal sent the whole group
    pid = _start(program, argv, None)
    for number in FORWARDED:
        signal.signal(number, lambda n, _f: _forward(pid, n, True))
    while True:
        done, status = os.waitpid(pid, 0)
        if done == pid:
            return _exit_as(status)


def main(args: Sequence[str]) -> int:
    """``--exec PROGRAM -- ARGV…`` or ``--exec PROGRAM --argv-file FILE [--wait S]``: run ARGV (its program at
    PROGRAM) under this process."""
    waits = len(args) == 6 and args[4] == "--wait"
    if (len(args) == 4 or waits) and args[0] == "--exec" and args[2] == "--argv-file":
        try:
            wait = float(args[5]) if waits else 0.0
        except ValueError:
            wait = 0.0
        argv = _read_argv(args[3], wait)
        if argv is None:
            sys.stderr.write(f"bsi launch: cannot read the command to run from {args[3]!r}\n")
            return USAGE
        return run(args[1], argv)
    if len(args) < 4 or args[0] != "--exec" or args[2] != "--":
        sys.stderr.write("usage: launch_root.py --exec PROGRAM (-- ARGV... | --argv-file FILE [--wait S])\n")
        return USAGE
    return run(args[1], list(args[3:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
