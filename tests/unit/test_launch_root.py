"""The launch root (core/sessions/launch_root.py): it runs the command as its child, passes signals on, ends as it
ended, takes the command with it when killed, and is an agent process for `core.agent_tree`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brain_tui.core.rules.agent_tree import LAUNCH_ROOT_NAME, agent_program
from brain_tui.core.sessions.launch_root import root_argv, root_argv_file
from tests.clock import wait_for

needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")

#: A command that writes its pid and its parent's, then waits for a signal and writes which one came.
WAITER = """\
import os, signal, sys, time
out = sys.argv[1]
def got(number, _frame):
    open(out + ".signal", "w").write(str(number))
    sys.exit(3)
for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT):
    signal.signal(number, got)
open(out + ".tmp", "w").write("%d %d %d" % (os.getpid(), os.getppid(), os.getpgrp()))
os.replace(out + ".tmp", out)
while True:
    time.sleep(0.05)
"""


def started(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    script = tmp_path / "waiter.py"
    script.write_text(WAITER, encoding="utf-8")
    out = tmp_path / "pids"
    root = subprocess.Popen(root_argv(sys.executable, [sys.executable, str(script), str(out)]))
    wait_for(out.exists, timeout=20, what="the command to start")
    return root, out


def test_the_command_ends_as_it_ended() -> None:
    assert subprocess.run(root_argv(sys.executable, [sys.executable, "-c", "raise SystemExit(7)"])).returncode == 7
    killed = subprocess.run(root_argv(sys.executable, [sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"]))
    assert killed.returncode == -signal.SIGKILL
    missing = subprocess.run(root_argv("/nonexistent/x", ["x"]), capture_output=True)
    assert missing.returncode == 127 and b"cannot run" in missing.stderr
    assert subprocess.run([*root_argv("x", ["x"])[:3], "--exec"], capture_output=True).returncode == 64


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT])
def test_a_signal_to_the_root_reaches_the_command_in_its_group(tmp_path: Path, number: int) -> None:
    root, out = started(tmp_path)
    pid, parent, group = (int(x) for x in out.read_text().split())
    assert parent == root.pid and group == os.getpgid(root.pid)  # its child, in its process group (the terminal's)
    root.send_signal(number)
    assert root.wait(timeout=20) == 3
    assert (tmp_path / "pids.signal").read_text() == str(number)


@needs_proc
def test_killing_the_root_kills_the_command(tmp_path: Path) -> None:
    root, out = started(tmp_path)
    pid = int(out.read_text().split()[0])
    root.kill()
    root.wait(timeout=20)
    wait_for(lambda: not os.path.exists(f"/proc/{pid}") or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2],
             timeout=20, what="the command to end with its root")


def test_the_launch_root_is_an_agent_process() -> None:
    argv = root_argv("/usr/bin/sh", ["sh", "-c", "exec env -u BSI_SESSION bsi gate approve x"])
    assert agent_program("python3", argv) == LAUNCH_ROOT_NAME
    assert agent_program("python3.12", argv) == LAUNCH_ROOT_NAME
    assert agent_program("python3", ["python3", "-c", "launch_root.py"]) is None
    assert agent_program("sh", ["sh", "x/launch_root.py"]) is None


#: A command in a terminal: READY once its handlers are set, a letter per signal, ends at SIGTERM.
COUNTER = """\
import os, signal, sys, time
out = sys.argv[1]
def got(number, _frame):
    open(out, "a").write("I" if number == signal.SIGINT else "T")
    if number == signal.SIGTERM:
        os._exit(0)
signal.signal(signal.SIGINT, got)
signal.signal(signal.SIGTERM, got)
open(out, "a").write("READY%d " % os.tcgetpgrp(0) if os.getpgrp() == os.tcgetpgrp(0) else "BACKGROUND ")
while True:
    time.sleep(0.05)
"""


@needs_proc
def test_a_key_of_the_terminal_reaches_the_command_once(tmp_path: Path) -> None:
    """^C goes to the terminal's foreground group, the command with it: the root does not send it a second time."""
    import pty

    script = tmp_path / "counter.py"
    script.write_text(COUNTER, encoding="utf-8")
    out = tmp_path / "seen"
    master, slave = pty.openpty()
    root = subprocess.Popen(root_argv(sys.executable, [sys.executable, str(script), str(out)]), stdin=slave,
                            stdout=slave, stderr=slave, start_new_session=True,
                            preexec_fn=lambda: __import__("fcntl").ioctl(0, __import__("termios").TIOCSCTTY, 0))
    os.close(slave)
    try:
        wait_for(lambda: out.exists() and "READY" in out.read_text(), timeout=20, what="the command to start")
        os.write(master, b"\x03")
        wait_for(lambda: out.read_text().endswith("I"), timeout=20, what="the command to see ^C")
        root.send_signal(signal.SIGTERM)
        assert root.wait(timeout=20) == 0
        assert out.read_text().split(" ", 1)[1] == "IT"  # once each: the key by the terminal, SIGTERM by the root
    finally:
        if root.poll() is None:
            root.kill()
        os.close(master)


def test_an_argv_handed_over_in_a_file_runs_and_the_file_is_gone(tmp_path: Path) -> None:
    handed = tmp_path / "sess-x.argv.json"
    story = "修复 {root}; x\n-y " * 2000
    script = "import sys; raise SystemExit(0 if sys.argv[1] == " + repr(story) + " else 9)"
    handed.write_text(json.dumps([sys.executable, "-c", script, story]), encoding="utf-8")
    assert subprocess.run(root_argv_file(sys.executable, str(handed))).returncode == 0
    assert not handed.exists()
    for bad in ("not json", "[]", '["x", 1]', '{"a": 1}'):
        handed.write_text(bad, encoding="utf-8")
        done = subprocess.run(root_argv_file(sys.executable, str(handed)), capture_output=True)
        assert done.returncode == 64 and b"cannot read the command" in done.stderr and not handed.exists()
    done = subprocess.run(root_argv_file(sys.executable, str(handed), wait=0.3), capture_output=True)  # no file
    assert done.returncode == 64


def test_the_root_waits_for_an_argv_handed_over_after_it_started(tmp_path: Path) -> None:
    """`bsi launch` hands the argv over only once the launch is recorded: the root started by tmux waits for it."""
    handed = tmp_path / "sess-x.argv.json"
    out = tmp_path / "ran"
    root = subprocess.Popen(root_argv_file(sys.executable, str(handed), wait=20))
    try:
        time.sleep(0.5)
        assert root.poll() is None and not out.exists()
        handed.write_text(json.dumps([sys.executable, "-c", f"open({str(out)!r}, 'w').close()"]), encoding="utf-8")
        assert root.wait(timeout=20) == 0 and out.exists() and not handed.exists()
    finally:
        if root.poll() is None:
            root.kill()
