"""The MCP `signal_ack` tool signs an acknowledgement with the claim the signal is addressed to (SPEC 7, 21.4).

A session holding two claims acknowledges a signal to its older one: `delivered_by` names that claim, not the
session's newest one (nor the instance when none of its claims is live).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.client.client import Client

from tests.bsi import ok, run_bsi
from tests.conftest import signal_docs
from tests.mcp.test_mcp_own_session import A, serve


def test_an_acknowledgement_is_signed_by_the_claim_it_is_for(brain: Path) -> None:
    older = ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", A, brain=brain))
    newer = ok(run_bsi("claim", "open", "--scope", "doc/", "--agent-session", A, brain=brain,
                       now="2026-11-29T10:05:00Z"))
    sig = ok(run_bsi("signal", "send", "--to", older, "--type", "INFO", "--from", "human:ada", "for the older",
                     brain=brain))

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("signal_ack", {"sig_id": sig})

    result = serve(brain, body, now="2026-11-29T10:06:00Z", CLAUDE_CODE_SESSION_ID=A)
    assert not result.is_error, result
    (doc,) = [s for s in signal_docs(brain) if s["sig_id"] == sig]
    assert (doc["state"], doc["delivered_by"]) == ("delivered", older), (doc, newer)
