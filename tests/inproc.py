"""`bsi` called in this process the way a subprocess would see it: `brain_tui.cli.main.main(argv)`.

A call swaps in its environment (`os.environ`, and the time zone read from it: the git processes bsi
starts inherit it), its working folder and its stdin, captures what it writes on `sys.stdout` and
`sys.stderr`, and restores all of it after. `SystemExit` (argparse's `--help`, `--version`) gives its
code. The CLI's catch-all turns a bug into exit 70 and one line (tests/cli/test_internal_error.py keeps
that tested): in process, the traceback is added to stderr, so the failing test shows where it came from.

A call may be given a `timeout`: it cannot be killed, so a watchdog raises `InProcessTimeout` in the
calling thread when the time is up (the call unwinds as an error would: its environment is restored), and
the test fails saying which call ran over. A call stuck in C (a blocking read or lock) cannot take that
exception: `BACKSTOP_S` later the watchdog prints every thread's stack and ends the process (under xdist,
the worker; the test is reported as crashed), so no test hangs for ever.

A call must leave nothing behind: no file descriptor and no thread it opened, no changed umask (a
long-lived caller such as the cockpit or the MCP server would collect them); `call_main` fails the test
when one does.
"""

from __future__ import annotations

import ctypes
import faulthandler
import gc
import importlib
import io
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: How long the threads a call started may take to end after it returned (a pool shut down without waiting).
THREAD_GRACE_S = 5.0
#: How long after its timeout a call that did not unwind (stuck in C) is left before the process ends.
BACKSTOP_S = 30.0


def as_text(raw: bytes) -> str:
    """Bytes as `subprocess.run(text=True)` decodes them: UTF-8, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", newline=None).read()


def open_fds() -> dict[int, str]:
    """This process's open file descriptors: number → what it points at."""
    found = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            found[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:  # the listing's own descriptor, closed by now
            continue
    return found


def live_threads() -> set[threading.Thread]:
    """The threads running now."""
    return set(threading.enumerate())


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        time.tzset()


@contextmanager
def _folder(cwd: Path | None) -> Iterator[None]:
    saved = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved)


@contextmanager
def _streams(stdin: bytes) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", newline="\n", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", newline="\n",
                                  write_through=True)
    try:
        yield out, err
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
            stream.detach()
        sys.stdin, sys.stdout, sys.stderr = saved


class NeedsProcess(AssertionError):
    """The call replaced its process (`os.exec*`): in process it would replace the test runner."""


@contextmanager
def _no_exec() -> Iterator[None]:
    """Make `os.exec*` raise `NeedsProcess` instead of replacing the test runner."""
    names = [name for name in dir(os) if name.startswith("exec") and callable(getattr(os, name))]
    saved = {name: getattr(os, name) for name in names}

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise NeedsProcess(f"bsi called os.exec* ({args[0]!r}): run this call with run_bsi(..., process=True)")

    for name in names:
        setattr(os, name, refuse)
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(os, name, function)


@contextmanager
def _tracebacks(caught: list[str]) -> Iterator[None]:
    """Record the traceback of every error the CLI's catch-all reports as exit 70."""
    cli_main = importlib.import_module("brain_tui.cli.main")

    original: Callable[[Exception], int] = cli_main._internal_error

    def recording(exc: Exception) -> int:
        caught.append("".join(traceback.format_exception(exc)))
        return original(exc)

    cli_main._internal_error = recording  # type: ignore[assignment]
    try:
        yield
    finally:
        cli_main._internal_error = original  # type: ignore[assignment]


class InProcessTimeout(BaseException):
    """Raised in a call's thread when it ran over its timeout (a BaseException: no catch-all in bsi keeps it)."""


