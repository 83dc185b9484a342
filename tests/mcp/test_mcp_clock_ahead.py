"""An MCP server acts as an agent whatever its process shows (a client started it with no marker of its own, an
inspector): a `--now` ahead of the machine's clock is refused for its writes as for any agent's (77), since it would
expire other sessions' locks and claims."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from mcp.client.client import Client

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
