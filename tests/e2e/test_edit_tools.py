"""The real Claude Code's edit tools against the installed `pre-tool-use` hook (SPEC 20.2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.e2e.client import Session
from tests.e2e.conftest import demo_claim
from tests.e2e.fake_api import Text, ToolUse, result_text

#: The demo claim holding HELD, by its slug (`demo_claim`).
HOLDER = "api-search"
HELD = "brain-engine/api/routes.py"


def test_a_write_into_a_held_file_is_denied_and_the_model_reads_why(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    target = e2e_brain / HELD
    free = e2e_brain / "wiki" / "e2e-notes.md"
    before = target.read_bytes()
    script = [ToolUse("Read", {"file_path": str(target)}),
              ToolUse("Write", {"file_path": str(target), "content": "hijacked = True\n"}),
              ToolUse("Write", {"file_path": str(free), "content": "# Notes\n"}),
              Text("Understood.")]

    run = run_claude(e2e_brain, "Rewrite the search routes.", script)

    assert run.code == 0, run.transcript()
    read = run.api.result_of(0)
    assert not read.get("is_error"), read
    denied = run.api.result_of(1)
    assert denied.get("is_error") is True, denied
    reason = result_text(denied)
    assert f"{HELD} is claimed" in reason and demo_claim(e2e_brain, HOLDER) in reason, reason
    assert "bsi signal send" in reason, reason
    assert target.read_bytes() == before
    # The model was asked again after the refusal, and a write outside every claim goes through.
    written = run.api.result_of(2)
    assert not written.get("is_error"), written
    assert free.read_text() == "# Notes\n"
    assert [request.step for request in run.api.agent_requests()] == [0, 1, 2, 3]
