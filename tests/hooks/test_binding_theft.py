"""Bindings move only on the word of their own agent process (SPEC 20.1, 21.4), through wrappers too.

Each agent is a real process (`FakeAgent`): its hooks, its `bsi` and its MCP
server run as its children, as under Claude Code, Gemini CLI or Codex.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.sessions import agent_files, agents
from tests.bsi import BRAIN_AND_GIT, bsi_command, clean_env, ok, run_bsi
from tests.clock import live_now
from tests.hooks.fake_agent import FakeAgent
from tests.hooks.test_pre_tool_use import assert_allowed, assert_denied, event

A = "aaaaaaaa-1111-4000-8000-000000000001"
B = "bbbbbbbb-2222-4000-8000-000000000002"
A_NEW = "aaaaaaaa-3333-4000-8000-000000000003"
G = "gemini-session-0001"


def env(**extra: str) -> dict[str, str]:
    """The environment of an agent's child: no agent marker inherited from whoever runs the tests."""
    base = clean_env(drop=(*BRAIN_AND_GIT, "CLAUDE*", "GEMINI*", "CODEX*", "BSI_*"))
    return {**base, **extra}


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[FakeAgent, FakeAgent]]:
    a, b = FakeAgent(tmp_path / "agent-a"), FakeAgent(tmp_path / "agent-b")
    yield a, b
    a.close()
    b.close()


def hook(agent: FakeAgent, brain: Path, name: str, payload: dict[str, Any], *, command: list[str] | None = None,
         agent_name: str = "claude", **extra: str) -> Any:
    # A process, not run_bsi: the binding trusts the hook's ancestry, so the agent must be its parent process.
    argv = (command or bsi_command(brain=brain, now=live_now())) + ["hook", name, "--agent", agent_name]
    return agent.run(argv, json.dumps(payload), env=env(**extra), cwd=brain)


def base(brain: Path, name: str, session: str, **extra: Any) -> dict[str, Any]:
    return {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": str(brain),
            "hook_event_name": name, **extra}


