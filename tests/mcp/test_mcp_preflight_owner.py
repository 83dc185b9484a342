"""`preflight` asks whether a claim may write a file now (SPEC 10): an agent asks it for its own claims only (SPEC
21.4), whether through its `bsi mcp` or from its shell. The server refused another session's claim (77); `bsi
preflight check` from the same agent's shell answered "go" for it, an answer the hooks then refuse to act on: the
one question had two answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from tests.bsi import clean_env, ok, run_bsi
from tests.clock import live_now
from tests.mcp.test_mcp_own_session import A, B, serve


@pytest.mark.parametrize("status", ["open", "weird"])
def test_preflight_of_another_sessions_claim_is_refused_over_mcp_and_from_the_shell(brain: Path, status: str) -> None:
    now = live_now()
    held = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "a's", "--agent-session", A, brain=brain,
                      now=now)).strip()
    if status != "open":  # a hand edit to a word bsi does not know
        path = brain / "claims" / f"{held}.yml"
        path.write_text(path.read_text(encoding="utf-8").replace("\nstatus: open\n", f"\nstatus: {status}\n"),
                        encoding="utf-8")

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("preflight", {"file": "src/a.md", "sess_id": held})

    over_mcp = serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=B)
    assert over_mcp.is_error and over_mcp.structured_content["exit"] == 77, over_mcp.structured_content
    shell = run_bsi("preflight", "check", held, "src/a.md", brain=brain, now=now,
                    env=clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=B))
    assert shell.code == 77 and held in shell.err, shell
    # its own agent and a human still get the answer
    mine = run_bsi("preflight", "check", held, "src/a.md", brain=brain, now=now,
                   env=clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=A))
    human = run_bsi("preflight", "check", held, "src/a.md", brain=brain, now=now)
    assert (mine.code, human.code) == ((0, 0) if status == "open" else (4, 4)), (mine, human)
