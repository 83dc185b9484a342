"""A private tmux server for the tests that launch agents in tmux windows, and what its panes received.

Each test gets its own server (its own TMUX_TMPDIR, so its own socket, never the user's), killed
afterwards: `tmux_env` (or `private_server`) hands it over as an environment for `run_bsi`, `private_tmux` sets it
in this process's environment (the cockpit started by the test launches through it). The "agent" of the pane
tests is `RAW_RECORDER`: a program that reads its terminal raw and appends every byte to a file.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.bsi import clean_env
from tests.clock import wait_for

#: Skips a test when tmux is not installed.
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

#: A pane's program that writes READY, then every byte it reads, to the file named first.
RAW_RECORDER = """\
import os, sys, tty
fd = sys.stdin.fileno()
tty.setraw(fd)
with open(sys.argv[1], "ab", buffering=0) as fh:
    fh.write(b"READY")
    while True:
        data = os.read(fd, 4096)
        if not data:
            break
        fh.write(data)
"""


def no_tmux_env(**extra: str) -> dict[str, str]:
    """`clean_env(**extra)` outside any tmux session."""
    env = clean_env(**extra)
    env.pop("TMUX", None)
    return env


def _folder(tmp_path: Path) -> Path:
    """A fresh folder for one private server: short (socket paths are limited) and never shared; the same
    test name in two xdist workers (``popen-gw0/test_x0``, ``popen-gw1/test_x0``) must not share a server."""
    return Path(tempfile.mkdtemp(prefix="bsi-tmux-", dir="/tmp"))


def _kill(folder: Path, env: Mapping[str, str]) -> None:
    subprocess.run(["tmux", "kill-server"], env=dict(env), capture_output=True, check=False)
    shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def private_server(tmp_path: Path, **extra: str) -> Iterator[dict[str, str]]:
    """An environment (`no_tmux_env(**extra)`) whose tmux server is private, killed after the block."""
    folder = _folder(tmp_path)
    env = no_tmux_env(TMUX_TMPDIR=str(folder), **extra)
    try:
        yield env
    finally:
        _kill(folder, env)


@pytest.fixture
def tmux_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment whose tmux server is private, killed afterwards."""
    with private_server(tmp_path) as env:
        yield env


@pytest.fixture
def private_tmux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This process's tmux server made private (TMUX_TMPDIR set, TMUX removed), killed afterwards."""
    with private_server(tmp_path) as env:
        monkeypatch.setenv("TMUX_TMPDIR", env["TMUX_TMPDIR"])
        monkeypatch.delenv("TMUX", raising=False)
        yield Path(env["TMUX_TMPDIR"])


def windows(env: Mapping[str, str] | None = None, field: str = "window_id") -> list[str]:
    """`field` of every window of the server `env` names (default: this process's)."""
    done = subprocess.run(["tmux", "list-windows", "-a", "-F", f"#{{{field}}}"], capture_output=True, text=True,
                          env=None if env is None else dict(env), check=False)
    return done.stdout.split()


def pane_read(path: Path, expected: bytes, timeout: float = 20.0) -> bytes:
    """The bytes the pane's program read (its file at `path`), once they end with `expected`."""
    def read() -> bytes:
        data = path.read_bytes() if path.exists() else b""
        return data if data.endswith(expected) else b""

    try:
        return wait_for(read, timeout=timeout, every=0.05)
    except AssertionError:
        data = path.read_bytes() if path.exists() else b""
        raise AssertionError(f"the pane never read {expected!r}; it read {data!r}") from None