class _Watchdog:
    """Raise `InProcessTimeout` in this thread after `seconds`, unless stopped first; the backstop after that."""

    def __init__(self, seconds: float, what: str) -> None:
        self.fired = False
        self._stopped = False
        self._lock = threading.Lock()
        self._what = what
        self._thread_id = threading.get_ident()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self.fired = True
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self._thread_id),
                                                       ctypes.py_object(InProcessTimeout))
            real_stderr = sys.__stderr__  # the call's sys.stderr is a buffer with no file descriptor
            if real_stderr is not None:
                real_stderr.write(f"\ntests/inproc.py: {self._what} ran over its timeout; if it has not unwound "
                                  f"in {BACKSTOP_S:g} s, every thread's stack follows and the process ends\n")
                faulthandler.dump_traceback_later(BACKSTOP_S, exit=True, file=real_stderr)

    def stop(self) -> None:
        """Disarm (the call returned or unwound); cancel the backstop if it was armed."""
        with self._lock:
            self._stopped = True
            if self.fired:
                faulthandler.cancel_dump_traceback_later()
        self._timer.cancel()
        self._timer.join()


def _watched(call: Callable[[], Any], timeout: float | None, what: str) -> Any:
    """`call()`, failing the test if it runs over `timeout` seconds (None: no limit)."""
    if timeout is None:
        return call()
    dog = _Watchdog(timeout, what)
    result: Any = None
    try:
        try:
            result = call()
        finally:
            dog.stop()
            if dog.fired and not isinstance(sys.exc_info()[1], InProcessTimeout):
                _take_pending_timeout()
    except InProcessTimeout:
        pass
    if not dog.fired:
        return result
    raise AssertionError(f"{what} ran over its timeout of {timeout:g} s in process (tests/inproc.py)")


def _take_pending_timeout() -> None:
    """Let an `InProcessTimeout` sent but not yet delivered arrive here (it may have been swallowed: stop at 1 s)."""
    deadline = time.monotonic() + 1.0
    try:
        while time.monotonic() < deadline:
            time.sleep(0.001)
    except InProcessTimeout:
        pass


def _leaks(fds: dict[int, str], threads: set[threading.Thread], mask: int) -> list[str]:
    """What a call left open or changed, compared with before it."""
    left = {fd: target for fd, target in open_fds().items() if fds.get(fd) != target}
    if left:  # a descriptor only the garbage collector still holds is closed by it
        gc.collect()
        left = {fd: target for fd, target in open_fds().items() if fds.get(fd) != target}
    found = [f"file descriptor {fd} -> {target}" for fd, target in sorted(left.items())]
    deadline = time.monotonic() + THREAD_GRACE_S
    for thread in live_threads() - threads:  # a pool shut down without waiting ends its idle workers soon
        thread.join(max(0.0, deadline - time.monotonic()))
    found += [f"thread {thread.name}" for thread in live_threads() - threads if thread.is_alive()]
    if _umask() != mask:
        found.append(f"umask {_umask():o} (was {mask:o})")
    return found


def call_main(argv: list[str], env: Mapping[str, str], cwd: Path | None,
              stdin: str | bytes | None, timeout: float | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `bsi ARGV` run here, with `env`, in `cwd`, reading `stdin`; the test
    fails if it runs over `timeout` seconds (None: no limit)."""
    cli_main = importlib.import_module("brain_tui.cli.main")

    if env.get("BSI_FAULT_DO", "").startswith("kill"):
        raise AssertionError("a faulty git that kills its caller needs a bsi process: run_bsi(..., process=True)")
    data = stdin.encode() if isinstance(stdin, str) else stdin or b""
    fds, threads, mask = open_fds(), live_threads(), _umask()
    caught: list[str] = []
    code: Any
    with _environment(env), _folder(cwd), _no_exec(), _tracebacks(caught), _streams(data) as (out, err):
        def main() -> Any:
            try:
                return cli_main.main(argv)
            except SystemExit as exc:
                return exc.code

        code = _watched(main, timeout, f"bsi {' '.join(argv)}")
    for trace in caught:
        if "NeedsProcess" in trace:
            raise NeedsProcess(f"bsi {' '.join(argv)} replaced its process (os.exec*): run it with process=True")
    if code is None:
        code = 0
    elif not isinstance(code, int):  # `sys.exit("message")`: the message on stderr, exit 1
        err.write(f"{code}\n".encode())
        code = 1
    text_err = as_text(err.getvalue())
    if caught:
        text_err += "\n--- in-process traceback (tests/inproc.py) ---\n" + "".join(caught)
    leaks = _leaks(fds, threads, mask)
    if leaks:
        raise AssertionError(f"bsi {' '.join(argv)} left behind: {'; '.join(leaks)}")
    return code, as_text(out.getvalue()), text_err
