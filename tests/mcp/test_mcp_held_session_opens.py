"""A session a human holds (a claim of it paused, or waiting at a gate) opens no other claim (SPEC 6.3, 21.2-21.4).

The pause stops the session: its shell is refused and so are its writes into the held scope. A claim it opened
after the pause would be work the human never saw when braking, and its edit tools would write there: so the open
itself is refused, through `bsi mcp` (the hook lets MCP tools through) and from the agent's shell alike, until the
human resumes or approves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from tests.bsi import bsi_command, clean_env, ok, run_bsi
from tests.clock import live_now
from tests.hooks.fake_agent import FakeAgent
from tests.hooks.test_pre_tool_use import assert_allowed, assert_denied, event, hook
from tests.mcp.test_mcp_own_session import A, serve


def _held(brain: Path, how: str, now: str) -> str:
    """A claim on src/ bound to A that a human holds (`how`: paused, under a paused parent, at a gate A asked for)."""
    parent = None
    if how == "parent paused":
        parent = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "pilot", "--type", "pilote", brain=brain,
                            now=now))
    under = ("--parent", parent) if parent else ()
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "a's work", "--agent-session", A, *under,
                      brain=brain, now=now))
    if how == "paused":
        ok(run_bsi("gate", "pause", sess, "hold: review", brain=brain, now=now))
    elif parent:
        ok(run_bsi("gate", "pause", parent, "hold the tree", brain=brain, now=now))
    else:
        ok(run_bsi("gate", "request", sess, "deploy ok?", brain=brain, now=now))
    return sess


def _open_through_mcp(brain: Path, now: str, scope: str) -> Any:
    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("claim_open", {"scope": [scope], "story": "elsewhere meanwhile"})

    return serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=A)


@pytest.mark.parametrize("how", ["paused", "parent paused"])
def test_a_paused_session_opens_no_new_claim_through_mcp(brain: Path, how: str) -> None:
    now = live_now()
    held = _held(brain, how, now)
    before = sorted(p.name for p in (brain / "claims").glob("*.yml"))
    result = _open_through_mcp(brain, now, "docs/")
    assert result.is_error, result.structured_content
    doc = result.structured_content
    assert doc["exit"] == 12 and held in doc["error"] and doc["sess_id"] == held, doc
    assert sorted(p.name for p in (brain / "claims").glob("*.yml")) == before
    # so its edit tools find no claim of it to write docs/ through
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "docs" / "x.md"), session=A)), held)


def test_the_session_opens_again_once_the_human_resumes(brain: Path) -> None:
    now = live_now()
    held = _held(brain, "paused", now)
    ok(run_bsi("gate", "resume", held, brain=brain, now=now))
    result = _open_through_mcp(brain, now, "docs/")
    assert not result.is_error, result.structured_content
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "docs" / "x.md"), session=A)))


def test_a_session_waiting_at_its_own_gate_still_opens_elsewhere(brain: Path) -> None:
    now = live_now()
    gated = _held(brain, "gated", now)
    result = _open_through_mcp(brain, now, "docs/")
    assert not result.is_error, result.structured_content
    # the gated claim's own scope stays refused to it, through the new claim too
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "src" / "a.py"), session=A)), gated)


def test_a_paused_session_opens_no_new_claim_from_its_shell(brain: Path) -> None:
    now = live_now()
    held = _held(brain, "paused", now)
    agent = clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=A)
    run = run_bsi("claim", "open", "--scope", "docs/", "--story", "elsewhere", brain=brain, now=now, env=agent)
    assert run.code == 12 and held in run.err, run
    # a human still opens what they like
    ok(run_bsi("claim", "open", "--scope", "docs/", "--story", "the human's", brain=brain, now=now))


@pytest.mark.parametrize("variable", ["CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "GEMINI_SESSION_ID"])
def test_a_paused_agent_naming_a_fresh_session_id_opens_nothing(brain: Path, variable: str, tmp_path: Path) -> None:
    """The pause stops the agent process, whatever session ID its shell names for one command: a fresh ID, one no
    process is recorded for, is that same agent's (its recorded session is the paused one). The agent is a process
    of its own (`FakeAgent`), whatever runs the suite (an orphaned run has no agent above it)."""
    from brain_tui.core.sessions import handover

    now = live_now()
    held = _held(brain, "paused", now)
    agent = FakeAgent(tmp_path / "agent")
    try:
        assert handover.vouch(brain, A, agent.process)  # A's session-start, under this agent process
        before = sorted(p.name for p in (brain / "claims").glob("*.yml"))
        env = clean_env(CLAUDECODE="1", **{variable: "ffffffff-3333-4000-8000-00000000000f"})
        run = agent.run(bsi_command("claim", "open", "--scope", "docs/", "--story", "elsewhere", brain=brain, now=now),
                        env=env, cwd=brain)
    finally:
        agent.close()
    assert run.returncode == 12 and held in run.stderr, run
    assert sorted(p.name for p in (brain / "claims").glob("*.yml")) == before


def test_a_paused_claim_bound_through_mcp_stops_a_fresh_session_id(brain: Path, tmp_path: Path) -> None:
    """A claim Gemini CLI's MCP server opened (bound to its session by the next hook, not in the claim file): once
    paused, the same agent's shell naming a fresh session ID opens nothing either."""
    from brain_tui.core.brain import Brain
    from brain_tui.core.sessions import handover

    now = live_now()
    agent = FakeAgent(tmp_path / "agent", name="gemini")
    try:
        client = agent.process

        async def body(mcp: Client) -> Any:
            return await mcp.call_tool("claim_open", {"scope": ["src/"], "story": "g's work"})

        held = serve(brain, body, client=client, now=now).structured_content["sess_id"]
        assert handover.adopt_pending(brain, "gem-1", client, Brain(brain, now=now).now()) == [held]
        ok(run_bsi("gate", "pause", held, "hold: review", brain=brain, now=now))
        env = clean_env(GEMINI_CLI="1", GEMINI_SESSION_ID="ffffffff-3333-4000-8000-00000000000f")
        run = agent.run(bsi_command("claim", "open", "--scope", "docs/", "--story", "elsewhere", brain=brain, now=now),
                        env=env, cwd=brain)
    finally:
        agent.close()
    assert run.returncode == 12 and held in run.stderr, run


