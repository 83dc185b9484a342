"""Run an outside program (pm2) for the environment state with bounded time and bounded memory (SPEC 16).

A program that hangs is killed at its timeout; one that prints without end is killed once its output passes a limit,
so a reading never holds more than that limit in memory whatever the program does. The whole process group goes, so a
child left behind by a wrapper script goes with it.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

#: At most this much of what the program writes on stderr is kept (the rest is read and dropped).
MAX_STDERR = 64 * 1024
_CHUNK = 64 * 1024


class OutputTooLarge(RuntimeError):
    """The program printed more than the limit on stdout (it was killed)."""


def size_text(limit: int) -> str:
    """``32 MiB``, ``256 KiB``: a limit as people write it."""
    return f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit // 1024} KiB"


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=1.0)


def run_bounded(argv: list[str], timeout: float, env: Mapping[str, str], limit: int) -> tuple[int, str, str]:
    """Run `argv` with a hard timeout and at most `limit` bytes of stdout: (exit code, stdout, stderr) decoded as
    UTF-8 (undecodable bytes replaced).

    Raises TimeoutError when the program did not finish in time, OutputTooLarge when it printed more than `limit`
    bytes, OSError when it could not be started.
    """
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(env), start_new_session=True)
    assert proc.stdout is not None and proc.stderr is not None
    name = f"{Path(argv[0]).name} {' '.join(argv[1:])}".strip()
    deadline = time.monotonic() + timeout
    out, err = bytearray(), bytearray()
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ, out)
            selector.register(proc.stderr, selectors.EVENT_READ, err)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{name} timed out after {timeout:g}s")
                for key, _events in selector.select(left):
                    data = os.read(key.fd, _CHUNK)
                    if not data:
                        selector.unregister(key.fileobj)
                        continue
                    buffer: bytearray = key.data
                    if buffer is out and len(out) + len(data) > limit:
                        raise OutputTooLarge(f"{name} printed more than {size_text(limit)}")
                    if buffer is out or len(err) < MAX_STDERR:
                        buffer += data
        try:
            code = proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"{name} timed out after {timeout:g}s") from None
    except BaseException:
        _kill(proc)
        raise
    finally:
        proc.stdout.close()
        proc.stderr.close()
    return code, out.decode("utf-8", "replace"), err[:MAX_STDERR].decode("utf-8", "replace")
