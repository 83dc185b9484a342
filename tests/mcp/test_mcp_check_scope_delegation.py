"""`check_scope` with a `parent` judges who may delegate as `claim_open` does (SPEC 21.4): under another session's
claim it answers the open's refusal (77, naming the holder), never "free".

Under another agent's claim on ``src/``, a child on ``src/sub/`` meets no conflict (a delegation is exempt from its
parent's scope), yet `claim_open` refuses it: only the parent's holder or a human delegates under it. An agent told
"free" would only meet the refusal at its open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.client.client import Client

from tests.bsi import ok, run_bsi
from tests.clock import live_now
from tests.mcp.test_mcp_own_session import A, B, assert_not_yours, serve


def test_check_scope_under_another_sessions_claim_is_refused_as_the_open_is(brain: Path) -> None:
    now = live_now()
    theirs = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "b", "--agent-session", B, brain=brain,
                        now=now))

    async def body(mcp: Client) -> Any:
        asked = {"parent": theirs, "satellite_type": "code"}
        return (await mcp.call_tool("check_scope", {"scopes": ["src/sub/"], **asked}),
                await mcp.call_tool("claim_open", {"scope": ["src/sub/"], "story": "under B", **asked}))

    checked, opened = serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=A)
    assert_not_yours(opened, theirs)
    assert_not_yours(checked, theirs)


def test_check_scope_under_its_own_claim_is_free(brain: Path) -> None:
    now = live_now()
    mine = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "a", "--type", "pilote", "--agent-session", A,
                      brain=brain, now=now))

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("check_scope", {"scopes": ["src/sub/"], "parent": mine})

    checked = serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=A)
    assert not checked.is_error and checked.structured_content == {"conflicts": []}, checked.structured_content
