"""A claim file that does not read, named by a tool's `sess_id`: refused as corrupt (65), as `bsi` refuses it.

Before, the server's own lookup (`Session.own`) said "claim … not found" (66): an
agent told its claim is gone may open another or give up, where the CLI (and a
human) learn the file is there and needs repairing. Every tool stays closed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.client.client import Client

from tests.bsi import git, ok, run_bsi
from tests.clock import live_now
from tests.conftest import tree_bytes
from tests.mcp.test_mcp_own_session import B, serve

CALLS = [("my_claim", {}), ("claim_renew", {}), ("claim_close", {"status": "ok"}), ("gate_request", {"message": "m"}),
         ("gate_status", {}), ("preflight", {"file": "src/a.py"}), ("lock_acquire", {"file": "src/a.py"}),
         ("lock_release", {"file": "src/a.py"}), ("signal_send", {"to": "pilote", "type": "INFO", "payload": "p"})]


def test_a_corrupt_claim_named_by_sess_id_is_refused_as_corrupt_like_the_cli(brain: Path) -> None:
    now = live_now()
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "b", "--agent-session", B, brain=brain, now=now))
    (brain / "claims" / f"{sess}.yml").write_text("sess_id: [\n")
    git(brain, "commit", "-qam", "a claim file broken by hand")
    cli = run_bsi("--json", "claim", "renew", sess, brain=brain, now=now)
    assert cli.code == 65 and "corrupt" in cli.out
    before = tree_bytes(brain)

    async def body(mcp: Client) -> Any:
        return [await mcp.call_tool(name, {**args, "sess_id": sess}) for name, args in CALLS]

    for (name, _args), result in zip(CALLS, serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=B), strict=True):
        doc = result.structured_content
        assert result.is_error, (name, doc)
        assert (doc["exit"], doc["kind"], doc["retryable"]) == (65, "invalid", False), (name, doc)
        assert "corrupt" in doc["error"] and f"claims/{sess}.yml" in doc["error"], (name, doc)
    assert tree_bytes(brain) == before
