"""A satellite's write into the kernel zone through `bsi mcp` is refused as the hook refuses it (SPEC 10 code 5),
whatever spelling brain-compose.yml gives the zone: the server's `preflight` and `lock_acquire` and the
`pre-tool-use` hook (its core answer, then its index's) give one answer."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from tests.bsi import git, ok, run_bsi
from tests.clock import live_now
from tests.hooks.test_pre_tool_use import AGENT, event
from tests.mcp.test_mcp_own_session import serve


@pytest.mark.parametrize(("entry", "link"), [("agents/**/*", None), ("agents/**/", None), ("/agents/", None),
                                             ("kern/", "kern")])
def test_a_satellite_cannot_write_the_kernel_zone_through_the_server_or_the_hook(
        brain: Path, entry: str, link: str | None) -> None:
    now = live_now()  # the server judges an agent's claim at the machine's clock
    (brain / "agents").mkdir(exist_ok=True)
    (brain / "agents" / "x.md").write_text("a\n", encoding="utf-8")
    if link:
        os.symlink("agents", brain / link)
    (brain / "brain-compose.yml").write_text(f"zones:\n  kernel: [{json.dumps(entry)}]\n", encoding="utf-8")
    git(brain, "add", "-A")
    git(brain, "commit", "-qm", "kernel zone")
    pilot = ok(run_bsi("claim", "open", "--type", "pilote", "--scope", "agents/", brain=brain, now=now)).strip()
    sat = ok(run_bsi("claim", "open", "--parent", pilot, "--scope", "agents/x.md", "--agent-session", AGENT,
                     brain=brain, now=now)).strip()
    assert run_bsi("preflight", "check", sat, "agents/x.md", brain=brain, now=now).code == 5

    async def body(mcp: Client) -> Any:
        return [await mcp.call_tool("preflight", {"file": "agents/x.md", "sess_id": sat}),
                await mcp.call_tool("lock_acquire", {"file": "agents/x.md", "sess_id": sat})]

    for result in serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=AGENT):
        assert result.is_error and result.structured_content["exit"] == 5, result.structured_content
    payload = json.dumps(event(brain, "Edit", str(brain / "agents" / "x.md")))
    for _ in range(2):  # the core's answer, then the hook index's
        denied = run_bsi("hook", "pre-tool-use", brain=brain, now=now, input=payload)
        assert denied.code == 2 and "kernel zone" in denied.out, denied
    assert not [p for p in (brain / "locks").glob("*") if not p.name.startswith(".")]
