"""`bsi agent answer|interrupt|stop ID` (issue 21): keys to a launched satellite's tmux pane.

tmux runs as a private server, never the user's; the "agent" is tests/tmux.py's raw recorder: what the
pane received, byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import ok, run_bsi
from tests.conftest import load_claim
from tests.tmux import RAW_RECORDER, needs_tmux, pane_read, windows

pytestmark = needs_tmux

HOSTILE = ("-x; run-shell 'touch PWNED' $(touch PWNED) `id` C-c Enter Escape [31mred]0;title #{pane_pid} "
           "\\; x\\; \u202eevil \u00e9")


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
    pane_read(out, b"READY")
    return sess, out, run.json()


def nothing_typed_before_a_mark(brain: Path, sess: str, out: Path, env: dict[str, str]) -> bool:
    """True when the pane read nothing but READY before the human's answer MARK (tmux keeps the keys' order:
    a key sent earlier would arrive first)."""
    ok(run_bsi("agent", "answer", sess, "MARK", brain=brain, env=env))
    return pane_read(out, b"\r") == b"READYMARK\r"


@pytest.mark.parametrize("tail", [";", "\\;", " end"])  # a trailing ";" would end tmux's command
def test_a_hostile_reply_arrives_verbatim_then_enter(brain: Path, tmp_path: Path, tmux_env: dict[str, str],
                                                     tail: str) -> None:
    sess, out, record = launched(brain, tmp_path, tmux_env)
    reply = HOSTILE + tail
    run = run_bsi("agent", "answer", sess, reply, brain=brain, env=tmux_env)
    assert run.code == 0, run.err
    assert "pressed Enter" in run.out
    assert pane_read(out, b"\r") == b"READY" + reply.encode() + b"\r"
    # `bsi agent answer` returned after its tmux client: a command smuggled into it (`run-shell`, which
    # the client waits for) would have run by then, so no wait is needed before looking for PWNED.
    assert not list(tmp_path.rglob("PWNED")) and not list(brain.rglob("PWNED"))
    assert record["window"] in windows(tmux_env)


def test_interrupt_presses_escape_and_stop_kills_the_window_leaving_the_claim_open(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str]) -> None:
    sess, out, record = launched(brain, tmp_path, tmux_env)
    run = run_bsi("agent", "interrupt", sess, brain=brain, env=tmux_env)
    assert run.code == 0, run.err
    assert pane_read(out, b"\x1b") == b"READY\x1b"
    run = run_bsi("--json", "agent", "stop", sess, brain=brain, env=tmux_env)
    assert run.code == 0, run.err
    assert run.json()["window"] == record["window"]
    assert record["window"] not in windows(tmux_env)
    assert load_claim(brain, sess)["status"] == "open"
    gone = run_bsi("agent", "answer", sess, "hello", brain=brain, env=tmux_env)
    assert gone.code == 66 and "no launched agent" in gone.err and "Traceback" not in gone.err


# ESC is the agent's interrupt key and starts every key sequence (shift-tab `ESC [ Z` turns Claude Code's
# permission mode, `ESC O M` is keypad Enter); TAB completes; a C1 CSI is ESC [ to an 8-bit terminal
@pytest.mark.parametrize("reply", ["two\nlines", "ctrl-c \x03", "   ", "stop\x1b", "mode \x1b[Z", "go\x1bOM",
                                   "tab\tcompletes", "csi \x9b31m", "del\x7f"])
def test_a_reply_with_action_keys_or_empty_is_refused_and_nothing_typed(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str], reply: str) -> None:
    sess, out, _record = launched(brain, tmp_path, tmux_env)
    run = run_bsi("agent", "answer", sess, reply, brain=brain, env=tmux_env)
    assert run.code == 64 and len(run.err.strip().splitlines()) == 1
    assert nothing_typed_before_a_mark(brain, sess, out, tmux_env)


@pytest.mark.parametrize("action", [["answer", "yes"], ["interrupt"], ["stop"]])
def test_an_agent_cannot_type_into_interrupt_or_stop_a_satellite(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str], action: list[str]) -> None:
    sess, out, record = launched(brain, tmp_path, tmux_env)
    env = dict(tmux_env, CLAUDECODE="1")
    run = run_bsi("agent", action[0], sess, *action[1:], brain=brain, env=env)
    assert run.code == 77 and f"bsi agent {action[0]} {sess}" in run.err
    assert f"an agent cannot {action[0]} a session" in run.err, run.err
    assert record["window"] in windows(tmux_env)
    assert nothing_typed_before_a_mark(brain, sess, out, tmux_env)


def test_a_claim_without_a_launch_is_not_found(brain: Path, tmux_env: dict[str, str]) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "docs/", brain=brain))
    run = run_bsi("agent", "stop", sess, brain=brain, env=tmux_env)
    assert run.code == 66 and "Traceback" not in run.err
    assert load_claim(brain, sess)["status"] == "open"


def test_an_empty_reply_is_a_usage_error_whether_or_not_an_agent_runs(brain: Path, tmux_env: dict[str, str]) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "docs/", brain=brain))
    run = run_bsi("agent", "answer", sess, "  ", brain=brain, env=tmux_env)
    assert run.code == 64 and "empty" in run.err and len(run.err.strip().splitlines()) == 1


def _tmux(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(["tmux", *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_keys_reach_the_agents_own_pane_after_its_window_was_split(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str]) -> None:
    """A split (by the pilot, or by the agent itself) makes another pane the active one: the reply, the Escape
    still go to the agent's pane, never to whatever process runs in the new one."""
    sess, out, record = launched(brain, tmp_path, tmux_env)
    other = tmp_path / "split.bin"
    _tmux(tmux_env, "split-window", "-t", record["window"], sys.executable, str(tmp_path / "raw_recorder.py"),
          str(other))
    pane_read(other, b"READY")
    ok(run_bsi("agent", "answer", sess, "yes", brain=brain, env=tmux_env))
    ok(run_bsi("agent", "interrupt", sess, brain=brain, env=tmux_env))
    assert pane_read(out, b"\x1b") == b"READYyes\r\x1b"
    assert other.read_bytes() == b"READY"


