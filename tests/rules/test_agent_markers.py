"""Who may act (SPEC 21): each agent marker in the environment makes a human's verb refused (exit 77, one line
pointing to the cockpit), asked of `Brain` in process. tests/cli/test_authority.py keeps one `bsi` case, the
spellings of the command line and the agent processes among the ancestors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi
from tests.conftest import load_claim
from tests.rules.facade import at, open_in, refused

ALICE = "11111111-aaaa-4aaa-8aaa-111111111111"
MARKERS = [{"CLAUDECODE": "1"}, {"BSI_SESSION": "sess-20261129-1000-leaf"}, {"CODEX_SANDBOX": "seatbelt"},
           {"CODEX_THREAD_ID": "t-1"}, {"GEMINI_CLI": "1"}, {"CLAUDE_CODE_SESSION_ID": ALICE}]


@pytest.fixture
def pilot(brain: Path) -> str:
    """A pilot (the human's) whose satellite waits at a gate it requested."""
    pilot = open_in(brain, "be/", type="pilote", slug="pilot")
    leaf = open_in(brain, "be/x.py", parent=pilot, satellite_type="code", slug="leaf")
    ok(run_bsi("gate", "request", leaf, "deploy?", brain=brain))
    return pilot


@pytest.mark.parametrize("marker", MARKERS, ids=[next(iter(m)) for m in MARKERS])
def test_each_agent_marker_refuses_a_pause(brain: Path, pilot: str, marker: dict[str, str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in marker.items():
        monkeypatch.setenv(name, value)
    error = refused(lambda: at(brain).gates.pause(pilot), 77)
    line = str(error)
    assert "\n" not in line and line.startswith(f"pause {pilot} is a human's decision"), line
    assert "`brain-tui`" in line and "in their own terminal" in line
    assert load_claim(brain, pilot)["status"] == "open"
