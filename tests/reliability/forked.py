"""`bsi` in a child process forked from this (already warm) test process, for the racing and killing tests.

`start(argv, env=…, cwd=…)` forks; the child swaps in its environment (and the time zone read from it),
its folder, and pipes for stdout and stderr (stdin reads /dev/null), runs `brain_tui.cli.main.main(argv)`
and ends with `os._exit(code)`: it never returns into pytest, not even on an error (then exit 70 and the
traceback on its stderr). The child is a real process of its own, as `bsi` started by `subprocess` is:
its own pid (a `kill -9` reaches only it, a faulty git's `kill -9 $PPID` too), its own file locks, racing
the others for real; what it saves is a fresh interpreter and its imports for every call.

`run_forked(start, …)` runs a function instead of `main` (a racer that waits for a barrier first).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from tests.bsi import Run
from tests.inproc import as_text

#: Exit code of a child whose function raised (the CLI's own code for an internal error).
CHILD_ERROR = 70


def _child(target: Callable[[], int | None], env: Mapping[str, str], cwd: Path | None, out_w: int,
           err_w: int) -> None:
    """The child's whole life: set up, run `target`, `os._exit` with its code (never returns)."""
    code = CHILD_ERROR
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in {null, out_w, err_w} - {0, 1, 2}:
            os.close(fd)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - lives until os._exit
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        os.environ.clear()
        os.environ.update(env)
        time.tzset()
        if cwd is not None:
            os.chdir(cwd)
        try:
            result = target()
        except SystemExit as exc:
            result = exc.code if isinstance(exc.code, int) or exc.code is None else 1
            if not isinstance(exc.code, int) and exc.code is not None:
                sys.stderr.write(f"{exc.code}\n")
        code = 0 if result is None else int(result)
    except BaseException:  # noqa: BLE001 - the child must end here, whatever happened
        with contextlib.suppress(BaseException):
            sys.stderr.write(traceback.format_exc())
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


class Forked:
    """One forked child: its pid, and what it wrote once it ended (`wait`)."""

    def __init__(self, pid: int, out_r: int, err_r: int) -> None:
        self.pid = pid
        self._fds = {out_r: bytearray(), err_r: bytearray()}
        self._out, self._err = out_r, err_r
        self._open = {out_r, err_r}

    def read_line(self, timeout: float = 60) -> str:
        """The child's first line of stdout (blocking; a racer's "ready"), kept out of `wait`'s output."""
        deadline = time.monotonic() + timeout
        line = bytearray()
        while not line.endswith(b"\n"):
            if time.monotonic() > deadline or not select.select([self._out], [], [], deadline - time.monotonic())[0]:
                raise AssertionError(f"child {self.pid} wrote no line in {timeout:g} s")
            byte = os.read(self._out, 1)
            if not byte:
                break
            line += byte
        return as_text(bytes(line))

    def wait(self, timeout: float = 120) -> Run:
        """Read the child's stdout and stderr to their end and reap it: (exit code, out, err); -N for signal N.

        A child still running after `timeout` seconds is killed and the test fails.
        """
        deadline = time.monotonic() + timeout
        while self._open:
            left = deadline - time.monotonic()
            ready = select.select(list(self._open), [], [], max(0.0, left))[0] if left > 0 else []
            if not ready:
                self.kill()
                self._close()
                os.waitpid(self.pid, 0)
                raise AssertionError(f"forked bsi {self.pid} ran over its timeout of {timeout:g} s")
            for fd in ready:
                chunk = os.read(fd, 65536)
                if chunk:
                    self._fds[fd] += chunk
                else:
                    self._open.discard(fd)
                    os.close(fd)
        _, status = os.waitpid(self.pid, 0)
        return Run(os.waitstatus_to_exitcode(status), as_text(bytes(self._fds[self._out])),
                   as_text(bytes(self._fds[self._err])))

    def kill(self) -> None:
        """`kill -9` the child (no error if it already ended)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    def _close(self) -> None:
        for fd in self._open:
            os.close(fd)
        self._open.clear()


def run_forked(target: Callable[[], int | None], *, env: Mapping[str, str], cwd: Path | None = None) -> Forked:
    """Fork a child that runs `target()` with `env` in `cwd` and exits with its return value (None: 0)."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    with warnings.catch_warnings():  # Python ≥ 3.12 warns when the parent has threads; the child never uses them
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
        os.close(out_r)
        os.close(err_r)
        _child(target, env, cwd, out_w, err_w)
    os.close(out_w)
    os.close(err_w)
    return Forked(pid, out_r, err_r)


def start(argv: Sequence[str], *, env: Mapping[str, str], cwd: Path | None = None) -> Forked:
    """Fork a `bsi ARGV` (the arguments after `bsi`, as `tests.bsi.bsi_command` gives them after the interpreter)."""
    from brain_tui.cli.main import main

    return run_forked(lambda: main(list(argv)), env=env, cwd=cwd)


def run(argv: Sequence[str], *, env: Mapping[str, str], cwd: Path | None = None, timeout: float = 120) -> Run:
    """`start` then `wait`: one forked `bsi` call, start to end."""
    return start(argv, env=env, cwd=cwd).wait(timeout)
