"""kill -9 of an agent-session open between its commit and the recording of its binding (SPEC 20.1, 22).

The open commits the claim, then records locally which agent session holds it
(`.brain/agents/sessions/`, or, for a claim opened through `bsi mcp` by a client
that gives its server no session ID, a pending binding in `.brain/agents/pending/`).
A kill between the two must not leave a claim that its own session cannot work in:
the session's next pre-tool-use hook allows a write inside the claim's scope.

The faulty `git` (`faults.py`) kills the `bsi` that runs it right after its `git update-ref` (the commit).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from brain_tui.core.sessions import agent_files, agents
from tests.bsi import bsi_command, ok, run_bsi
from tests.clock import live_now
from tests.hooks.fake_agent import FakeAgent
from tests.hooks.test_binding_theft import G, McpClient, env, gemini_write, hook, open_in
from tests.hooks.test_pre_tool_use import assert_allowed, event

from .faults import Faults

A = "aaaaaaaa-1111-4000-8000-000000000001"


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[FakeAgent]:
    one = FakeAgent(tmp_path / "agent")
    yield one
    one.close()


def _claims(brain: Path) -> list[str]:
    listed = subprocess.run(["git", "ls-tree", "--name-only", "HEAD", "claims/"], cwd=brain, capture_output=True,
                            text=True, check=True).stdout.split()
    return sorted(Path(name).stem for name in listed if Path(name).name.startswith("sess-"))


def _killed_open(agent: FakeAgent, brain: Path, faults: Faults, scope: str) -> None:
    """`bsi claim open` run by the agent (its session in the environment), killed right after its commit."""
    argv = bsi_command("claim", "open", "--scope", scope, "--story", "work", brain=brain, now=live_now())
    done = agent.run(argv, env=faults.env(env(CLAUDE_CODE_SESSION_ID=A), on="update-ref", do="kill-after"), cwd=brain)
    assert done.returncode == -9, done


def test_a_first_open_killed_after_its_commit_is_found_by_the_next_hook(brain: Path, tmp_path: Path,
                                                                       agent: FakeAgent) -> None:
    """The claim file names its agent session: with no other binding, the hook reads it from there."""
    _killed_open(agent, brain, Faults.install(tmp_path), "src/")
    [sess] = _claims(brain)
    assert agents.bound_claims(brain, A) == []  # killed before its binding
    assert_allowed(hook(agent, brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"), session=A)))
    # the hook made the binding the open left undone: the local record, its agent process, the liveness
    assert agents.bound_claims(brain, A) == [sess] and not agent_files.has_opening(brain)
    assert agent_files.recorded_process(brain, A) == agent.process
    assert agents.read_liveness(brain)[sess].agent_session == A


def test_a_second_open_killed_after_its_commit_is_found_by_the_next_hook(brain: Path, tmp_path: Path,
                                                                        agent: FakeAgent) -> None:
    """The session already holds a claim bound locally: the new one, committed but killed before its binding,
    is still the session's (before, the local binding alone counted and the write was refused)."""
    first = open_in(agent, brain, "docs/", A)
    _killed_open(agent, brain, Faults.install(tmp_path), "src/")
    assert len(_claims(brain)) == 2
    assert_allowed(hook(agent, brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"), session=A)))
    assert_allowed(hook(agent, brain, "pre-tool-use", event(brain, "Edit", str(brain / "docs" / "a.md"), session=A)))
    [second] = [sess for sess in _claims(brain) if sess != first]
    assert agents.bound_claims(brain, A) == [first, second]


def test_an_open_killed_before_its_commit_leaves_no_claim_and_binds_nothing(brain: Path, tmp_path: Path,
                                                                          agent: FakeAgent) -> None:
    """Killed before HEAD moves: the next command puts the files back, no claim exists, and the binding recorded
    before the commit names a claim git never held: the hook binds nothing and refuses nothing for it."""
    argv = bsi_command("claim", "open", "--scope", "src/", "--story", "work", brain=brain, now=live_now())
    faults = Faults.install(tmp_path)
    done = agent.run(argv, env=faults.env(env(CLAUDE_CODE_SESSION_ID=A), on="update-ref", do="kill-before"),
                     cwd=brain)
    assert done.returncode == -9, done
    assert agent_files.has_opening(brain)
    ok(run_bsi("claim", "list", brain=brain))
    assert _claims(brain) == [] and not list((brain / "claims").glob("sess-*.yml"))
    out = hook(agent, brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"), session=A))
    assert out.returncode == 0 and "sess-" not in out.stdout + out.stderr, out
    assert agents.bound_claims(brain, A) == []


def test_an_mcp_open_killed_after_its_commit_binds_at_the_clients_next_hook(brain: Path, tmp_path: Path) -> None:
    """Gemini CLI gives its server no session ID: the claim names none, only the pending binding the server leaves
    after the commit ties it to the client. Killed between the two, the client's next hook still binds it."""
    faults = Faults.install(tmp_path)
    gemini = FakeAgent(tmp_path / "g", "gemini")
    try:
        client = McpClient.__new__(McpClient)
        client.agent, client.ids, client.key = gemini, 0, "mcp-killed"
        gemini.start(client.key, bsi_command("mcp", brain=brain, now=live_now()),
                     faults.env(env(), on="update-ref", do="kill-after"), brain)
        client.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "fake", "version": "1"}})
        line = gemini.send(client.key, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "claim_open", "arguments": {"scope": ["src/"], "story": "via gemini"}}}))
        assert line == ""  # the server was killed after its commit: no answer
        assert len(_claims(brain)) == 1
        [sess] = _claims(brain)
        inside = hook(gemini, brain, "pre-tool-use", gemini_write(brain, brain / "src" / "a.py"), agent_name="gemini",
                      GEMINI_SESSION_ID=G)
        assert inside.returncode == 0 and inside.stdout == "", inside
        assert agents.bound_claims(brain, G) == [sess]
        assert not agent_files.has_opening(brain) and not agent_files.has_pending(brain)
    finally:
        gemini.close()