def open_in(agent: FakeAgent, brain: Path, scope: str, session: str) -> str:
    # A process: `claim open` binds to the agent it finds among its ancestors (this FakeAgent).
    done = agent.run(bsi_command("claim", "open", "--scope", scope, "--story", "work", brain=brain,
                                 now=live_now()),
                     env=env(CLAUDE_CODE_SESSION_ID=session), cwd=brain)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def context(done: Any) -> str:
    assert done.returncode == 0, done
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def test_a_forged_handover_from_another_agent_is_refused_and_said(brain: Path,
                                                                   two: tuple[FakeAgent, FakeAgent]) -> None:
    a, b = two
    sess = open_in(a, brain, "src/", A)
    forged = hook(b, brain, "session-end", base(brain, "SessionEnd", A, reason="clear"))
    assert forged.returncode == 0 and forged.stdout == ""
    assert "refused" in forged.stderr and A in forged.stderr and sess in forged.stderr
    taken = context(hook(b, brain, "session-start", base(brain, "SessionStart", B, source="clear")))
    assert "holds no claim" in taken and "carried over" not in taken
    assert agents.bound_claims(brain, B) == []
    assert_denied(hook(b, brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"), session=B)),
                  sess)
    assert agents.read_liveness(brain)[sess].state == "working"  # the forged end did not end A's session
    # A's own /clear still carries its binding over
    assert hook(a, brain, "session-end", base(brain, "SessionEnd", A, reason="clear")).stderr == ""
    assert "carried over" in context(hook(a, brain, "session-start", base(brain, "SessionStart", A_NEW,
                                                                          source="clear")))
    assert_allowed(hook(a, brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"), session=A_NEW)))


def test_a_forged_session_start_does_not_hand_out_the_claim(brain: Path, two: tuple[FakeAgent, FakeAgent],
                                                            tmp_path: Path) -> None:
    a, b = two
    sess = open_in(a, brain, "src/", A)
    env_file = tmp_path / "b-env"
    text = context(hook(b, brain, "session-start", base(brain, "SessionStart", A, source="startup"),
                        CLAUDE_ENV_FILE=str(env_file)))
    assert "does not come from its agent process" in text and "holds no claim" in text
    assert not env_file.exists()  # B's shell never gets BSI_SESSION=<A's claim>
    assert sess in agents.bound_claims(brain, A)


def test_forged_prompt_and_stop_events_use_up_nothing_of_the_session(brain: Path,
                                                                     two: tuple[FakeAgent, FakeAgent]) -> None:
    a, b = two
    sess = open_in(a, brain, "src/", A)
    ok(run_bsi("signal", "send", "--to", sess, "--type", "HANDOFF", "--from", "sess-p", "take the tests",
               brain=brain, env=env()))  # the pilot, from its own terminal
    prompt = base(brain, "UserPromptSubmit", A, prompt="go on")
    stop = base(brain, "Stop", A, stop_hook_active=False)
    assert hook(b, brain, "user-prompt-submit", prompt).stdout == ""
    assert hook(b, brain, "stop", stop).stdout == ""
    assert "take the tests" in context(hook(a, brain, "user-prompt-submit", prompt))
    assert json.loads(hook(a, brain, "stop", stop).stdout)["decision"] == "block"


def wrappers(tmp_path: Path) -> dict[str, list[str]]:
    """Hook command lines that put a shell or a wrapper between the agent and `bsi hook`."""
    script = tmp_path / "hooks" / "bsi.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(f"#!/bin/sh\n# the project's hook wrapper\n{sys.executable} -m brain_tui.cli.main \"$@\"\n")
    script.chmod(0o755)
    direct = " ".join(bsi_command())
    return {
        "script": [str(script)],
        "bash-script": ["bash", str(script)],
        "sh-c": ["sh", "-c", f'{direct} "$@"', "sh"],
        "env": ["env", "A_WRAPPER=1", *bsi_command()],
    }


@pytest.mark.parametrize("kind", ["script", "bash-script", "sh-c", "env"])
def test_a_wrapper_between_agent_and_hook_keeps_the_clear_handover(brain: Path, two: tuple[FakeAgent, FakeAgent],
                                                                   tmp_path: Path, kind: str) -> None:
    a, _b = two
    sess = open_in(a, brain, "src/", A)
    command = [*wrappers(tmp_path)[kind], "--brain", str(brain), "--now", live_now()]
    ended = hook(a, brain, "session-end", base(brain, "SessionEnd", A, reason="clear"), command=command)
    assert ended.returncode == 0 and ended.stderr == "", ended.stderr
    text = context(hook(a, brain, "session-start", base(brain, "SessionStart", A_NEW, source="clear"),
                        command=command))
    assert "carried over" in text and sess in text
    assert_allowed(hook(a, brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "x.py"), session=A_NEW),
                        command=command))
    assert_denied(hook(a, brain, "pre-tool-use", event(brain, "Edit", str(brain / "docs" / "x.md"), session=A_NEW),
                       command=command), sess)


class McpClient:
    """Raw JSON-RPC to a `bsi mcp` its agent started (stdin/stdout lines)."""

    def __init__(self, agent: FakeAgent, brain: Path, **extra: str) -> None:
        self.agent, self.ids = agent, 0
        self.key = f"mcp-{id(self)}"
        # A process: the MCP server is the agent's child and reads its binding from that ancestry.
        agent.start(self.key, bsi_command("mcp", brain=brain, now=live_now()), env(**extra), brain)
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "fake", "version": "1"}})

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.ids += 1
        line = self.agent.send(self.key, json.dumps({"jsonrpc": "2.0", "id": self.ids, "method": method,
                                                     "params": params}))
        reply = json.loads(line)
        assert reply.get("id") == self.ids, reply
        return reply["result"]

    def tool(self, name: str, **arguments: Any) -> Any:
        return self.call("tools/call", {"name": name, "arguments": arguments})


def gemini_write(brain: Path, path: Path, session: str = G) -> dict[str, Any]:
    return {"session_id": session, "transcript_path": f"/tmp/{session}.json", "cwd": str(brain),
            "hook_event_name": "BeforeTool", "timestamp": "2026-11-29T10:00:00Z", "tool_name": "write_file",
            "tool_input": {"file_path": str(path), "content": "x"}}


