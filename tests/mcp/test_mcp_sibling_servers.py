"""Two `bsi mcp` servers of one agent process act as one agent (SPEC 21.4): a client may start two (a project and a
user entry; Gemini CLI after `/mcp refresh`), and the model calls the tools of either.

Each server is driven in process on its own `Session` (its own `Brain`), with the same client process and, for
Claude Code, the same session ID, as two server processes of one agent are.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp.client.client import Client

from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import Session
from tests.bsi import clean_env, ok, run_bsi
from tests.clock import live_now
from tests.conftest import load_claim
from tests.mcp.test_mcp_own_session import A


def _session(brain: Path, now: str | None, client: str, **environ: str) -> Session:
    env = {k: v for k, v in clean_env().items() if not k.startswith(("CLAUDE", "GEMINI", "CODEX", "BSI_"))}
    return Session(brain, now=now, environ={**env, **environ}, client=client)


def _structured(result: Any) -> dict[str, Any]:
    return dict(result.structured_content)


def test_two_servers_of_one_session_name_the_same_claim_as_their_own(brain: Path) -> None:
    """Without sess_id, each server named the claim opened through it last: `my_claim` differed between the two, and
    a `claim_close` without sess_id closed one claim or the other depending on the server the model called. The
    session's claim is its newest live one (SPEC 20.1), whichever server is asked."""
    # the brain's own clock: the two claims opened a second apart are told apart by their opening time
    one, two = (_session(brain, None, "agent-1", CLAUDE_CODE_SESSION_ID=A) for _ in range(2))

    async def main() -> tuple[str, str, str, str]:
        async with Client(build_server(one)) as first, Client(build_server(two)) as second:
            older = _structured(await first.call_tool("claim_open", {"scope": ["src/"], "story": "older"}))
            await asyncio.sleep(1.1)  # opened a second apart: one is the newest by its opening time
            newer = _structured(await second.call_tool("claim_open", {"scope": ["docs/"], "story": "newer"}))
            said = [_structured(await mcp.call_tool("my_claim", {}))["sess_id"] for mcp in (first, second)]
            return older["sess_id"], newer["sess_id"], said[0], said[1]

    older, newer, by_first, by_second = asyncio.run(main())
    assert (by_first, by_second) == (newer, newer), (older, newer)


def test_a_gemini_servers_sibling_sees_the_claim_it_opened_before_any_hook(brain: Path) -> None:
    """Gemini CLI gives its server no session ID: a claim opened through one server waits for the client's next hook
    to be bound. Until then the other server of the same agent process did not count it as its agent's: it could not
    renew it (77), and it opened a new claim while a human held that one paused."""
    now = live_now()
    one, two = (_session(brain, now, "gemini-1") for _ in range(2))
    stranger = _session(brain, now, "gemini-2")

    async def main() -> tuple[str, Any, Any, Any]:
        async with Client(build_server(one)) as first, Client(build_server(two)) as second, \
                Client(build_server(stranger)) as other:
            opened = _structured(await first.call_tool("claim_open", {"scope": ["src/"], "story": "g"}))["sess_id"]
            renewed = await second.call_tool("claim_renew", {"sess_id": opened})
            foreign = await other.call_tool("claim_renew", {"sess_id": opened})
            ok(run_bsi("gate", "pause", opened, "hold: review", brain=brain, now=now))
            reopened = await second.call_tool("claim_open", {"scope": ["docs/"], "story": "meanwhile"})
            return opened, renewed, foreign, reopened

    opened, renewed, foreign, reopened = asyncio.run(main())
    assert not renewed.is_error, renewed.structured_content
    assert foreign.is_error and foreign.structured_content["kind"] == "not_yours"
    assert reopened.is_error and reopened.structured_content["exit"] == 12, reopened.structured_content
    assert reopened.structured_content["sess_id"] == opened
    assert load_claim(brain, opened)["status"] == "paused"


def test_a_pending_record_the_hooks_would_drop_as_too_old_is_no_claim_of_the_process(brain: Path) -> None:
    """A pending record older than a hand-over may wait (`handover.HANDOVER_MAX_AGE`) is one the client's next hook
    drops unbound (`adopt_pending`); a process whose ``PID:START`` matches it then (an ID reused after a reboot) did
    not open that claim. Counted on its word, it could renew, close or pause-check a claim it never opened."""
    from datetime import datetime, timedelta

    from brain_tui.core.sessions import handover

    now = live_now()
    claim = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "human's", brain=brain, now=now))
    handover.leave_pending(brain, claim, "gemini-1", datetime.fromisoformat(now) - timedelta(hours=9))
    server = _session(brain, now, "gemini-1")

    async def main() -> Any:
        async with Client(build_server(server)) as mcp:
            return await mcp.call_tool("claim_renew", {"sess_id": claim})

    renewed = asyncio.run(main())
    assert renewed.is_error and renewed.structured_content["kind"] == "not_yours", renewed.structured_content
    assert claim not in server.actor.claims
