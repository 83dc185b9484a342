"""`bsi agent answer|interrupt|stop ID` (issue 21): keys to a launched satellite's tmux pane.

tmux runs as a private server (its own TMUX_TMPDIR, so its own socket), never the user's. The
"agent" is a program that puts its terminal in raw mode and appends every byte it reads to a file:
what the pane received, byte for byte.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import clean_env, ok, run_bsi
from tests.conftest import load_claim

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

RAW_RECORDER = """\
import os, sys, termios, tty
out = sys.argv[1]
fd = sys.stdin.fileno()
tty.setraw(fd)
with open(out, "ab", buffering=0) as fh:
    fh.write(b"READY")
    while True:
        data = os.read(fd, 4096)
        if not data:
            break
        fh.write(data)
"""

HOSTILE = "-x; run-shell 'touch PWNED' $(touch PWNED) `id` \x1b[31mred\x1b]0;title\x1b\\ #{pane_pid} \\; x\\;"


def no_tmux_env(**extra: str) -> dict[str, str]:
    env = clean_env(**extra)
    env.pop("TMUX", None)
    return env


@pytest.fixture
def tmux_env(tmp_path: Path) -> Any:
    """An environment whose tmux server is private (its own TMUX_TMPDIR), killed afterwards."""
    folder = Path("/tmp") / f"bsi-pane-{tmp_path.name[-20:]}"  # short: socket paths are limited
    folder.mkdir(exist_ok=True)
    env = no_tmux_env(TMUX_TMPDIR=str(folder))
    yield env
    subprocess.run(["tmux", "kill-server"], env=env, capture_output=True, check=False)
    shutil.rmtree(folder, ignore_errors=True)


def wait_for(path: Path, expected: bytes, timeout: float = 20.0) -> bytes:
    """The bytes the pane's program read, once they end with `expected`."""
    deadline = time.monotonic() + timeout
    data = b""
    while time.monotonic() < deadline:
        data = path.read_bytes() if path.exists() else b""
        if data.endswith(expected):
            return data
        time.sleep(0.05)
    raise AssertionError(f"the pane never read {expected!r}; it read {data!r}")


def launched(brain: Path, tmp_path: Path, env: dict[str, str]) -> tuple[str, Path, dict[str, Any]]:
    """A claim whose agent (the raw recorder) runs in a tmux window of the private server."""
    script = tmp_path / "raw_recorder.py"
    script.write_text(RAW_RECORDER, encoding="utf-8")
    out = tmp_path / "pane.bin"
    (brain / "brain-compose.yml").write_text(json.dumps({"launch": {"command": [sys.executable, str(script),
                                                                                str(out)]}}), encoding="utf-8")
    sess = ok(run_bsi("claim", "open", "--scope", "wiki/", "--slug", "wiki-fix", brain=brain))
    run = run_bsi("launch", sess, "--json", brain=brain, env=env)
    assert run.code == 0, run.err
    wait_for(out, b"READY")
    return sess, out, run.json()


def windows(env: dict[str, str]) -> list[str]:
    proc = subprocess.run(["tmux", "list-windows", "-a", "-F", "#{window_id}"], env=env, capture_output=True,
                          text=True, check=False)
    return proc.stdout.split()


@pytest.mark.parametrize("tail", [";", "\\;", " end"])  # a trailing ";" would end tmux's command
def test_a_hostile_reply_arrives_verbatim_then_enter(brain: Path, tmp_path: Path, tmux_env: dict[str, str],
                                                     tail: str) -> None:
    sess, out, record = launched(brain, tmp_path, tmux_env)
    reply = HOSTILE + tail
    run = run_bsi("agent", "answer", sess, reply, brain=brain, env=tmux_env)
    assert run.code == 0, run.err
    assert "pressed Enter" in run.out
    assert wait_for(out, b"\r") == b"READY" + reply.encode() + b"\r"
    time.sleep(0.3)
    assert not list(tmp_path.rglob("PWNED")) and not list(brain.rglob("PWNED"))
    assert record["window"] in windows(tmux_env)


def test_interrupt_presses_escape_and_stop_kills_the_window_leaving_the_claim_open(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str]) -> None:
    sess, out, record = launched(brain, tmp_path, tmux_env)
    run = run_bsi("agent", "interrupt", sess, brain=brain, env=tmux_env)
    assert run.code == 0, run.err
    assert wait_for(out, b"\x1b") == b"READY\x1b"
    run = run_bsi("--json", "agent", "stop", sess, brain=brain, env=tmux_env)
    assert run.code == 0, run.err
    assert run.json()["window"] == record["window"]
    assert record["window"] not in windows(tmux_env)
    assert load_claim(brain, sess)["status"] == "open"
    gone = run_bsi("agent", "answer", sess, "hello", brain=brain, env=tmux_env)
    assert gone.code == 66 and "no launched agent" in gone.err and "Traceback" not in gone.err


@pytest.mark.parametrize("reply", ["two\nlines", "ctrl-c \x03", "   "])
def test_a_reply_with_action_keys_or_empty_is_refused_and_nothing_typed(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str], reply: str) -> None:
    sess, out, _record = launched(brain, tmp_path, tmux_env)
    run = run_bsi("agent", "answer", sess, reply, brain=brain, env=tmux_env)
    assert run.code == 64 and len(run.err.strip().splitlines()) == 1
    time.sleep(0.3)
    assert out.read_bytes() == b"READY"


@pytest.mark.parametrize("action", [["answer", "yes"], ["interrupt"], ["stop"]])
def test_an_agent_cannot_type_into_interrupt_or_stop_a_satellite(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str], action: list[str]) -> None:
    sess, out, record = launched(brain, tmp_path, tmux_env)
    env = dict(tmux_env, CLAUDECODE="1")
    run = run_bsi("agent", action[0], sess, *action[1:], brain=brain, env=env)
    assert run.code == 77 and f"bsi agent {action[0]} {sess}" in run.err
    time.sleep(0.3)
    assert out.read_bytes() == b"READY" and record["window"] in windows(tmux_env)


def test_a_claim_without_a_launch_is_not_found(brain: Path, tmux_env: dict[str, str]) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "docs/", brain=brain))
    run = run_bsi("agent", "stop", sess, brain=brain, env=tmux_env)
    assert run.code == 66 and "Traceback" not in run.err
    assert load_claim(brain, sess)["status"] == "open"
