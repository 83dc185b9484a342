"""Hostile claim text in a real pseudo-terminal: no escape sequence from the data reaches the terminal,
no markup from the data is applied, bidi and zero-width characters show as placeholders (SPEC 15)."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from .conftest import NOW

COLUMNS, ROWS = 160, 50
#: Terminal control sequences Textual itself writes (CSI, OSC, charset and keypad modes).
CONTROL_RE = re.compile(
    r"\x1b\[[0-9;?<>=$ ]*[A-Za-z~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)


def read_until(fd: int, buffer: bytearray, done: callable, limit: float) -> bool:  # type: ignore[valid-type]
    """Read the pty into `buffer` until `done(buffer)` or `limit` seconds (a guard, not an assertion)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if done(buffer):
            return True
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            return done(buffer)
        if not chunk:
            return done(buffer)
        buffer.extend(chunk)
    return done(buffer)


@pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pty")
def test_hostile_story_renders_inert_in_a_real_terminal(hostile_root: Path, tmp_path: Path) -> None:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TEXTUAL", "BRAIN_NOW", "BRAIN_ROOT")}
    env.update({"TERM": "xterm-256color", "COLORTERM": "truecolor", "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
                "COLUMNS": str(COLUMNS), "LINES": str(ROWS)})
    proc = subprocess.Popen(
        [sys.executable, "-m", "brain_tui.tui", "--brain", str(hostile_root), "--now", NOW.isoformat(),
         "--instance", "prod@desktop", "--no-bell"],
        stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True,
    )
    os.close(slave)
    raw = bytearray()
    try:
        def shown(buf: bytearray) -> bool:
            text = CONTROL_RE.sub("", buf.decode("utf-8", "replace"))
            return all(marker in text for marker in ("[/b]", "pwned", "evil", "c1"))

        assert read_until(master, raw, shown, 60), "the cockpit never showed the hostile claims"
        os.write(master, b"q")
        read_until(master, raw, lambda _b: proc.poll() is not None, 30)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    output = raw.decode("utf-8", "replace")
    # 1. No escape sequence from the data reached the terminal.
    assert "\x1b[31mRED" not in output and "\x1b[0m osc" not in output
    assert "\x1b]0;pwned" not in output and "pwned\x07" not in output
    assert b"\xc2\x9b" not in raw  # the C1 CSI character, UTF-8 encoded
    # 2. Bidi and zero-width characters never reached it either; their placeholders did.
    assert "\u202e" not in output and "\u202c" not in output and "\u200b" not in output
    text = CONTROL_RE.sub("", output)
    assert "⟨ESC⟩" in text and "⟨BEL⟩" in text and "⟨U+202E⟩" in text and "⟨U+200B⟩" in text
    assert "⟨CSI⟩" in text
    # 3. Markup from the data shows literally (and `[ @click=app.quit]` quit nothing: `q` did, cleanly).
    assert "[ @click=app.quit] [b]bold[/b] [link=https://x]y[/link]" in text
    assert code == 0


@pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pty")
def test_hang_up_exits_cleanly(demo_root: Path, tmp_path: Path) -> None:
    """SSH drops: SIGHUP makes the cockpit leave at once with 129 (no traceback, no hang)."""
    import signal

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TEXTUAL", "BRAIN_NOW", "BRAIN_ROOT")}
    env.update({"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    proc = subprocess.Popen(
        [sys.executable, "-m", "brain_tui.tui", "--brain", str(demo_root), "--now", NOW.isoformat()],
        stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True,
    )
    os.close(slave)
    raw = bytearray()
    try:
        assert read_until(master, raw, lambda b: "Active claims" in CONTROL_RE.sub("", b.decode("utf-8", "replace")),
                          60)
        proc.send_signal(signal.SIGHUP)
        read_until(master, raw, lambda _b: proc.poll() is not None, 30)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert code == 129
    assert "Traceback" not in raw.decode("utf-8", "replace")
