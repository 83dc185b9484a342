"""`bsi launch` in tmux ended early (SPEC 20.5): the launch root waits for its argv, handed over once the launch is
recorded, in a file of its own; so no agent runs that `.brain/launches/` does not name.

tmux runs as a private server (its own TMUX_TMPDIR), never the user's; the "agent" is test_launch's recorder.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.bsi import run_bsi
from tests.cli.test_launch import launch_env, opened, recorded, recorder, tmux_windows, write_config
from tests.clock import wait_for
from tests.tmux import needs_tmux

__all__ = ["launch_env"]  # the fixture, shared with test_launch


@needs_tmux
def test_a_launch_that_ends_before_its_record_leaves_no_agent_running(brain: Path, tmp_path: Path,
                                                                     launch_env: dict[str, str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A `bsi launch` that ends between tmux's new window and its record (killed, a full disk) must not leave an
    agent bsi does not know of: `--list` would not show it, `agent stop` not reach it, and a second launch would
    start a second agent on the same claim."""
    # Before, the window ran the agent at once: its launch root read the argv handed before tmux was asked.
    from brain_tui.core.sessions import launch as launching
    from brain_tui.core.sessions import launch_root

    def dies(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(launching, "write_record", dies)
    monkeypatch.setattr(launch_root, "HANDOVER_WAIT_S", 2.0)
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(tmp_path / "argv.json")])
    sess = opened(brain, "--scope", "wiki/", "--slug", "wiki-fix")
    run = run_bsi("launch", sess, brain=brain, env=launch_env)
    assert run.code != 0 and "Traceback" not in run.err, run.err
    monkeypatch.undo()
    assert run_bsi("launch", "--list", brain=brain, env=launch_env).out.strip() == "no launched agent runs"
    wait_for(lambda: "wiki-fix" not in tmux_windows(launch_env), timeout=20,
             what="the unrecorded window to end")
    assert not (tmp_path / "argv.json").exists()  # the agent never started
    assert run_bsi("launch", sess, brain=brain, env=launch_env).code == 0  # the one agent of the claim
    assert recorded(tmp_path / "argv.json")["env"]["BSI_SESSION"] == sess
    assert tmux_windows(launch_env).count("wiki-fix") == 1


THIEF = """\
import os, sys, time
path, end = sys.argv[1], time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    try:
        os.rename(path, path + ".taken")
    except OSError:
        pass
"""


@needs_tmux
def test_a_launch_roots_argv_reaches_only_its_own_root(brain: Path, tmp_path: Path,
                                                       launch_env: dict[str, str]) -> None:
    """A root left waiting by an earlier launch that ended early must not take a later launch's argv (its agent would
    run in a window no record names): each launch hands its argv over in a file of its own."""
    # Before, every launch of a claim used `.brain/launch/<sess-id>.argv.json`: whoever waited on it took it.
    from brain_tui.core.sessions.launch import argv_file

    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(tmp_path / "argv.json")])
    sess = opened(brain, "--scope", "wiki/", "--slug", "wiki-fix")
    shared = argv_file(brain, sess)
    shared.parent.mkdir(parents=True, exist_ok=True)
    waiting = subprocess.Popen([sys.executable, "-c", THIEF, str(shared), "8"])  # an earlier root, waiting
    try:
        assert run_bsi("launch", sess, brain=brain, env=launch_env).code == 0
        assert recorded(tmp_path / "argv.json", timeout=15)["env"]["BSI_SESSION"] == sess
    finally:
        waiting.kill()
        waiting.wait()