def test_check_scope_tells_a_paused_session_it_opens_nothing(brain: Path) -> None:
    """`check_scope` judges as `claim_open` does: a free scope is no answer to a session a human paused, whose open
    there is refused (12); it gets that refusal, over MCP and from its shell alike, and a human still gets "free"."""
    now = live_now()
    held = _held(brain, "paused", now)

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("check_scope", {"scopes": ["docs/"]})

    result = serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=A)
    assert result.is_error, result.structured_content
    assert result.structured_content["exit"] == 12 and result.structured_content["sess_id"] == held
    agent = clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=A)
    run = run_bsi("check-scope", "docs/", brain=brain, now=now, env=agent)
    assert run.code == 12 and held in run.err, run
    assert run_bsi("check-scope", "docs/", brain=brain, now=now).code == 0
    ok(run_bsi("gate", "resume", held, brain=brain, now=now))
    assert not serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=A).is_error
    assert run_bsi("check-scope", "docs/", brain=brain, now=now, env=agent).code == 0


@pytest.mark.parametrize("word", ["weird", "'[open]'"])
@pytest.mark.parametrize("committed", [True, False])
def test_a_paused_claim_edited_to_an_unknown_status_still_brakes(brain: Path, word: str, committed: bool) -> None:
    """The status line of a paused claim edited by hand to a word bsi does not know (its pause still marked:
    ``paused_by``, a PAUSED event no resume followed) lifts nothing: the session still opens no other claim, from
    its shell and over MCP, and the human's resume still lifts the pause."""
    from tests.bsi import git

    now = live_now()
    held = _held(brain, "paused", now)
    path = brain / "claims" / f"{held}.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("\nstatus: paused\n", f"\nstatus: {word}\n"),
                    encoding="utf-8")
    if committed:
        git(brain, "commit", "-qam", "status edited by hand")
    agent = clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=A)
    run = run_bsi("claim", "open", "--scope", "docs/", "--story", "elsewhere", brain=brain, now=now, env=agent)
    assert run.code == 12 and held in run.err, run
    assert _open_through_mcp(brain, now, "docs/").is_error
    ok(run_bsi("gate", "resume", held, brain=brain, now=now))
    ok(run_bsi("claim", "open", "--scope", "docs/", "--story", "elsewhere", brain=brain, now=now, env=agent))
