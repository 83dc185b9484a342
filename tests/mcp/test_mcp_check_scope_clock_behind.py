"""`check_scope` judges a delegation as `claim_open` does (SPEC 5.3, 6.3, 21): the query and the open agree.

An MCP server acts as an agent whatever its process shows. At a `--now` behind the machine's clock, a parent that
ran out by the machine's clock looks open and would delegate its scope; `claim_open` judges a child that is live at
the machine's clock there too, and refuses (10) naming the stale parent. `check_scope` asked the same (same scope,
parent and TTL, the brain's default when none is given) reports the same conflicts; a child that ends before the
machine's clock carries nothing past it, and both let it through. At the machine's clock nothing changed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import Session
from tests.bsi import INHERITED_ENV, clean_env, run_bsi
from tests.cli.test_agent_clock_behind import at, bsi
from tests.clock import live_now
from tests.conftest import tree_bytes
from tests.mcp.test_mcp_own_session import A

CHILD = ["delta/sub/"]


def _parent(tmp_path: Path, ttl: str) -> tuple[Path, str]:
    """A brain at the real clock holding the agent A's claim on ``delta/``, opened 190 min ago for `ttl`, never
    marked stale by a watchdog."""
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None).code == 0
    proc = bsi(root, "claim", "open", "--scope", "delta/", "--ttl", ttl, "--agent-session", A, now=at(-190))
    assert proc.code == 0, proc.err
    return root, proc.out.strip()


def _check_then_open(root: Path, parent: str, now: str, ttl: str | None) -> tuple[Any, Any]:
    """`check_scope`, then `claim_open`, of a child of `parent` on ``delta/sub/``, by A's MCP server at `now`."""
    env = {k: v for k, v in clean_env().items() if not k.startswith(("CLAUDE", "GEMINI", "CODEX", "BSI_"))}
    session = Session(root, now=now, environ={**env, "CLAUDE_CODE_SESSION_ID": A}, client="client-a")
    given = {"ttl": ttl} if ttl is not None else {}

    async def main() -> tuple[Any, Any]:
        async with Client(build_server(session)) as mcp:
            checked = await mcp.call_tool("check_scope", {"scopes": CHILD, "parent": parent, **given})
            opened = await mcp.call_tool("claim_open", {"scope": CHILD, "parent": parent, "story": "child", **given})
            return checked, opened

    return asyncio.run(main())


@pytest.mark.parametrize(("parent_ttl", "behind", "ttl", "refused"), [
    ("1h", -180, "8h", True),  # 3 h behind, the parent ran out 130 min ago; an 8 h child lives past now
    ("2h", -100, None, True),  # the parent ran out 70 min ago; a child of the default 2 h lives past now
    ("1h", -180, None, False),  # a child of the default 2 h ends an hour before now: nothing carried past it
], ids=["3h-behind-8h-child", "default-ttl-child-lives", "default-ttl-child-ends-before"])
def test_check_scope_at_a_clock_behind_agrees_with_the_open(tmp_path: Path, parent_ttl: str, behind: int,
                                                            ttl: str | None, refused: bool) -> None:
    """Before: `check_scope` answered free at the server's clock (the parent still delegating) where the open was
    refused (10) with the parent, stale by the machine's clock, as the conflict."""
    root, parent = _parent(tmp_path, parent_ttl)
    before = tree_bytes(root)
    checked, opened = _check_then_open(root, parent, at(behind), ttl)
    assert not checked.is_error, checked.structured_content
    conflicts = checked.structured_content["conflicts"]
    if refused:
        doc = opened.structured_content
        assert opened.is_error and doc["exit"] == 10 and doc["kind"] == "conflict", doc
        assert [c["sess_id"] for c in conflicts] == [parent] and conflicts[0]["status"] == "stale", conflicts
        assert doc["conflicts"] == conflicts, (doc, conflicts)
        assert tree_bytes(root) == before
    else:
        assert conflicts == [], conflicts
        assert not opened.is_error, opened.structured_content


def test_at_the_machines_clock_nothing_changed(tmp_path: Path) -> None:
    """The parent ran out: at the machine's clock it delegates nothing, to the query as to the open (as before)."""
    root, parent = _parent(tmp_path, "1h")
    before = tree_bytes(root)
    checked, opened = _check_then_open(root, parent, live_now(), None)
    conflicts = checked.structured_content["conflicts"]
    assert [(c["sess_id"], c["status"]) for c in conflicts] == [(parent, "stale")], conflicts
    doc = opened.structured_content
    assert opened.is_error and doc["exit"] == 10 and doc["conflicts"] == conflicts, doc
    assert tree_bytes(root) == before
