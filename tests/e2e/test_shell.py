"""The real Claude Code's shell (Bash) against the hooks, the sandbox and the human-only verbs (SPEC 21.2, 21.3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.client import Session
from tests.e2e.fake_api import Text, ToolUse

SATELLITE = "sess-20261129-0820-api-search"
SATELLITE_FILE = "brain-engine/api/routes.py"


def _bash(command: str) -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": "run a command"})


def test_an_open_satellites_shell_append_inside_its_scope_goes_through(
        e2e_brain: Path, run_claude: Callable[..., Session]) -> None:
    target = e2e_brain / SATELLITE_FILE
    before = target.read_text()
    script = [_bash(f"echo '# paginate' >> {SATELLITE_FILE}"), Text("Noted.")]

    run = run_claude(e2e_brain, "Add the pagination note.", script, env={"BSI_SESSION": SATELLITE})

    assert run.code == 0, run.transcript()
    appended = run.api.result_of(0)
    assert not appended.get("is_error"), appended
    assert target.read_text() == before + "# paginate\n"


#: Spellings of a write into a protocol file from the agent's shell (a redirection: Claude Code's own
#: `permissions.deny` rules that `bsi hooks install` writes stop it before any hook runs).
PROTOCOL_WRITES = {
    "redirect": f"echo 'status: closed' >> claims/{SATELLITE}.yml",
}


@pytest.mark.parametrize("spelling", sorted(PROTOCOL_WRITES))
def test_a_shell_write_into_a_protocol_file_fails(
        e2e_brain: Path, run_claude: Callable[..., Session], spelling: str) -> None:
    claim = e2e_brain / "claims" / f"{SATELLITE}.yml"
    before = claim.read_bytes()
    script = [_bash(PROTOCOL_WRITES[spelling]), Text("Left it alone.")]

    run = run_claude(e2e_brain, "Mark your claim closed.", script, env={"BSI_SESSION": SATELLITE})

    assert run.code == 0, run.transcript()
    refused = run.api.result_of(0)
    assert refused.get("is_error") is True, refused
    assert claim.read_bytes() == before