def test_a_gemini_claim_opened_through_mcp_binds_to_its_session(brain: Path, tmp_path: Path) -> None:
    gemini, other = FakeAgent(tmp_path / "g", "gemini"), FakeAgent(tmp_path / "o")
    try:
        client = McpClient(gemini, brain)  # Gemini CLI gives its MCP server no session ID
        opened = client.tool("claim_open", scope=["src/"], story="via gemini")
        assert opened["isError"] is False, opened
        sess = opened["structuredContent"]["sess_id"]
        # another agent's forged event never takes it, whatever session it names
        forged = hook(other, brain, "pre-tool-use", event(brain, "Edit", str(brain / "docs" / "a.md"), session=G))
        assert forged.returncode == 0 and agents.bound_claims(brain, G) == []
        # Gemini's own next write binds it: refused outside its claim, allowed inside
        out = hook(gemini, brain, "pre-tool-use", gemini_write(brain, brain / "docs" / "a.md"), agent_name="gemini",
                   GEMINI_SESSION_ID=G)
        assert out.returncode == 0 and json.loads(out.stdout)["decision"] == "deny" and sess in out.stdout
        assert agents.bound_claims(brain, G) == [sess] and not agent_files.has_pending(brain)
        inside = hook(gemini, brain, "pre-tool-use", gemini_write(brain, brain / "src" / "a.py"), agent_name="gemini",
                      GEMINI_SESSION_ID=G)
        assert inside.returncode == 0 and inside.stdout == "", inside
        # and the server acts for it (the client's session, though the server got no ID)
        assert client.tool("claim_renew", sess_id=sess)["isError"] is False
    finally:
        gemini.close()
        other.close()


def test_a_codex_session_from_the_event_alone_binds_through_post_tool_use(brain: Path, tmp_path: Path) -> None:
    codex = FakeAgent(tmp_path / "c", "codex")
    try:
        client = McpClient(codex, brain)
        sess = client.tool("claim_open", scope=["lib/"], story="via codex")["structuredContent"]["sess_id"]
        post = {"session_id": "codex-thread-9", "turn_id": "t1", "cwd": str(brain), "hook_event_name": "PostToolUse",
                "tool_name": "mcp__bsi__claim_open", "tool_input": {"scope": ["lib/"]}}
        assert hook(codex, brain, "post-tool-use", post).returncode == 0
        assert agents.bound_claims(brain, "codex-thread-9") == [sess]
    finally:
        codex.close()
    assert os.path.exists(brain / ".brain" / "agents" / "sessions" / "codex-thread-9.json")


def test_a_session_bound_by_hand_is_not_taken_by_another_agent_before_its_own_starts(
        brain: Path, two: tuple[FakeAgent, FakeAgent]) -> None:
    # The pilot binds a claim to the session they are about to start (`claude --session-id U`); the ID is in the
    # claim file for every agent to read. Agent b, already at work as B, names U before U's own agent starts.
    u = "cccccccc-4444-4000-8000-000000000004"
    sess = ok(run_bsi("claim", "open", "--scope", "docs/", "--story", "for U", "--agent-session", u, brain=brain,
                      now=live_now()))
    a, b = two
    assert context(hook(b, brain, "session-start", base(brain, "SessionStart", B, source="startup")))
    closed = b.run(bsi_command("claim", "close", sess, "--status", "failed", "--notes", "x", brain=brain,
                               now=live_now()),
                   env=env(CLAUDE_CODE_SESSION_ID=u, CLAUDECODE="1"), cwd=brain)
    assert closed.returncode == 77 and sess in closed.stderr, closed
    bound = b.run(bsi_command("claim", "open", "--scope", "zz/", "--story", "x", brain=brain, now=live_now()),
                  env=env(CLAUDE_CODE_SESSION_ID=u, CLAUDECODE="1"), cwd=brain)  # a binding would record b for U
    assert bound.returncode == 77 and sess in bound.stderr, bound
    forged = context(hook(b, brain, "session-start", base(brain, "SessionStart", u, source="startup")))
    assert "does not come from its agent process" in forged
    assert agent_files.recorded_process(brain, u) == ""
    # U's own agent starts: its first event takes the session, and it acts for its claim
    assert "does not come" not in context(hook(a, brain, "session-start", base(brain, "SessionStart", u,
                                                                                source="startup")))
    assert agent_files.recorded_process(brain, u) == a.process
    renewed = a.run(bsi_command("claim", "renew", sess, brain=brain, now=live_now()),
                    env=env(CLAUDE_CODE_SESSION_ID=u, CLAUDECODE="1"), cwd=brain)
    assert renewed.returncode == 0, renewed.stderr
    assert_allowed(hook(a, brain, "pre-tool-use", event(brain, "Edit", str(brain / "docs" / "a.md"), session=u)))
