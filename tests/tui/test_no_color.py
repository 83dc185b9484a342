"""NO_COLOR in a real terminal: the terminal's own colours (39;49), meaning by bold and reverse — never black
on black. Reads the escape sequences the cockpit really writes to a pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from .conftest import NOW
from .test_hostile_pty import CONTROL_RE, read_until

SGR_RE = re.compile(r"\x1b\[([0-9;]*)m")


def sgr_params(output: str) -> list[list[str]]:
    """The parameters of every SGR (colour/attribute) sequence written."""
    return [match.group(1).split(";") for match in SGR_RE.finditer(output)]


def colours_set(params: list[list[str]]) -> list[str]:
    """Every explicit colour in the SGR sequences (256-colour and truecolor, foreground and background)."""
    found = []
    for group in params:
        for index, value in enumerate(group):
            if value in ("38", "48") and index + 1 < len(group) and group[index + 1] in ("2", "5"):
                found.append(";".join(group[index:index + (5 if group[index + 1] == "2" else 3)]))
            elif value.isdigit() and (30 <= int(value) <= 37 or 40 <= int(value) <= 47 or 90 <= int(value) <= 107):
                found.append(value)
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pty")
@pytest.mark.parametrize("colorterm", ["truecolor", ""])
def test_no_color_uses_the_terminal_default_colours(demo_root: Path, tmp_path: Path, colorterm: str) -> None:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("TEXTUAL", "BRAIN_NOW", "BRAIN_ROOT", "COLORTERM")}
    env.update({"TERM": "xterm-256color", "NO_COLOR": "1", "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    if colorterm:
        env["COLORTERM"] = colorterm
    proc = subprocess.Popen(
        [sys.executable, "-m", "brain_tui.tui", "--brain", str(demo_root), "--now", NOW.isoformat(), "--no-bell"],
        stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True,
    )
    os.close(slave)
    raw = bytearray()
    try:
        # The cockpit with its queue count drawn (the ⚑ of the header, in its wide or compact form).
        assert read_until(master, raw, lambda b: "Active claims" in CONTROL_RE.sub("", b.decode("utf-8", "replace"))
                          and "⚑" in CONTROL_RE.sub("", b.decode("utf-8", "replace")), 60)
        os.write(master, b"q")
        read_until(master, raw, lambda _b: proc.poll() is not None, 30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    output = raw.decode("utf-8", "replace")
    params = sgr_params(output)
    assert "38;5;16;48;5;16" not in output and "38;2;0;0;0;48;2;0;0;0" not in output  # the black on black
    assert colours_set(params) == []  # no explicit colour at all: the terminal's own
    flat = {value for group in params for value in group}
    assert {"39", "49"} <= flat  # default foreground and background
    assert "7" in flat  # the cursor row and the active pane are reversed
    assert "1" in flat  # warnings and errors in bold
