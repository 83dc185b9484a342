"""An argument a tool does not take is refused as a usage error (exit 64, kind `usage`), nothing done.

The SDK's argument models ignore an extra key, so a typo acted as if the argument was not given:
`claim_close` with `session_id` (for `sess_id`) closed the session's default claim instead. The command
line refuses an unknown flag with 64 (SPEC "unknown command or flag"); each tool now does the same with an
unknown argument, naming it and the arguments the tool takes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from tests.conftest import tree_bytes
from tests.mcp.test_mcp_server import TOOLS, in_process

CLOSE_TAKES = "sess_id, status, files, commit, tests_total, tests_passed, tests_failed, notes"


def usage(result: Any) -> dict[str, Any]:
    """The structured content of a usage refusal (asserted to be one)."""
    doc = result.structured_content
    assert result.is_error and doc is not None, result
    assert (doc["exit"], doc["kind"], doc["retryable"]) == (64, "usage", False), doc
    return doc


def test_a_misspelled_claim_id_closes_nothing(brain: Path) -> None:
    """claim_close with `session_id`: before, the session's own claim was closed (the argument ignored)."""
    async def body(mcp: Client) -> Any:
        opened = await mcp.call_tool("claim_open", {"scope": ["src/"], "story": "typo"})
        sess = opened.structured_content["sess_id"]
        before = tree_bytes(brain)
        closed = await mcp.call_tool("claim_close", {"session_id": sess, "status": "ok"})
        return before, tree_bytes(brain), closed, await mcp.call_tool("my_claim", {"sess_id": sess})

    before, after, closed, mine = in_process(brain, body)
    doc = usage(closed)
    assert doc["error"] == f"unknown argument 'session_id' for claim_close: it takes {CLOSE_TAKES}; nothing was done"
    assert doc["unknown"] == ["session_id"] and ", ".join(doc["takes"]) == CLOSE_TAKES
    assert after == before
    assert mine.structured_content["status"] == "open"
    assert closed.content[0].text.startswith('{"error": "unknown argument \'session_id\'')  # type: ignore[union-attr]


@pytest.mark.parametrize(("tool", "arguments", "unknown"), [
    ("claim_open", {"scopes": ["src/"], "story": "x"}, ["scopes"]),  # not "scope: field required" (65)
    ("check_scope", {"scope": ["src/"]}, ["scope"]),
    ("lock_acquire", {"file": "src/a.py", "ttl": "30m", "ttl_minutes": 30}, ["ttl", "ttl_minutes"]),
    ("brain_state", {"verbose": True}, ["verbose"]),
    ("signal_list", {"pending": True, "status": "pending"}, ["status"]),
])
def test_an_unknown_argument_is_named_with_what_the_tool_takes(brain: Path, tool: str, arguments: dict[str, Any],
                                                               unknown: list[str]) -> None:
    before = tree_bytes(brain)

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool(tool, arguments)

    doc = usage(in_process(brain, body))
    assert doc["unknown"] == unknown, doc
    assert all(repr(name) in doc["error"] for name in unknown) and tool in doc["error"]
    assert "\n" not in doc["error"]
    assert tree_bytes(brain) == before


def test_every_tool_refuses_an_unknown_argument(brain: Path) -> None:
    """The check is the server's, not each tool's: every tool listed refuses, before its own arguments are read."""
    async def body(mcp: Client) -> Any:
        listed = (await mcp.list_tools()).tools
        return {t.name: (t, await mcp.call_tool(t.name, {"zz_not_an_argument": 1})) for t in listed}

    answers = in_process(brain, body)
    assert set(answers) == TOOLS
    for name, (tool, result) in answers.items():
        doc = usage(result)
        assert doc["unknown"] == ["zz_not_an_argument"], name
        assert doc["takes"] == list(tool.input_schema.get("properties", {})), name
    assert usage(answers["brain_state"][1])["error"] == (
        "unknown argument 'zz_not_an_argument' for brain_state: it takes no arguments; nothing was done")


def test_a_hostile_argument_name_is_cut_and_made_inert(brain: Path) -> None:
    hostile = {"\x1b]8;;http://x\x07" + "Z" * 100_000: 1, **{f"extra{i}": i for i in range(30)}}

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("my_claim", hostile)

    doc = usage(in_process(brain, body))
    assert "\x1b" not in str(doc) and "Z" * 100 not in str(doc) and len(str(doc)) < 2000, doc
    assert "and 21 more" in doc["error"] and len(doc["unknown"]) == 10


def test_known_arguments_still_work(brain: Path) -> None:
    async def body(mcp: Client) -> Any:
        opened = await mcp.call_tool("claim_open", {"scope": ["src/"], "story": "fine", "ttl": "1h"})
        sess = opened.structured_content["sess_id"]
        return opened, await mcp.call_tool("claim_close", {"sess_id": sess, "status": "ok", "notes": "done"})

    opened, closed = in_process(brain, body)
    assert not opened.is_error and not closed.is_error, (opened, closed)
    assert closed.structured_content["status"] == "closed"
