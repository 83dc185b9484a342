"""An MCP tool acts only for its own session's claims (SPEC 21.4): another session's ID is refused, naming its holder.

The session is the one the client gives its server (`CLAUDE_CODE_SESSION_ID`),
`BSI_SESSION`, the claims opened through the server, and the sessions bound
under the server's client process (Gemini CLI gives no ID).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from brain_tui.core.brain import Brain
from brain_tui.core.sessions import handover
from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, clean_env, ok, run_bsi
from tests.clock import live_now
from tests.conftest import load_claim, signal_docs

A = "aaaaaaaa-1111-4000-8000-00000000000a"
B = "bbbbbbbb-2222-4000-8000-00000000000b"


def serve(brain: Path, body: Callable[[Client], Awaitable[Any]], client: str = "client-b", now: str = NOW,
          **environ: str) -> Any:
    """Drive a server's tools in process. An MCP server acts as an agent: a tool that writes, locks or decides judges
    a claim at the machine's clock when `now` runs behind it (give `tests.clock.live_now()` there)."""
    env = {k: v for k, v in clean_env().items() if not k.startswith(("CLAUDE", "GEMINI", "CODEX", "BSI_"))}
    session = Session(brain, now=now, environ={**env, **environ}, client=client)

    async def main() -> Any:
        async with Client(build_server(session)) as mcp:
            return await body(mcp)

    return asyncio.run(main())


def assert_not_yours(result: Any, holder: str) -> None:
    assert result.is_error, result
    doc = result.structured_content
    assert doc["kind"] == "not_yours" and doc["exit"] == 77 and doc["retryable"] is False, doc
    assert holder in doc["error"] and doc.get("holder", doc.get("to")) == holder


@pytest.fixture
def a_claim(brain: Path) -> str:
    return ok(run_bsi("claim", "open", "--scope", "src/", "--story", "a's work", "--agent-session", A, brain=brain))


def test_another_sessions_claim_is_refused_by_every_tool(brain: Path, a_claim: str) -> None:
    ok(run_bsi("signal", "send", "--to", a_claim, "--type", "INFO", "--from", "sess-x", "for A only", brain=brain))
    sig = next(iter(signal_docs(brain)))["sig_id"]
    before = load_claim(brain, a_claim)
    signals_before = signal_docs(brain)
    calls = [("claim_renew", {}), ("claim_close", {"status": "ok"}), ("gate_request", {"message": "stop A"}),
             ("lock_acquire", {"file": "src/a.py"}), ("lock_release", {"file": "src/a.py"}),
             ("signal_send", {"to": "pilote", "type": "INFO", "payload": "from A"}), ("preflight", {"file": "src/a"}),
             ("my_claim", {}), ("gate_status", {})]

    async def body(mcp: Client) -> Any:
        out = [await mcp.call_tool(name, {**args, "sess_id": a_claim}) for name, args in calls]
        out.append(await mcp.call_tool("signal_ack", {"sig_id": sig}))
        return out

    for result in serve(brain, body, CLAUDE_CODE_SESSION_ID=B):
        assert_not_yours(result, a_claim)
    after = load_claim(brain, a_claim)
    assert after["status"] == "open" and after.get("expires_at") == before.get("expires_at")
    assert "gate_history" not in after or after["gate_history"] == before.get("gate_history")
    assert not [p for p in (brain / "locks").glob("*") if not p.name.startswith(".")]
    assert signal_docs(brain) == signals_before  # nothing sent, A's signal still pending


def test_a_stale_claim_of_another_session_cannot_be_closed_late(brain: Path) -> None:
    stale = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "a", "--ttl", "30m", "--agent-session", A,
                       brain=brain, now="2026-11-29T08:00:00Z"))
    ok(run_bsi("watchdog", brain=brain))
    assert load_claim(brain, stale)["status"] == "stale"

    async def body(mcp: Client) -> Any:
        return (await mcp.call_tool("claim_close", {"sess_id": stale, "status": "failed"}),
                await mcp.call_tool("claim_open", {"scope": ["src/api.py"], "story": "take it"}))

    closed, opened = serve(brain, body, CLAUDE_CODE_SESSION_ID=B)
    assert_not_yours(closed, stale)
    assert load_claim(brain, stale)["status"] == "stale"
    assert opened.is_error and opened.structured_content["kind"] == "conflict"


def test_own_claims_by_every_way_a_session_holds_them(brain: Path) -> None:
    now = live_now()  # a renew judges the claim at the machine's clock: claims that live at it
    a_claim = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "a's work", "--agent-session", A, brain=brain,
                         now=now))

    def renewed(sess_id: str, client: str = "client-b", **environ: str) -> bool:
        async def body(mcp: Client) -> Any:
            return await mcp.call_tool("claim_renew", {"sess_id": sess_id})

        return not serve(brain, body, client=client, now=now, **environ).is_error

    assert renewed(a_claim, CLAUDE_CODE_SESSION_ID=A)  # the session the client gave
    assert renewed(a_claim, BSI_SESSION=a_claim)  # the launcher's claim
    assert not renewed(a_claim)  # no session at all

    # a session bound under the server's client process (Gemini CLI: no ID in the server's environment)
    gem = ok(run_bsi("claim", "open", "--scope", "docs/", "--story", "g", brain=brain, now=now))
    handover.leave_pending(brain, gem, "client-g", Brain(brain, now=now).now())
    assert handover.adopt_pending(brain, "gem-1", "client-g", Brain(brain, now=now).now()) == [gem]
    assert renewed(gem, client="client-g")
    assert not renewed(gem, client="client-other")

    async def opened_here(mcp: Client) -> Any:
        mine = (await mcp.call_tool("claim_open", {"scope": ["lib/"], "story": "mine"})).structured_content["sess_id"]
        return (await mcp.call_tool("claim_renew", {"sess_id": mine}), await mcp.call_tool("claim_renew", {}),
                await mcp.call_tool("lock_acquire", {"file": "lib/x.py"}))

    for result in serve(brain, opened_here, client="", now=now):
        assert not result.is_error, result.structured_content
