"""Arguments that do not match a tool's schema are refused in the protocol's shape (SPEC 20.3): exit 65, `invalid`.

The SDK's own answer was plain validation text (the MCP Inspector saw it); an agent
reads every refusal the same way (`error`, `exit`, `kind`, `retryable`), and the
text names the fields without echoing what was sent (hostile or huge). An unknown
tool is a usage error (64).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from tests.conftest import tree_bytes
from tests.mcp.test_mcp_server import in_process

HOSTILE = "\x1b]8;;http://x\x07" + "Z" * 100_000


@pytest.mark.parametrize(("tool", "arguments", "field"), [
    ("claim_open", {"scope": "src/"}, "scope"),
    ("claim_open", {"scope": [HOSTILE, 3]}, "scope"),
    ("claim_open", {}, "scope"),
    ("lock_acquire", {"file": "src/a.py", "ttl_min": HOSTILE}, "ttl_min"),
    ("signal_send", {"to": "pilote", "type": "INFO"}, "payload"),
    ("claim_close", {"tests_total": "many"}, "tests_total"),
    ("check_scope", {"scopes": {"a": 1}}, "scopes"),
])
def test_arguments_off_the_schema_are_refused_as_invalid(brain: Path, tool: str, arguments: dict[str, Any],
                                                         field: str) -> None:
    before = tree_bytes(brain)

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool(tool, arguments)

    result = in_process(brain, body)
    assert result.is_error
    doc = result.structured_content
    assert doc is not None, result
    assert (doc["exit"], doc["kind"], doc["retryable"]) == (65, "invalid", False), doc
    assert field in doc["error"] and field in [f.split(".")[0] for f in doc["fields"]], doc
    assert "\x1b" not in str(doc) and "ZZZZ" not in str(doc) and len(str(doc)) < 2000
    assert tree_bytes(brain) == before


def test_an_unknown_tool_is_a_usage_refusal(brain: Path) -> None:
    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("gate_approve", {"sess_id": "sess-x"})

    result = in_process(brain, body)
    assert result.is_error and result.structured_content is not None
    doc = result.structured_content
    assert (doc["exit"], doc["kind"], doc["retryable"]) == (64, "usage", False), doc
    assert "gate_approve" in doc["error"]


@pytest.mark.parametrize(("tool", "arguments", "field"), [
    ("lock_acquire", {"file": "src/a.py", "ttl_min": True}, "ttl_min"),
    ("lock_acquire", {"file": "src/a.py", "ttl_min": "30"}, "ttl_min"),
    ("claim_close", {"status": "ok", "tests_total": True, "tests_passed": True, "tests_failed": False},
     "tests_total"),
    ("claim_list", {"all": "yes"}, "all"),
    ("signal_list", {"pending": 1}, "pending"),
])
def test_a_boolean_for_a_number_or_text_for_a_flag_is_off_the_schema(brain: Path, tool: str,
                                                                     arguments: dict[str, Any], field: str) -> None:
    """JSON Schema's `integer` is no boolean and its `boolean` no string: before, `ttl_min: true` locked for one
    minute and `tests_total: true, tests_passed: true` read as one green test. Refused as invalid (65)."""
    before = tree_bytes(brain)

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool(tool, arguments)

    result = in_process(brain, body)
    doc = result.structured_content
    assert result.is_error and doc is not None, result
    assert (doc["exit"], doc["kind"], doc["retryable"]) == (65, "invalid", False), doc
    assert field in [f.split(".")[0] for f in doc["fields"]], doc
    assert tree_bytes(brain) == before


@pytest.mark.parametrize("counts", [{"tests_total": -1, "tests_passed": -1, "tests_failed": 0},
                                    {"tests_total": 2, "tests_passed": 3, "tests_failed": -1}])
def test_negative_test_counts_never_close_a_validated_claim(brain: Path, counts: dict[str, int]) -> None:
    """SPEC 6.5: Tier 2 needs `passed == total > 0` and `failed == 0`. The CLI refused a negative count, but the
    check lived in its argument parser: claim_close with -1 passed of -1 closed the claim as validated."""
    async def body(mcp: Client) -> Any:
        opened = await mcp.call_tool("claim_open", {"scope": ["src/"], "type": "satellite",
                                                    "satellite_type": "code"})
        return opened, await mcp.call_tool("claim_close", counts), await mcp.call_tool("my_claim", {})

    opened, closed, mine = in_process(brain, body)
    assert not opened.is_error
    assert closed.is_error and closed.structured_content["exit"] == 65, closed.structured_content
    assert "negative" in closed.structured_content["error"]
    assert mine.structured_content["status"] == "open"
