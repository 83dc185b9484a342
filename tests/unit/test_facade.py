"""The `Brain` facade in process: typed outcomes, dry runs that write nothing, typed claim fields."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.errors import InvalidData, NotFound
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.gates import Cascade, GateOutcome

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def files(root: Path) -> dict[str, bytes]:
    """Every file of the brain outside `.brain/` (local state), by path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".brain" not in p.relative_to(root).parts}


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    for folder in ("claims", "signals", "locks", "breath"):
        (tmp_path / folder).mkdir()
    return Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")


def request(scope: str, parent: str | None = None, **extra: str) -> OpenRequest:
    return OpenRequest(scope=parse_scope(scope), ttl=timedelta(hours=2), instance="t@test", parent=parent,
                       **extra)  # type: ignore[arg-type]


def test_gate_outcomes_are_typed_and_give_the_json_shape(brain: Brain) -> None:
    pilot = brain.open_claim(request("a/", type="pilote"))
    child = brain.open_claim(request("a/x.md", parent=pilot))
    asked = brain.gates.request(child, "look at this")
    assert isinstance(asked, GateOutcome) and asked.status == "waiting_human" and asked.signal_id
    assert asked.as_dict() == {"sess_id": child, "action": "request", "status": "waiting_human",
                               "signal_id": asked.signal_id}
    paused = brain.gates.pause(pilot, "hold", by="human:t")
    assert isinstance(paused, Cascade) and paused.touched == (child,)
    assert paused.as_dict() == {"sess_id": pilot, "action": "pause", "status": "paused", "cascade": [child]}
    resumed = brain.gates.resume(pilot, "", by="human:t")
    assert isinstance(resumed, Cascade) and resumed.touched == (child,)
    assert brain.snapshot().claim(child).status == "waiting_human"  # type: ignore[union-attr]
    approved = brain.gates.approve(child, by="human:t")
    assert approved.as_dict() == {"sess_id": child, "action": "approve", "status": "open"}
    assert not hasattr(brain.gates, "act")  # one call per verb: no string turned back into a method


def test_preview_runs_the_rule_and_writes_nothing(brain: Brain) -> None:
    pilot = brain.open_claim(request("a/", type="pilote"))
    child = brain.open_claim(request("a/x.md", parent=pilot))
    before = files(brain.root)
    shown = brain.preview("pause", pilot)
    assert shown.allowed and shown.status == "paused" and shown.touched == (child,) and shown.signals == 1
    refused = brain.preview("resume", pilot)
    assert not refused.allowed and "cannot resume" in refused.refusal
    assert files(brain.root) == before


def test_preview_of_a_close_is_the_close_transition_check(brain: Brain) -> None:
    pilot = brain.open_claim(request("a/", type="pilote"))
    child = brain.open_claim(request("a/x.md", parent=pilot))
    assert brain.preview("close", child).allowed  # its tier's requirements are the close form's to ask
    brain.gates.request(child, "look")
    before = files(brain.root)
    refused = brain.preview("close", child)
    assert not refused.allowed and "cannot close" in refused.refusal
    assert not brain.preview("close", "sess-20261129-0900-nobody").allowed
    assert files(brain.root) == before


def test_preview_open_checks_the_request_then_the_conflicts(brain: Brain) -> None:
    holder = brain.open_claim(request("a/"))
    before = files(brain.root)
    snapshot = brain.snapshot()
    conflicts = brain.preview_open(request("a/x.md"), snapshot)
    assert [c.sess_id for c in conflicts] == [holder]
    assert brain.preview_open(request("b/")) == []
    assert [c.sess_id for c in brain.preview_open(request("a/x.md", parent=holder), snapshot)] == []
    with pytest.raises(NotFound):
        brain.preview_open(request("b/", parent="sess-20261129-0900-nope"), snapshot)
    with pytest.raises(InvalidData):
        brain.preview_open(request("b/", slug="Not A Slug"))
    assert files(brain.root) == before


def test_watchdog_report_and_typed_stale_fields(brain: Brain, tmp_path: Path) -> None:
    sess = brain.open_claim(request("a/"))
    later = Brain(tmp_path, clock=lambda: T0 + timedelta(hours=3), commit=False, instance="t@test")
    report = later.watchdog()
    assert report.marked == (sess,) and report.as_dict() == {"active": 0, "stale": 1, "marked": [sess]}
    assert report.summary() == "0 claims actifs, 1 stale détectés"
    claim = later.snapshot().claim(sess)
    assert claim is not None
    assert (claim.stale_reason, claim.data["stale_from"]) == ("TTL expired without close", "open")
    assert [(e.event, e.by) for e in claim.gate_history] == [("STALE", "watchdog")]


