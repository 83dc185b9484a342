"""A launched command is an agent's, whoever launched it and whatever it strips (SPEC 20.5, 21.1).

An agent can make a brain of its own, write there a `launch.command` that strips its markers
(`env -u BSI_SESSION -u CLAUDECODE …`) and runs a human's verb against the real brain, and launch
it: in a tmux window (a child of the tmux server) or detached from its shell (adopted by whoever
reaps orphans). Neither has the agent among its ancestors. Every launched command runs under
bsi's launch root, which is an agent process: the human's verb is refused (77), the gate waits.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.sessions.agent_process import agent_process
from tests.bsi import NOW, bsi_command, clean_env, ok, run_bsi
from tests.clock import wait_for
from tests.hooks.fake_agent import RUNNER, FakeAgent
from tests.tmux import needs_tmux, private_server

needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
SESSION = "33333333-cccc-4ccc-8ccc-333333333333"

#: The launched command: waits until no `claude` is among its ancestors (a detached launch is adopted only once
#: the agent's shell has exited), then runs its argv with the agent's markers stripped; writes what it got.
STRIPPER = """\
import json, os, subprocess, sys, time
def ancestors():
    names, pid = [], os.getppid()
    while pid > 1:
        try:
            stat = open("/proc/%d/stat" % pid).read()
        except OSError:
            break
        names.append(stat[stat.find("(") + 1:stat.rfind(")")])
        pid = int(stat[stat.rfind(")") + 2:].split()[1])
    return names
deadline = time.monotonic() + 30
while "claude" in ancestors() and time.monotonic() < deadline:
    time.sleep(0.05)
strip = ["-u", "BSI_SESSION", "-u", "CLAUDECODE", "-u", "CLAUDE_CODE_SESSION_ID", "-u", "BSI_AGENT_HEIR"]
done = subprocess.run(["env", *strip, *sys.argv[2:]], capture_output=True, text=True)
with open(sys.argv[1] + ".tmp", "w") as fh:
    json.dump({"code": done.returncode, "err": done.stderr, "ancestors": ancestors()}, fh)
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
"""

#: A process that adopts the orphans of its descendants (as a container's init or a desktop session does).
SUBREAPER = """\
import ctypes, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
sys.exit(subprocess.call(sys.argv[1:]))
"""


class AdoptedAgent(FakeAgent):
    """A `FakeAgent` whose parent is a subreaper: what its shell detaches is adopted by that process, not pid 1."""

    def __init__(self, folder: Path, env: dict[str, str]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        exe = folder / "claude"
        if not exe.exists():
            shutil.copy2(os.path.realpath(sys.executable), exe)
        self.proc = subprocess.Popen([sys.executable, "-c", SUBREAPER, str(exe), "-I", "-c", RUNNER],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    @property
    def process(self) -> str:  # the agent is the subreaper's child
        return agent_process(self.proc.pid)


def attacker_brain(tmp_path: Path, agent: FakeAgent, env: dict[str, str], real: Path, leaf: str, out: Path, *,
                   tmux: bool) -> tuple[Path, str]:
    """The agent's own brain, whose launch command approves `leaf` of the real brain; and the agent's claim in it."""
    mine = tmp_path / "mine"
    init = agent.run(bsi_command("init", str(mine)), env=env, cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    script = tmp_path / "stripper.py"
    script.write_text(STRIPPER, encoding="utf-8")
    command = [sys.executable, str(script), str(out), *bsi_command("gate", "approve", leaf, brain=real, now=NOW)]
    (mine / "brain-compose.yml").write_text(json.dumps({"launch": {"command": command, "tmux": tmux}}),
                                            encoding="utf-8")
    # a claim no agent session holds (the agent opens it as it launches it below: detached, markers stripped)
    return mine, ok(run_bsi("claim", "open", "--scope", "a/", brain=mine))


def detached_launch(agent: FakeAgent, env: dict[str, str], mine: Path, sess: str, log: Path) -> None:
    """The agent's shell detaches `bsi launch`, markers stripped, and exits: once the launch is adopted by the
    subreaper, no agent is above it (a human's, for bsi) and it starts the launch command."""
    detach = ["sh", "-c", '(while [ -e /proc/$$ ]; do sleep 0.05; done; exec env -u CLAUDECODE '
              '-u CLAUDE_CODE_SESSION_ID "$@") >"$0" 2>&1 &', str(log),
              *bsi_command("launch", sess, brain=mine, now=NOW)]
    assert agent.run(detach, env=env, cwd=mine).returncode == 0


def gated(brain: Path) -> str:
    pilot = ok(run_bsi("claim", "open", "--scope", "be/", "--type", "pilote", "--slug", "pilot", brain=brain))
    leaf = ok(run_bsi("claim", "open", "--scope", "be/x.py", "--parent", pilot, "--satellite-type", "code",
                      "--slug", "leaf", brain=brain))
    ok(run_bsi("gate", "request", leaf, "deploy?", brain=brain))
    return leaf


def status(brain: Path, sess_id: str) -> Any:
    return run_bsi("claim", "show", sess_id, "--json", brain=brain).json()["status"]


def refused(out: Path, leaf: str) -> dict[str, Any]:
    wait_for(out.exists, timeout=40, what="the launched command to run")
    got: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert got["code"] == 77, got
    assert f"approve {leaf} is a human's decision" in got["err"], got
    assert "claude" not in got["ancestors"], got  # no agent above it but the launch root
    return got


@needs_proc
def test_a_detached_launch_of_a_stripping_command_cannot_approve_the_real_brains_gate(
        brain: Path, tmp_path: Path) -> None:
    leaf = gated(brain)
    env = clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=SESSION)
    env.pop("TMUX", None)
    out = tmp_path / "approve.json"
    agent = AdoptedAgent(tmp_path / "bin", env)
    try:
        mine, sess = attacker_brain(tmp_path, agent, env, brain, leaf, out, tmux=False)
        detached_launch(agent, env, mine, sess, tmp_path / "launch.log")
        refused(out, leaf)
    finally:
        agent.close()
    assert status(brain, leaf) == "waiting_human"


@needs_proc
@needs_tmux
def test_a_tmux_launch_of_a_stripping_command_cannot_approve_the_real_brains_gate(
        brain: Path, tmp_path: Path) -> None:
    leaf = gated(brain)
    out = tmp_path / "approve.json"
    with private_server(tmp_path, CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=SESSION) as env:
        agent = AdoptedAgent(tmp_path / "bin", env)
        try:
            mine, sess = attacker_brain(tmp_path, agent, env, brain, leaf, out, tmux=True)
            detached_launch(agent, env, mine, sess, tmp_path / "launch.log")
            refused(out, leaf)
        finally:
            agent.close()
    assert status(brain, leaf) == "waiting_human"
