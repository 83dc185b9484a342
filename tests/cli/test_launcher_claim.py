"""`$BSI_SESSION` is the agent's own word only as its agent process was launched with it (SPEC 20.1, 21.4).

A launcher starts the agent with `BSI_SESSION` set; the agent's shell, its `bsi`
and an MCP server it starts inherit it. An agent's shell that sets
`BSI_SESSION=<another session's claim>` for one command (or starts `bsi mcp`
so) names that claim without holding it: the act is refused, naming the holder,
and nothing is written. Each agent is a real process (`FakeAgent`), so the
ancestor the rule reads is there, as under Claude Code.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.rules.authority import agent_ancestors
from tests.bsi import BRAIN_AND_GIT, NOW, bsi_command, clean_env, ok, run_bsi
from tests.clock import live_now
from tests.conftest import load_claim, tree_bytes
from tests.hooks.fake_agent import FakeAgent

SESSION = "aaaaaaaa-1111-4000-8000-0000000000aa"

pytestmark = pytest.mark.skipif(bool(agent_ancestors()),
                                reason="the suite runs under an agent process: the FakeAgent is not the nearest one")


def shell_env(**extra: str) -> dict[str, str]:
    """The environment of Claude Code's Bash tool: the markers, no inherited claim."""
    base = clean_env(drop=(*BRAIN_AND_GIT, "CLAUDE*", "GEMINI*", "CODEX*", "BSI_*"))
    return {**base, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": SESSION, **extra}


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[FakeAgent]:
    """An agent started by hand (no launcher): its own environment names no claim."""
    started = FakeAgent(tmp_path / "agent", env=shell_env())
    yield started
    started.close()


@pytest.fixture
def human_claim(brain: Path) -> str:
    return ok(run_bsi("claim", "open", "--scope", "src/", "--story", "the human's", brain=brain))


def mcp_close(agent: FakeAgent, brain: Path, env: dict[str, str], arguments: dict[str, str]) -> dict[str, Any]:
    """A `bsi mcp` started from `agent`'s shell with `env`, initialised, asked `claim_close(arguments)`: its result."""
    agent.start("mcp", bsi_command("mcp", brain=brain, now=NOW), env, brain)
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    assert json.loads(agent.send("mcp", json.dumps(init)))["id"] == 0
    agent.send_only("mcp", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "claim_close", "arguments": arguments}}
    result: dict[str, Any] = json.loads(agent.send("mcp", json.dumps(call)))["result"]
    return result


@pytest.mark.parametrize("verb", [["claim", "renew"], ["claim", "close", "--status", "ok"],
                                  ["gate", "request", "{id}", "stop it"], ["preflight", "fail"], ["launch"]])
def test_an_agents_shell_cannot_borrow_another_claim_through_bsi_session(brain: Path, human_claim: str,
                                                                         agent: FakeAgent, verb: list[str]) -> None:
    before = tree_bytes(brain)
    args = [part.replace("{id}", human_claim) for part in verb]
    if "{id}" not in " ".join(verb):
        args.append(human_claim)
    done = agent.run(bsi_command(*args, brain=brain, now=NOW), env=shell_env(BSI_SESSION=human_claim), cwd=brain)
    assert done.returncode == 77, done
    assert human_claim in done.stderr and "acts only for its own claims" in done.stderr, done.stderr
    assert tree_bytes(brain) == before and load_claim(brain, human_claim)["status"] == "open"


def test_an_mcp_server_started_from_the_agents_shell_cannot_borrow_another_claim(brain: Path, human_claim: str,
                                                                                  agent: FakeAgent) -> None:
    before = tree_bytes(brain)
    answer = mcp_close(agent, brain, shell_env(BSI_SESSION=human_claim), {"status": "ok"})
    assert answer["isError"] is True, answer
    assert answer["structuredContent"]["exit"] in (66, 77), answer
    assert tree_bytes(brain) == before and load_claim(brain, human_claim)["status"] == "open"


