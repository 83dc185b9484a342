"""Agent-session binding (SPEC 20.1) and the liveness records the cockpit reads (SPEC 20.4)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.core.sessions import agent_files, agents, handover
from tests.bsi import NOW as BSI_NOW
from tests.bsi import bsi_command, clean_env, ok, run_bsi
from tests.conftest import load_claim
from tests.hooks.fake_agent import FakeAgent

AGENT = "5b7c1f0e-2d3a-4c55-9e61-0a1b2c3d4e5f"
NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def open_claim(brain: Path, *extra: str, env: dict[str, str] | None = None, scope: str = "projects/app/") -> str:
    return ok(run_bsi("claim", "open", "--scope", scope, "--story", "work", *extra, brain=brain,
                      env=env or clean_env()))


def test_claude_code_session_id_binds_the_claim(brain: Path) -> None:
    sess = open_claim(brain, env=clean_env(CLAUDE_CODE_SESSION_ID=AGENT))
    assert load_claim(brain, sess)["agent_session"] == AGENT
    assert agents.bound_claims(brain, AGENT) == [sess]
    record = json.loads((brain / ".brain" / "agents" / f"{sess}.json").read_text())
    assert record["agent_session"] == AGENT and record["state"] == "working"


def test_agent_session_flag_wins_over_the_environment(brain: Path) -> None:
    sess = open_claim(brain, "--agent-session", "other-1", env=clean_env(CLAUDE_CODE_SESSION_ID=AGENT))
    assert load_claim(brain, sess)["agent_session"] == "other-1"
    assert agents.bound_claims(brain, AGENT) == []


def test_no_agent_session_no_binding(brain: Path) -> None:
    sess = open_claim(brain)
    assert "agent_session" not in load_claim(brain, sess)
    assert not (brain / ".brain" / "agents").exists()


def test_malformed_agent_session_is_65_and_writes_nothing(brain: Path) -> None:
    before = sorted(p.name for p in (brain / "claims").iterdir())
    run = run_bsi("claim", "open", "--scope", "x/", "--agent-session", "../../etc", brain=brain)
    assert run.code == 65 and "agent session" in run.err
    assert sorted(p.name for p in (brain / "claims").iterdir()) == before


def test_liveness_reader_states_and_idle(brain: Path) -> None:
    sess = open_claim(brain, "--agent-session", AGENT)
    agents.record_activity(brain, sess, AGENT, NOW, tool="Edit", touched=["projects/app/a.py"])
    agents.record_activity(brain, sess, AGENT, NOW, tool="Edit", touched=["projects/app/b.py", "projects/app/a.py"])
    live = agents.read_liveness(brain, NOW + timedelta(minutes=1))[sess]
    assert live.state == "working" and live.last_tool == "Edit" and live.agent_session == AGENT
    assert live.touched == ("projects/app/b.py", "projects/app/a.py")
    assert live.last_activity == NOW
    assert agents.read_liveness(brain, NOW + agents.IDLE_AFTER)[sess].state == "idle"
    agents.record_state(brain, sess, AGENT, "needs_input", NOW)
    assert agents.read_liveness(brain, NOW + timedelta(hours=1))[sess].state == "needs_input"
    agents.record_state(brain, sess, AGENT, "ended", NOW)
    assert Brain(brain, now="2026-11-29T10:05:00Z").agents.liveness()[sess].state == "ended"


def test_liveness_reader_ignores_garbage(brain: Path) -> None:
    folder = brain / ".brain" / "agents"
    folder.mkdir(parents=True)
    (folder / "sess-20261129-1000-x.json").write_text("{not json")
    (folder / "sess-20261129-1000-y.json").write_text(json.dumps({"sess_id": "sess-other"}))
    (folder / "notes.txt").write_text("hello")
    assert agents.read_liveness(brain, NOW) == {}


def test_handover_is_taken_once_and_never_guessed(brain: Path) -> None:
    sess = open_claim(brain, "--agent-session", AGENT)
    assert handover.vouch(brain, AGENT, "p1")  # bound by hand: its first event records its agent process
    assert handover.leave_handover(brain, AGENT, [sess], NOW, cwd=str(brain), process="p1") == ""
    taken, why = handover.take_handover(brain, "new-1", NOW + timedelta(seconds=2), cwd=str(brain), process="p1")
    assert taken == [sess] and AGENT in why
    assert agents.bound_claims(brain, "new-1") == [sess]
    assert agents.read_liveness(brain, NOW)[sess].agent_session == "new-1"
    assert handover.take_handover(brain, "new-2", NOW, cwd=str(brain), process="p1") == ([], "")

    other = open_claim(brain, "--agent-session", "agent-b", scope="docs/")
    assert not handover.vouch(brain, "agent-b", "p1")  # p1 is new-1's agent: it takes no session bound by hand
    agents.record_binding(brain, other, "agent-b", NOW, process="p1")  # (a claim p1 opened as agent-b itself)
    assert handover.leave_handover(brain, "new-1", [sess], NOW, cwd=str(brain), process="p1") == ""
    assert handover.leave_handover(brain, "agent-b", [other], NOW, cwd=str(brain), process="p1") == ""
    taken, why = handover.take_handover(brain, "new-3", NOW, cwd=str(brain), process="p1")
    assert taken == [] and "2 bindings" in why
    assert agents.bound_claims(brain, "new-3") == []


def test_handover_of_another_process_or_too_old_is_not_taken(brain: Path) -> None:
    sess = open_claim(brain, "--agent-session", AGENT)
    assert handover.vouch(brain, AGENT, "p1")
    refused = handover.leave_handover(brain, AGENT, [sess], NOW, cwd=str(brain), process="p2")
    assert "refused" in refused and "p2" in refused and sess in refused
    assert not (brain / ".brain" / "agents" / "handover").exists()
    assert not handover.vouch(brain, AGENT, "p2") and handover.vouch(brain, AGENT, "p1")
    assert handover.leave_handover(brain, AGENT, [sess], NOW, cwd=str(brain), process="p1") == ""
    assert handover.take_handover(brain, "n", NOW, cwd=str(brain), process="p2") == ([], "")
    assert handover.take_handover(brain, "n", NOW, cwd=str(brain), process="") == ([], "")
    assert handover.take_handover(brain, "n", NOW + timedelta(hours=9), cwd=str(brain), process="p1") == ([], "")


def test_a_binding_made_inside_the_agent_records_its_process(brain: Path, tmp_path: Path) -> None:
    agent = FakeAgent(tmp_path / "agent")
    try:
        done = agent.run(bsi_command("claim", "open", "--scope", "src/", "--story", "x", brain=brain, now=BSI_NOW),
                         env=clean_env(CLAUDE_CODE_SESSION_ID=AGENT), cwd=brain)
        assert done.returncode == 0, done.stderr
        sess = done.stdout.strip()
        mine = agent.process
        assert mine and agent_files.recorded_process(brain, AGENT) == mine
    finally:
        agent.close()
    assert handover.leave_handover(brain, AGENT, [sess], NOW, process="another:1") != ""
    assert agent_files.recorded_process(brain, AGENT) == mine


def test_pending_mcp_claim_is_bound_only_by_its_own_client(brain: Path) -> None:
    sess = open_claim(brain)
    handover.leave_pending(brain, sess, "client:1", NOW)
    assert agent_files.has_pending(brain)
    assert handover.adopt_pending(brain, "gem-b", "client:2", NOW) == []
    assert handover.adopt_pending(brain, "gem-a", "", NOW) == []
    assert agents.bound_claims(brain, "gem-b") == []
    assert handover.adopt_pending(brain, "gem-a", "client:1", NOW) == [sess]
    assert agents.bound_claims(brain, "gem-a") == [sess]
    assert agent_files.recorded_process(brain, "gem-a") == "client:1"
    assert not agent_files.has_pending(brain)
    other = open_claim(brain, scope="docs/")
    handover.leave_pending(brain, other, "client:3", NOW)
    assert handover.adopt_pending(brain, "gem-a", "client:3", NOW) == []  # gem-a is client:1's session
    assert handover.adopt_pending(brain, "gem-c", "client:3", NOW + timedelta(hours=9)) == []
    assert not agent_files.has_pending(brain)  # too old: dropped
