"""`bsi mcp` as the real Claude Code starts it from the brain's `.mcp.json` (SPEC 20.1, 20.3, 21.4)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bsi import git
from tests.conftest import load_claim
from tests.e2e.client import Session
from tests.e2e.conftest import demo_claim
from tests.e2e.fake_api import MCP_PREFIX, Text, ToolUse, bash, result_text

STORY = "Notes on the e2e run"
COMMIT = "wiki: the e2e notes page"
#: A claim of another session (a satellite of the demo's pilot).
OTHER = "api-search"  # the demo claim's slug (`demo_claim`)


def _claims_with_story(brain: Path, story: str) -> list[str]:
    found = []
    for path in sorted((brain / "claims").glob("sess-*.yml")):
        if story in path.read_text():
            found.append(path.stem)
    return found


def test_an_mcp_claim_open_binds_the_clients_real_session(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    inside = e2e_brain / "wiki" / "e2e-mcp.md"
    outside = e2e_brain / "wiki" / "elsewhere.md"
    script = [
        ToolUse(f"{MCP_PREFIX}claim_open", {"scope": ["wiki/e2e-mcp.md"], "story": STORY}),
        ToolUse("Write", {"file_path": str(inside), "content": "# Inside the claim\n"}),
        ToolUse("Write", {"file_path": str(outside), "content": "# Outside the claim\n"}),
        bash(f"git add wiki/e2e-mcp.md && git commit -q -m '{COMMIT}'"),
        ToolUse(f"{MCP_PREFIX}claim_close", {"status": "ok", "files": ["wiki/e2e-mcp.md"]}),
        Text("Claimed, written and closed."),
    ]

    run = run_claude(e2e_brain, "Open a claim for the notes page and write it.", script)

    assert run.code == 0, run.transcript()
    # The client connects its MCP servers asynchronously; by the time the agent calls one, its tools are offered.
    assert f"{MCP_PREFIX}claim_open" in run.api.offered(0)
    # The claim was closed, so the Stop hook had nothing to hold the agent back for.
    assert not run.api.past_script(), run.transcript()
    opened = run.api.result_of(0)
    assert not opened.get("is_error"), opened
    [sess_id] = _claims_with_story(e2e_brain, STORY)
    assert sess_id in result_text(opened)
    assert load_claim(e2e_brain, sess_id)["agent_session"] == run.session_id
    # The hooks see the same binding: the session writes inside its claim, and only there.
    assert not run.api.result_of(1).get("is_error"), run.api.result_of(1)
    assert inside.read_text() == "# Inside the claim\n"
    refused = run.api.result_of(2)
    assert refused.get("is_error") is True, refused
    assert "scope violation" in result_text(refused) and sess_id in result_text(refused), refused
    assert not outside.exists()
    # The agent commits its work from its shell, then closes its own claim through the server, without naming it.
    committed = run.api.result_of(3)
    assert not committed.get("is_error"), committed
    closed = run.api.result_of(4)
    assert not closed.get("is_error"), closed
    claim = load_claim(e2e_brain, sess_id)
    assert claim["status"] == "closed", claim
    assert claim["agent_session"] == run.session_id
    subjects = git(e2e_brain, "log", "--format=%s", "-5").splitlines()
    assert subjects[:3] == [f"bsi: close claim {sess_id}", COMMIT, f"bsi: open claim {sess_id}"], subjects


def test_an_mcp_call_for_another_sessions_claim_is_refused_naming_its_holder(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    other = demo_claim(e2e_brain, OTHER)
    before = (e2e_brain / "claims" / f"{other}.yml").read_bytes()
    script = [ToolUse(f"{MCP_PREFIX}claim_close", {"sess_id": other, "status": "ok"}), Text("Not mine, then.")]

    run = run_claude(e2e_brain, "Close the search claim.", script)

    assert run.code == 0, run.transcript()
    refused = run.api.result_of(0)
    assert refused.get("is_error") is True, refused
    told = result_text(refused)
    assert "not_yours" in told and f"cannot close {other}: it is held by" in told, told
    assert (e2e_brain / "claims" / f"{other}.yml").read_bytes() == before
