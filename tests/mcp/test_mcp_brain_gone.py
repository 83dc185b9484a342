"""A brain folder deleted or moved while `bsi mcp` serves it: every tool is refused as not found (66), writes as
well as reads, never an internal error (70) that tells the agent to look for a bug."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mcp.client.client import Client

from tests.mcp.test_mcp_server import in_process


def test_a_write_to_a_brain_gone_is_not_found_like_a_read(brain: Path) -> None:
    async def body(client: Client) -> Any:
        before = await client.call_tool("claim_list", {})
        shutil.rmtree(brain)
        return before, [await client.call_tool(name, args) for name, args in (
            ("claim_list", {}), ("claim_open", {"scope": ["src/"], "story": "late"}),
            ("signal_send", {"to": "pilote", "type": "INFO", "payload": "x"}))]

    before, after = in_process(brain, body)
    assert not before.is_error
    for result in after:
        doc = result.structured_content
        assert result.is_error and doc["exit"] == 66 and doc["kind"] == "not_found", doc
        assert "gone" in doc["error"]
