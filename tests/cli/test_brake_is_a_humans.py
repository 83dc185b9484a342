"""The brake's way past a stalled git, an unreachable remote and a brain-compose.yml that does not parse
(`write_path.mutate`'s `brake`) is a human's pause's only: an agent's process, or an MCP server's agent, that hands
the library's write path `brake` itself is refused (77) before anything is written, whatever the write is.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import HumanOnly
from brain_tui.core.rules import signals
from brain_tui.core.rules.authority import Actor
from brain_tui.core.rules.own_writes import writing_as
from tests.bsi import clean_env
from tests.cli.test_git_failures import bsi
from tests.cli.test_pause_without_remote import _auto
from tests.hooks.test_pre_tool_use import AGENT
from tests.reliability.harness import git, make_remote

#: A write of the agent's own (a signal from its claim) handed to the write path as the brake.
_LIBRARY = """
import sys
from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.rules import signals

brain = Brain(sys.argv[1])
def decide(cs):
    return signals.send_signal(cs, sys.argv[3], "pilote", "INFO", "as the brake", "")
try:
    if sys.argv[2] == "mutate":
        brain.mutate(decide, brake=True)
    else:
        brain.mutate_local(decide, sys.argv[2])
except BsiError as exc:
    print(exc.message)
    sys.exit(exc.exit_code)
"""


def _state(clone: Path) -> tuple[str, str]:
    return git(clone, "rev-parse", "HEAD").strip(), git(clone, "status", "--porcelain", "--", "signals").strip()


@pytest.mark.parametrize("how", ["broken config", "git stalled", "remote gone"])
def test_an_agent_handing_the_write_path_the_brake_is_refused_before_anything(tmp_path: Path, how: str) -> None:
    remote, (a,) = make_remote(tmp_path, 1)
    _auto(a)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "own", "--agent-session", AGENT).out.strip()
    if how == "broken config":
        (a / "brain-compose.yml").write_text("sync: [auto\n", encoding="utf-8")
    elif how == "git stalled":
        (a / ".git" / "MERGE_HEAD").write_text(git(a, "rev-parse", "HEAD").strip() + "\n")
    else:
        remote.rename(remote.with_name("away.git"))
    env = {**clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=AGENT), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    for spelling in ("mutate", "told", "brake"):
        before = _state(a)
        run = subprocess.run([sys.executable, "-c", _LIBRARY, str(a), spelling, sess], env=env, cwd=a,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 77, (spelling, run.returncode, run.stdout, run.stderr)
        assert "human's decision" in run.stdout and "Traceback" not in run.stderr
        assert _state(a) == before, spelling


def test_an_mcp_servers_agent_handing_the_write_path_the_brake_is_refused(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "own", "--agent-session", AGENT).out.strip()
    (a / "brain-compose.yml").write_text("sync: [auto\n", encoding="utf-8")
    before = _state(a)
    brain = Brain(a)
    agent = Actor(kind="agent", evidence=("MCP client claude-code",), agent_sessions=frozenset({AGENT}))
    with writing_as(agent), pytest.raises(HumanOnly):
        brain.mutate(lambda cs: signals.send_signal(cs, sess, "pilote", "INFO", "as the brake", ""), brake=True)
    assert _state(a) == before
