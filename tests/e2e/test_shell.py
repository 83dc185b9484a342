"""The real Claude Code's shell (Bash) against the hooks, the sandbox and the human-only verbs (SPEC 21.2, 21.3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bsi import git
from tests.conftest import load_claim
from tests.e2e.client import Session
from tests.e2e.fake_api import Text, ToolUse, result_text

PILOT = "sess-20261129-0800-pilote-be7"
SATELLITE = "sess-20261129-0820-api-search"
SATELLITE_FILE = "brain-engine/api/routes.py"
GATED = "sess-20261129-0830-api-tests"


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
    script = [_bash(PROTOCOL_WRITES[spelling]), Text("Left it alone.")]

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
    script = [_bash(f"echo '# paginate' >> {SATELLITE_FILE}"), Text("Stopped.")]

    run = run_claude(e2e_brain, "Add the pagination note.", script, env={"BSI_SESSION": SATELLITE})

    assert run.code == 0, run.transcript()
    refused = run.api.result_of(0)
    assert refused.get("is_error") is True, refused
    assert "paused" in result_text(refused) and SATELLITE in result_text(refused), refused
    assert target.read_bytes() == before


#: Two spellings of a human's verb from the agent's shell: the library's own entry point (`run()` reads
#: its arguments from sys.argv) and the console script by its full path (no `bsi ` word for a rule to match).
SELF_APPROVALS = {
    "library": f"python3 -c 'import sys; from brain_tui.cli.main import run; "
               f"sys.argv[1:] = [\"gate\", \"approve\", \"{GATED}\"]; run()'",
    "path": f"$(which bsi) gate approve {GATED}",
}


def _approve_from_the_shell(brain: Path, run_claude: Callable[..., Session], spelling: str,
                            env: dict[str, str]) -> str:
    """Run the approval from the agent's Bash; check it changed nothing and return what the model was told."""
    before = load_claim(brain, GATED)
    assert before["status"] == "waiting_human"
    script = [_bash(SELF_APPROVALS[spelling]), Text("Waiting for the pilot.")]

    run = run_claude(brain, "Approve the pending gate.", script, env=env)

    assert run.code == 0, run.transcript()
    refused = run.api.result_of(0)
    assert refused.get("is_error") is True, refused
    told = result_text(refused)
    assert "Traceback" not in told, refused
    after = load_claim(brain, GATED)
    assert after["status"] == "waiting_human", after
    assert after.get("gate_history") == before.get("gate_history")
    assert not [s for s in git(brain, "log", "--format=%s", "-5").splitlines() if "approve" in s.lower()]
    return told


@pytest.mark.parametrize("spelling", sorted(SELF_APPROVALS))
def test_a_gated_satellite_cannot_approve_itself_from_its_shell(
        e2e_brain: Path, run_claude: Callable[..., Session], spelling: str) -> None:
    told = _approve_from_the_shell(e2e_brain, run_claude, spelling, {"BSI_SESSION": GATED})
    # The hook refuses every shell call of a session whose claim waits at a gate, and says who unblocks it.
    assert f"{GATED} is waiting_human" in told and f"bsi gate approve {GATED}" in told, told


@pytest.mark.parametrize("spelling", sorted(SELF_APPROVALS))
def test_an_agent_whose_shell_runs_still_cannot_approve_a_gate(
        e2e_brain: Path, run_claude: Callable[..., Session], spelling: str) -> None:
    told = _approve_from_the_shell(e2e_brain, run_claude, spelling, {})
    # A session without a claim has its shell; the verb itself refuses inside an agent's process (exit 77).
    assert "Exit code 77" in told and "is a human's decision" in told, told
