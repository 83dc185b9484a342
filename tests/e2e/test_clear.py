"""A claim opened from inside Claude Code stays the session's through `/clear` (SPEC 20.1, 21.4)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bsi import git
from tests.conftest import load_claim
from tests.e2e.client import Session
from tests.e2e.fake_api import MCP_PREFIX, Text, ToolUse, result_text

OPEN = "Open a claim for the release notes."
WRITE = "Now write the release notes."
STORY = "Release notes, across a /clear"


def test_clear_keeps_the_binding(e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    inside = e2e_brain / "wiki" / "release-notes.md"
    outside = e2e_brain / "wiki" / "not-mine.md"
    script = {
        OPEN: [ToolUse(f"{MCP_PREFIX}claim_open", {"scope": ["wiki/release-notes.md"], "story": STORY}),
               Text("Claimed.")],
        WRITE: [ToolUse("Write", {"file_path": str(outside), "content": "# Not mine\n"}),
                ToolUse("Write", {"file_path": str(inside), "content": "# Release notes\n"}),
                ToolUse(f"{MCP_PREFIX}claim_close", {"status": "ok", "files": ["wiki/release-notes.md"]}),
                Text("Written and closed.")],
    }

    run = run_claude(e2e_brain, [OPEN, "/clear", WRITE], script)

    assert run.code == 0, run.transcript()
    assert len(run.session_ids) == 2, run.transcript()  # /clear gave the session a new ID
    first, after_clear = run.session_ids
    opened = run.api.result_of(0, OPEN)
    assert not opened.get("is_error"), opened
    sess_id = load_claim(e2e_brain, _only_claim(e2e_brain, STORY))["sess_id"]
    assert sess_id in result_text(opened)
    assert load_claim(e2e_brain, sess_id)["agent_session"] == first
    # The first turn ended with the claim open: the Stop hook held the agent once, telling it how to close.
    [held] = [request for request in run.api.past_script() if run.api.position(request)[0] == OPEN]
    assert "Stop hook feedback" in held.text and f"bsi claim close {sess_id}" in held.text, held.text[-2000:]
    # After /clear the hooks still know the session's claim: outside its scope is refused, naming it …
    refused = run.api.result_of(0, WRITE)
    assert refused.get("is_error") is True, refused
    assert "scope violation" in result_text(refused) and sess_id in result_text(refused), refused
    assert not outside.exists()
    # … inside it goes through, and the session closes its own claim.
    assert not run.api.result_of(1, WRITE).get("is_error"), run.api.result_of(1, WRITE)
    assert inside.read_text() == "# Release notes\n"
    closed = run.api.result_of(2, WRITE)
    assert not closed.get("is_error"), closed
    assert load_claim(e2e_brain, sess_id)["status"] == "closed"
    assert f"bsi: close claim {sess_id}" in git(e2e_brain, "log", "--format=%s", "-3").splitlines()
    assert after_clear != first


def _only_claim(brain: Path, story: str) -> str:
    [found] = [path.stem for path in sorted((brain / "claims").glob("sess-*.yml")) if story in path.read_text()]
    return found
