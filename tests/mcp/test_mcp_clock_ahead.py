"""An MCP server acts as an agent whatever its process shows (a client started it with no marker of its own, an
inspector): a `--now` ahead of the machine's clock is refused for its writes as for any agent's (77), since it would
expire other sessions' locks and claims."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from mcp.client.client import Client

from tests.bsi import ok, run_bsi
from tests.conftest import tree_bytes
from tests.mcp.test_mcp_own_session import serve


def test_a_server_with_a_clock_ahead_writes_nothing(brain: Path) -> None:
    ahead = (datetime.now(UTC) + timedelta(hours=3)).replace(microsecond=0).isoformat()
    before = tree_bytes(brain)

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("claim_open", {"scope": ["src/"], "story": "from the future"})

    result = serve(brain, body, now=ahead)
    doc = result.structured_content
    assert result.is_error and doc["exit"] == 77 and doc["kind"] == "human_only", doc
    assert "ahead of this machine's clock" in doc["error"]
    assert tree_bytes(brain) == before


def test_my_claim_at_a_clock_behind_shows_no_ttl_left(brain: Path) -> None:
    """The TTL the server shows is the one its writes are judged by: a claim that ran out by the machine's clock
    has none left (the status is the file's, as `bsi claim show --json` gives it; the watchdog marks it)."""
    opened = (datetime.now(UTC) - timedelta(hours=3)).replace(microsecond=0)
    behind = (opened + timedelta(minutes=10)).isoformat()
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--ttl", "1h", "--story", "old", brain=brain,
                      now=opened.isoformat()))

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("my_claim", {"sess_id": sess})

    doc = serve(brain, body, now=behind, BSI_SESSION=sess).structured_content
    assert doc["sess_id"] == sess and doc["ttl_left_s"] < -3600, doc
