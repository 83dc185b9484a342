"""A lost terminal ends the cockpit at any moment — during start-up too — and its demo folder goes with it.

`brain-tui --demo` runs in a real pseudo-terminal; the terminal is then lost the way `tmux kill-server` or a
dropped SSH connection loses it (the pty closed, SIGHUP sent) at several moments of its life: while the demo
brain is being built, while Textual starts, after the first paint.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from .conftest import NOW
from .test_hostile_pty import CONTROL_RE, read_until

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pty")


def _default_hangup() -> None:
    """In the child before exec: SIGHUP back to its default action (an ignored signal survives exec)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def start(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int, Path]:
    """`brain-tui --demo` in a pty of its own; its temporary folders go under a private TMPDIR."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TEXTUAL", "BRAIN_NOW", "BRAIN_ROOT")}
    env.update({"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "TMPDIR": str(tmp)})
    # A hang-up the suite's own parent ignores (`nohup pytest`) would be ignored by the cockpit too until it
    # installs its handler: the terminal's user did not ask for that, so the child starts with the default.
    proc = subprocess.Popen([sys.executable, "-m", "brain_tui.tui", "--demo", "--now", NOW.isoformat()],
                            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
                            close_fds=True, preexec_fn=_default_hangup)
    os.close(slave)
    return proc, master, tmp


def lose_terminal(proc: subprocess.Popen[bytes], master: int) -> None:
    """What `tmux kill-server` does to a pane: the terminal closes and the process group gets SIGHUP."""
    os.close(master)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGHUP)


def ended(proc: subprocess.Popen[bytes], limit: float = 20.0) -> int | None:
    """The exit code once the process ended (None if it is still running after `limit` seconds)."""
    try:
        return proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        return None


@pytest.mark.parametrize("delay", [0.05, 0.3, 0.8, 1.2, 1.6])
def test_a_lost_terminal_during_start_up_ends_the_cockpit_and_removes_its_demo(tmp_path: Path, delay: float) -> None:
    proc, master, tmp = start(tmp_path)
    try:
        time.sleep(delay)
        lose_terminal(proc, master)
        code = ended(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code is not None, f"still running {delay} s after start + 20 s after the hang-up"
    assert code in (129, -signal.SIGHUP)
    assert not [p for p in tmp.iterdir() if p.name.startswith("brain-tui-demo-")]


def test_a_lost_terminal_after_the_first_paint_ends_it_too(tmp_path: Path) -> None:
    proc, master, tmp = start(tmp_path)
    raw = bytearray()
    try:
        painted = read_until(master, raw,
                             lambda b: "Active claims" in CONTROL_RE.sub("", b.decode("utf-8", "replace")), 60)
        assert painted, "the cockpit never painted"
        assert [p for p in tmp.iterdir() if p.name.startswith("brain-tui-demo-")]  # the demo exists meanwhile
        lose_terminal(proc, master)
        code = ended(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 129
    assert not [p for p in tmp.iterdir() if p.name.startswith("brain-tui-demo-")]
