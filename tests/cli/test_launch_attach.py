"""Attaching to a launched agent's tmux window (`bsi launch --attach`, the cockpit's A) from an agent's process: a
client that only watches (typing into the pane is a human's act, SPEC 21.2), inside tmux too.

tmux runs as a private server (its own TMUX_TMPDIR), never the user's; the "agent" is test_launch's recorder.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.bsi import run_bsi
from tests.cli.test_launch import launch_env, opened, recorded, recorder, write_config
from tests.clock import wait_for
from tests.tmux import needs_tmux

__all__ = ["launch_env"]  # the fixture, shared with test_launch


@needs_tmux
@pytest.mark.parametrize("marker", ["CLAUDECODE", "BSI_SESSION"])
def test_an_agents_attach_is_a_read_only_client(brain: Path, tmp_path: Path, launch_env: dict[str, str],
                                                marker: str) -> None:
    """Typing into a launched agent's pane is a human's act (`agent answer`, SPEC 21.2): an agent's process that
    attaches (`bsi launch --attach`, `A`) gets a client that only watches, as a `--readonly` cockpit does."""
    # Before, an agent's attach was a client that types: its keys reached the agent's pane (a permission prompt).
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(tmp_path / "argv.json")])
    sess = opened(brain, "--scope", "wiki/", "--slug", "wiki-fix")
    assert run_bsi("launch", sess, brain=brain, env=launch_env).code == 0
    recorded(tmp_path / "argv.json")
    human = run_bsi("launch", "--attach", sess, brain=brain, env=launch_env)  # stdin: not a terminal
    assert human.code == 64 and "attach-session -t" in human.err, human.err
    agent_env = {**launch_env, marker: sess if marker == "BSI_SESSION" else "1"}
    agent = run_bsi("launch", "--attach", sess, brain=brain, env=agent_env)
    assert agent.code == 64 and "attach-session -r -t" in agent.err, agent.err
    inside = run_bsi("launch", "--attach", sess, brain=brain, env={**agent_env, "TMUX": "/tmp/x,1,0"})
    assert inside.code == 64 and "attach-session -r -t" in inside.err, inside.err  # never a switched client


@needs_tmux
def test_an_agent_inside_tmux_attaches_a_read_only_client(brain: Path, tmp_path: Path,
                                                          launch_env: dict[str, str]) -> None:
    """Inside the launch's own tmux server an agent's `bsi launch --attach` is a read-only client of its own (never a
    switched client, which would type): tmux's "sessions should be nested with care" must not refuse it."""
    from tests.bsi import BSI

    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(tmp_path / "argv.json")])
    sess = opened(brain, "--scope", "wiki/", "--slug", "wiki-fix")
    assert run_bsi("launch", sess, brain=brain, env=launch_env).code == 0
    recorded(tmp_path / "argv.json")
    command = ["env", f"PYTHONPATH={launch_env.get('PYTHONPATH', '')}", "CLAUDECODE=1", *BSI, "--brain", str(brain),
               "launch", "--attach", sess]
    subprocess.run(["tmux", "new-session", "-d", "-s", "pilot", "-x", "80", "-y", "24", *command], env=launch_env,
                   check=True)

    def clients() -> list[str]:
        return subprocess.run(["tmux", "list-clients", "-F", "#{client_readonly} #{session_name}"], env=launch_env,
                              capture_output=True, text=True, check=False).stdout.split("\n")

    found = wait_for(lambda: [c for c in clients() if c], timeout=15, what="the attached client")
    assert [c.split(" ")[0] for c in found] == ["1"], found  # one client (the "pilot" session has none), read-only
