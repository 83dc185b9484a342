"""A claim Gemini CLI's agent opens with `bsi` in its own shell is its session's (SPEC 20.1, 21.4).

Gemini CLI 0.61.0 gives its shell tool ``GEMINI_CLI=1`` and no session ID (the
hooks get ``GEMINI_SESSION_ID``; the MCP server gets none). Its session-start
context tells the agent to run ``bsi claim open``: that claim must bind to the
session through its agent process, as a claim opened through `bsi mcp` does,
or the agent's own claim refuses the agent's writes into it. The events are the
exact stdin the real CLI sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.sessions import agents
from tests.bsi import BRAIN_AND_GIT, bsi_command, clean_env
from tests.clock import live_now
from tests.hooks.fake_agent import FakeAgent

SESSION = "3ded4d58-bf89-453e-ba81-1b63e3902f01"
OTHER = "5bdddd62-4978-405f-835a-81f2a2b44ee2"


def shell_env() -> dict[str, str]:
    """The environment Gemini CLI gives a `run_shell_command` command: a marker, no session ID."""
    base = clean_env(drop=(*BRAIN_AND_GIT, "CLAUDE*", "GEMINI*", "CODEX*", "BSI_*"))
    return {**base, "GEMINI_CLI": "1", "GEMINI_CLI_NO_RELAUNCH": "true"}


def hook_env(brain: Path, session: str) -> dict[str, str]:
    """The environment Gemini CLI gives a hook command."""
    return {**shell_env(), "GEMINI_SESSION_ID": session, "GEMINI_PROJECT_DIR": str(brain), "GEMINI_CWD": str(brain),
            "CLAUDE_PROJECT_DIR": str(brain)}


def before_tool(brain: Path, session: str, path: Path) -> dict[str, Any]:
    """A BeforeTool event for `write_file`, as Gemini CLI 0.61.0 sends it."""
    return {"session_id": session,
            "transcript_path": f"/home/u/.gemini/tmp/brain/chats/session-2026-12-06T22-54-{session[:8]}.jsonl",
            "cwd": str(brain), "hook_event_name": "BeforeTool", "timestamp": "2026-12-06T22:54:50.382Z",
            "tool_name": "write_file", "tool_input": {"file_path": str(path), "content": "clobbered\n"}}


def shell(agent: FakeAgent, brain: Path, *args: str) -> Any:
    return agent.run(bsi_command(*args, brain=brain, now=live_now()), env=shell_env(), cwd=brain)


def pre_tool_use(agent: FakeAgent, brain: Path, session: str, path: Path) -> Any:
    argv = bsi_command(brain=brain, now=live_now()) + ["hook", "pre-tool-use", "--agent", "gemini"]
    return agent.run(argv, json.dumps(before_tool(brain, session, path)), env=hook_env(brain, session), cwd=brain)


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[FakeAgent, FakeAgent]]:
    a, b = FakeAgent(tmp_path / "g1", "gemini"), FakeAgent(tmp_path / "g2", "gemini")
    yield a, b
    a.close()
    b.close()


def test_a_claim_opened_in_geminis_shell_lets_its_own_session_write(brain: Path,
                                                                    two: tuple[FakeAgent, FakeAgent]) -> None:
    gemini, other = two
    opened = shell(gemini, brain, "claim", "open", "--scope", "src/", "--story", "gemini work")
    assert opened.returncode == 0, opened.stderr
    sess = opened.stdout.strip()
    # another agent's hook never takes it: its write is refused as another session's claim
    theirs = pre_tool_use(other, brain, OTHER, brain / "src" / "a.py")
    assert theirs.returncode == 0 and json.loads(theirs.stdout)["decision"] == "deny" and sess in theirs.stdout
    assert agents.bound_claims(brain, OTHER) == []
    # the agent's own next write binds it and goes ahead inside its scope
    mine = pre_tool_use(gemini, brain, SESSION, brain / "src" / "a.py")
    assert mine.returncode == 0 and mine.stdout == "", mine
    assert agents.bound_claims(brain, SESSION) == [sess]
    outside = pre_tool_use(gemini, brain, SESSION, brain / "docs" / "a.md")
    assert json.loads(outside.stdout)["decision"] == "deny" and sess in outside.stdout


def test_geminis_shell_acts_for_its_own_session_claims_only(brain: Path, two: tuple[FakeAgent, FakeAgent]) -> None:
    gemini, other = two
    sess = shell(gemini, brain, "claim", "open", "--scope", "src/", "--story", "gemini work").stdout.strip()
    assert pre_tool_use(gemini, brain, SESSION, brain / "src" / "a.py").stdout == ""  # the hook binds it
    refused = shell(other, brain, "claim", "renew", sess)
    assert refused.returncode == 77, refused
    renewed = shell(gemini, brain, "claim", "renew", sess)
    assert renewed.returncode == 0, renewed.stderr
    closed = shell(gemini, brain, "claim", "close", sess, "--status", "ok", "--files", "src/a.py")
    assert closed.returncode == 0, closed.stderr
