"""`bsi claim open --help` names every variable the open binds an agent session from."""

from __future__ import annotations

from brain_tui.core.rules.authority import AGENT_SESSION_MARKERS
from tests.bsi import run_bsi


def test_agent_session_help_names_each_session_variable() -> None:
    run = run_bsi("claim", "open", "--help")
    text = " ".join(run.out.split())
    assert run.code == 0
    for name in AGENT_SESSION_MARKERS:
        assert f"${name}" in text, name
