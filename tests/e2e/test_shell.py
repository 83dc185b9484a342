"""The real Claude Code's shell (Bash) against the hook's shell checks and the OS sandbox (SPEC 21.3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import load_claim
from tests.e2e.client import Session
from tests.e2e.fake_api import Text, ToolUse, bash, result_text

PILOT = "sess-20261129-0800-pilote-be7"
SATELLITE = "sess-20261129-0820-api-search"
SATELLITE_FILE = "brain-engine/api/routes.py"


def test_an_open_satellites_shell_append_inside_its_scope_goes_through(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    target = e2e_brain / SATELLITE_FILE
    before = target.read_text()
    script = [bash(f"echo '# paginate' >> {SATELLITE_FILE}"), Text("Noted.")]

    run = run_claude(e2e_brain, "Add the pagination note.", script, env={"BSI_SESSION": SATELLITE})

    assert run.code == 0, run.transcript()
    appended = run.api.result_of(0)
    assert not appended.get("is_error"), appended
    assert target.read_text() == before + "# paginate\n"


#: Two spellings of a write into a protocol file from the agent's shell: one the command line shows
#: (a redirection, for the hook to read) and one it cannot (an interpreter, for the OS sandbox to stop).
PROTOCOL_WRITES = {
    "redirect": f"echo 'status: closed' >> claims/{SATELLITE}.yml",
    "interpreter": f"python3 -c \"open('claims/{SATELLITE}.yml', 'a').write('status: closed')\"",
}


@pytest.mark.parametrize("spelling", sorted(PROTOCOL_WRITES))
def test_a_shell_write_into_a_protocol_file_fails(
        e2e_brain: Path, run_claude: Callable[..., Session], spelling: str) -> None:
    claim = e2e_brain / "claims" / f"{SATELLITE}.yml"
    before = claim.read_bytes()
    script = [bash(PROTOCOL_WRITES[spelling]), Text("Left it alone.")]

    run = run_claude(e2e_brain, "Mark your claim closed.", script, env={"BSI_SESSION": SATELLITE})

    assert run.code == 0, run.transcript()
    refused = run.api.result_of(0)
    assert refused.get("is_error") is True, refused
    assert claim.read_bytes() == before


def test_a_paused_satellites_shell_append_is_refused(
        e2e_brain: Path, run_claude: Callable[..., Session], human: Callable[..., str]) -> None:
    human(e2e_brain, "gate", "pause", PILOT, "hold: schema review")
    assert load_claim(e2e_brain, SATELLITE)["status"] == "paused"
    target = e2e_brain / SATELLITE_FILE
    before = target.read_bytes()
    script = [bash(f"echo '# paginate' >> {SATELLITE_FILE}"),
              ToolUse("Read", {"file_path": str(target)}),
              ToolUse("Edit", {"file_path": str(target), "old_string": "lifecycle: stable",
                               "new_string": "lifecycle: draft"}),
              Text("Stopped.")]

    run = run_claude(e2e_brain, "Add the pagination note.", script, env={"BSI_SESSION": SATELLITE})

    assert run.code == 0, run.transcript()
    # The session-start hook told the model, before its first step, which claim it holds and that it is paused.
    assert f"BSI claim {SATELLITE}: status paused" in run.api.agent_requests()[0].text
    refused = run.api.result_of(0)
    assert refused.get("is_error") is True, refused
    assert "paused" in result_text(refused) and SATELLITE in result_text(refused), refused
    assert f"bsi gate resume {PILOT}" in result_text(refused), refused
    # The edit tools are held the same way.
    edited = run.api.result_of(2)
    assert edited.get("is_error") is True and f"{SATELLITE} is paused" in result_text(edited), edited
    assert target.read_bytes() == before