def test_locks_and_circuit_through_the_facade(brain: Brain) -> None:
    sess = brain.open_claim(request("a/"))
    taken = brain.locks.acquire("a/x.md", sess, 30)
    assert taken.action == "acquired"
    check = brain.locks.check("./a//x.md")
    assert check.locked and check.exit_code == 1 and check.lock is not None and check.lock.holder == sess
    assert [lock.file for lock in brain.locks.list().locks] == ["a/x.md"]
    released = brain.locks.release("a/x.md", sess)
    assert released.as_dict() == {"file": "a/x.md", "released": True, "removed": ["locks/a%2Fx.md.yml"]}
    assert brain.preflight(sess, "a/x.md").as_dict() == {"sess_id": sess, "file": "a/x.md", "code": 0,
                                                         "check": "go"}
    state = brain.circuit.fail(sess)
    assert (state.fails, state.tripped) == (1, False)
    assert brain.circuit.status(sess).fails == 1
    assert brain.circuit.reset(sess).fails == 0


def test_breath_records_come_with_the_snapshot_like_claims(brain: Brain) -> None:
    """breath/*.yml is read by the store into the snapshot; metrics of a snapshot equal the disk reading."""
    brain.breath.inhale("sprint-20261129-0900-aaa", "tech-lead", ["a.md", "b.md"])
    brain.breath.reference("sprint-20261129-0900-aaa", ["a.md"])
    (brain.root / "breath" / "sprint-broken.yml").write_text("sprint: [unclosed\n", encoding="utf-8")
    (brain.root / "breath" / "notes.yml").write_text("a: 1\n", encoding="utf-8")
    (brain.root / "breath" / ".hidden.yml").write_text("a: 1\n", encoding="utf-8")
    snapshot = brain.snapshot()
    assert [r.sprint for r in snapshot.breath] == ["sprint-20261129-0900-aaa"]
    assert snapshot.breath[0].loaded == ("a.md", "b.md") and snapshot.breath[0].referenced == ("a.md",)
    assert sorted(c.path for c in snapshot.breath_corrupt) == ["breath/notes.yml", "breath/sprint-broken.yml"]
    assert not any(c.path.startswith("breath/") for c in snapshot.corrupt)  # breath files block nothing
    from_snapshot = brain.breath.metrics(snapshot=snapshot)
    from_disk = brain.breath.metrics()
    assert from_snapshot == from_disk
    assert from_snapshot.sprints[0].context_load == 2.0
    filtered = brain.snapshot(only_statuses=("open",))
    assert filtered.breath == snapshot.breath  # the hooks' and progressive cockpit's snapshots carry them too


def test_breath_records_are_parsed_once_per_change(brain: Brain) -> None:
    brain.breath.inhale("sprint-20261129-0900-aaa", "tech-lead", ["a.md"])
    brain.snapshot()
    brain.snapshot()
    assert brain.store.parsed_last == 0
    record = brain.root / "breath" / "sprint-20261129-0900-aaa.yml"
    record.write_text(record.read_text(encoding="utf-8").replace("a.md", "c.md"), encoding="utf-8")
    assert brain.snapshot().breath[0].loaded == ("c.md",)
    assert brain.store.parsed_last == 1


def test_agent_session_and_exit_triggers_are_typed_fields(brain: Brain) -> None:
    sess = brain.open_claim(request("a/", on_done="signal → DONE parent", agent_session="agent-1"))
    claim = brain.snapshot().claim(sess)
    assert claim is not None
    assert claim.agent_session == "agent-1"
    assert claim.exit_triggers == {"on_done": "signal → DONE parent"}
    path = brain.root / claim.path
    path.write_text(path.read_text(encoding="utf-8").replace("agent_session: agent-1", "agent_session: 42"),
                    encoding="utf-8")
    assert brain.snapshot().claim(sess).agent_session is None  # type: ignore[union-attr]  # not text: not bound


def test_a_symlinked_protocol_file_is_a_corrupt_row_never_followed(brain: Brain, tmp_path: Path) -> None:
    """A link in claims/ or breath/ is reported, not read (it could name any file) and not silently dropped."""
    held = brain.open_claim(request("a/"))
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yml"
    outside.write_bytes((brain.root / "claims" / f"{held}.yml").read_bytes())
    (brain.root / "claims" / "sess-20261129-0901-link.yml").symlink_to(outside)
    (brain.root / "breath" / "sprint-20261129-0900-link.yml").symlink_to(outside)
    snapshot = brain.snapshot()
    assert [c.sess_id for c in snapshot.claims] == [held]
    assert [(c.path, c.reason.split(",")[0]) for c in snapshot.corrupt] == [
        ("claims/sess-20261129-0901-link.yml", "a symbolic link")]
    assert [c.path for c in snapshot.breath_corrupt] == ["breath/sprint-20261129-0900-link.yml"]
    assert [c.path for c in brain.breath.metrics().corrupt] == ["breath/sprint-20261129-0900-link.yml"]
