"""`check_scope` under a parent judges delegation as `claim_open` does (SPEC 21.4): an agent that holds neither the
parent nor an ancestor of it is refused (77) instead of told the parent's scope is free (the parent's chain is exempt
only for its holder's children); under its own claim the parent's scope stays exempt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.client.client import Client

from tests.bsi import ok, run_bsi
from tests.mcp.test_mcp_own_session import A, B, assert_not_yours, serve


def a_parent(brain: Path) -> str:
    return ok(run_bsi("claim", "open", "--scope", "src/", "--story", "a's work", "--agent-session", A, brain=brain))


def test_another_sessions_parent_is_refused_as_claim_open_refuses_it(brain: Path) -> None:
    parent = a_parent(brain)

    async def body(mcp: Client) -> Any:
        return [await mcp.call_tool("check_scope", {"scopes": ["src/x.py"], "parent": parent}),
                await mcp.call_tool("claim_open", {"scope": ["src/x.py"], "parent": parent, "story": "b"})]

    checked, opened = serve(brain, body, CLAUDE_CODE_SESSION_ID=B)
    assert_not_yours(opened, parent)
    assert_not_yours(checked, parent)


def test_own_parent_keeps_its_scope_exempt(brain: Path) -> None:
    parent = a_parent(brain)

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("check_scope", {"scopes": ["src/x.py"], "parent": parent})

    result = serve(brain, body, CLAUDE_CODE_SESSION_ID=A)
    assert not result.is_error and result.structured_content == {"conflicts": []}, result