def test_a_launched_agent_acts_for_the_claim_it_was_launched_with(brain: Path, tmp_path: Path) -> None:
    now = live_now()  # an agent's renew judges the claim at the machine's clock
    human_claim = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "the human's", brain=brain, now=now))
    launched = FakeAgent(tmp_path / "launched", env=shell_env(BSI_SESSION=human_claim))
    try:
        done = launched.run(bsi_command("claim", "renew", human_claim, brain=brain, now=now),
                            env=shell_env(BSI_SESSION=human_claim), cwd=brain)
    finally:
        launched.close()
    assert done.returncode == 0, done


# -- the agent session named in the environment is the agent's own only from its recorded agent process ------
OTHER = "bbbbbbbb-2222-4000-8000-0000000000bb"


def opened_by(agent: FakeAgent, brain: Path, session: str, now: str = NOW) -> str:
    """A claim opened from `agent`'s shell (at `now`): bound to `session`, whose agent process is recorded."""
    done = agent.run(bsi_command("claim", "open", "--scope", "docs/", "--story", "its work", brain=brain, now=now),
                     env=shell_env(CLAUDE_CODE_SESSION_ID=session), cwd=brain)
    assert done.returncode == 0, done
    return done.stdout.strip()


def test_an_agents_shell_cannot_borrow_another_agents_session_id(brain: Path, agent: FakeAgent,
                                                                 tmp_path: Path) -> None:
    other = FakeAgent(tmp_path / "other", env=shell_env(CLAUDE_CODE_SESSION_ID=OTHER))
    try:
        now = live_now()  # its own agent's renew judges the claim at the machine's clock
        theirs = opened_by(other, brain, OTHER, now)
        before = tree_bytes(brain)
        done = agent.run(bsi_command("claim", "close", theirs, "--status", "ok", brain=brain, now=now),
                         env=shell_env(CLAUDE_CODE_SESSION_ID=OTHER), cwd=brain)
        assert done.returncode == 77, done
        assert theirs in done.stderr, done.stderr
        assert tree_bytes(brain) == before and load_claim(brain, theirs)["status"] == "open"
        mine = other.run(bsi_command("claim", "renew", theirs, brain=brain, now=now),
                         env=shell_env(CLAUDE_CODE_SESSION_ID=OTHER), cwd=brain)
        assert mine.returncode == 0, mine  # its own agent still acts for it
    finally:
        other.close()


@pytest.fixture
def theirs(brain: Path, tmp_path: Path) -> str:
    """A claim another agent (session OTHER, its process recorded) opened from its shell."""
    other = FakeAgent(tmp_path / "other", env=shell_env(CLAUDE_CODE_SESSION_ID=OTHER))
    try:
        return opened_by(other, brain, OTHER)
    finally:
        other.close()


def test_an_mcp_server_started_with_another_agents_session_id_gets_nothing(brain: Path, agent: FakeAgent,
                                                                            theirs: str) -> None:
    before = tree_bytes(brain)
    answer = mcp_close(agent, brain, shell_env(CLAUDE_CODE_SESSION_ID=OTHER), {"sess_id": theirs, "status": "ok"})
    assert answer["isError"] is True and answer["structuredContent"]["exit"] == 77, answer
    assert tree_bytes(brain) == before and load_claim(brain, theirs)["status"] == "open"


def test_an_agent_cannot_bind_a_new_claim_to_another_agents_session(brain: Path, agent: FakeAgent,
                                                                    theirs: str) -> None:
    before = tree_bytes(brain)
    for how in (["--agent-session", OTHER], []):
        done = agent.run(bsi_command("claim", "open", "--scope", "lib/", *how, brain=brain, now=NOW),
                         env=shell_env(CLAUDE_CODE_SESSION_ID=OTHER), cwd=brain)
        assert done.returncode == 77, done
        assert OTHER in done.stderr and theirs in done.stderr, done.stderr
    assert tree_bytes(brain) == before
    mine = agent.run(bsi_command("claim", "open", "--scope", "lib/", brain=brain, now=NOW), env=shell_env(), cwd=brain)
    assert mine.returncode == 0, mine  # its own session binds as before