def test_a_launch_into_a_tmux_session_whose_name_has_spaces_is_remembered(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str]) -> None:
    """Inside tmux the window opens in the pilot's current session, whatever its name: the launch is still
    found running (list, answer)."""
    _tmux(tmux_env, "new-session", "-d", "-s", "my work", "-x", "80", "-y", "24")
    socket = _tmux(tmux_env, "display-message", "-p", "-t", "=my work:", "#{socket_path},#{pid},#{session_id}")
    inside = dict(tmux_env, TMUX=socket.replace(",$", ","))
    script = tmp_path / "raw_recorder.py"
    script.write_text(RAW_RECORDER, encoding="utf-8")
    out = tmp_path / "pane.bin"
    (brain / "brain-compose.yml").write_text(json.dumps({"launch": {"command": [sys.executable, str(script),
                                                                                str(out)]}}), encoding="utf-8")
    sess = ok(run_bsi("claim", "open", "--scope", "wiki/", brain=brain))
    run = run_bsi("launch", sess, "--json", brain=brain, env=inside)
    assert run.code == 0, run.err
    assert run.json()["target"].startswith("my work:") and run.json()["window"].startswith("@")
    pane_read(out, b"READY")
    listed = run_bsi("launch", "--list", "--json", brain=brain, env=tmux_env).json()["launches"]
    assert [r["sess_id"] for r in listed] == [sess]
    ok(run_bsi("agent", "answer", sess, "hi", brain=brain, env=tmux_env))
    assert pane_read(out, b"\r") == b"READYhi\r"


#: An agent that outlives its tmux server: it ignores the hang-up and never reads its terminal.
HANGUP_PROOF = """\
import signal, sys, time
signal.signal(signal.SIGHUP, signal.SIG_IGN)
open(sys.argv[1], "ab").write(b"READY")
while True:
    time.sleep(1)
"""


def test_keys_never_reach_a_pane_a_new_tmux_server_gave_the_same_id(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str]) -> None:
    """tmux numbers panes and windows from %0 and @0 again after a restart: the first launch's record still names
    %0 and @0 while its process lives on, and those are now another claim's agent. Keys, the stop and the attach
    go to the pane only while it is the launched process's own, else nothing is typed, killed or shown (66)."""
    script = tmp_path / "hangup_proof.py"
    script.write_text(HANGUP_PROOF, encoding="utf-8")
    first_out = tmp_path / "first.bin"
    (brain / "brain-compose.yml").write_text(json.dumps({"launch": {"command": [sys.executable, str(script),
                                                                                str(first_out)]}}), encoding="utf-8")
    first = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "first", brain=brain))
    run = run_bsi("launch", first, "--json", brain=brain, env=tmux_env)
    assert run.code == 0, run.err
    first_pid = run.json()["pid"]
    try:
        pane_read(first_out, b"READY")
        _tmux(tmux_env, "kill-server")
        second, out, record = launched(brain, tmp_path, tmux_env)
        assert (record["window"], record["pane"]) == (run.json()["window"], run.json()["pane"])  # the same ids
        for action in (["agent", "answer", first, "rm -rf ."], ["agent", "interrupt", first], ["agent", "stop", first],
                       ["launch", "--attach", first]):
            refused = run_bsi(*action, brain=brain, env=tmux_env)
            assert refused.code == 66 and "Traceback" not in refused.err, (action, refused.err)
            assert len(refused.err.strip().splitlines()) == 1
        assert record["window"] in windows(tmux_env)
        assert nothing_typed_before_a_mark(brain, second, out, tmux_env)
    finally:
        with contextlib.suppress(OSError):
            os.kill(first_pid, signal.SIGKILL)


def test_keys_and_the_stop_follow_the_agents_pane_into_another_window(
        brain: Path, tmp_path: Path, tmux_env: dict[str, str]) -> None:
    """The pilot split the agent's window, then broke the agent's pane out into a window of its own: the reply
    reaches the agent, and the stop kills the agent's window now, never the pilot's pane left in the first one."""
    sess, out, record = launched(brain, tmp_path, tmux_env)
    other = tmp_path / "split.bin"
    _tmux(tmux_env, "split-window", "-d", "-t", record["window"], sys.executable, str(tmp_path / "raw_recorder.py"),
          str(other))
    pane_read(other, b"READY")
    _tmux(tmux_env, "break-pane", "-d", "-s", record["pane"])
    ok(run_bsi("agent", "answer", sess, "yes", brain=brain, env=tmux_env))
    assert pane_read(out, b"\r") == b"READYyes\r"
    ok(run_bsi("agent", "stop", sess, brain=brain, env=tmux_env))
    assert windows(tmux_env) == [record["window"]]  # the pilot's pane, in the first window, lives on
    assert other.read_bytes() == b"READY"
