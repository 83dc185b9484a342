"""One way a record becomes its JSON shape: field order, renames, omissions, nested records (SPEC 19)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from brain_tui.core.json_shape import JsonShaped, json_value
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.model import CorruptFile
from brain_tui.core.records.statuses import Status
from brain_tui.core.rules.circuit import CircuitState
from brain_tui.core.rules.gates import Cascade, GateOutcome
from brain_tui.core.rules.locks import LockCheck, LockInfo, LockList
from brain_tui.core.rules.watchdog import WatchdogReport
from brain_tui.core.sync.audit import DriftReport


def test_gate_answers_keep_their_shapes() -> None:
    bare = GateOutcome("sess-1", "reject", Status.FAILED)
    assert json.dumps(bare.as_dict()) == '{"sess_id": "sess-1", "action": "reject", "status": "failed"}'
    full = GateOutcome("s", "approve", Status.OPEN, signal_id="sig-1", expires_at="2026-11-29T12:00:00+01:00",
                       tree="abc")
    assert list(full.as_dict()) == ["sess_id", "action", "status", "signal_id", "expires_at", "approved_tree"]
    assert GateOutcome("s", "request", "waiting_human", signal_id="").as_dict() == {
        "sess_id": "s", "action": "request", "status": "waiting_human"}
    assert Cascade("s", "pause", Status.PAUSED, ("a", "b")).as_dict() == {
        "sess_id": "s", "action": "pause", "status": "paused", "cascade": ["a", "b"]}


def test_omitted_renamed_and_nested_fields() -> None:
    bad = CorruptFile("claims/x.yml", 3, "bad indent", parse_scope("docs/", "/tmp"))
    assert bad.as_dict() == {"path": "claims/x.yml", "line": 3, "reason": "bad indent"}
    assert list(CircuitState("s", 1, 3, False, None, None).as_dict()) == [
        "sess_id", "fails", "max", "tripped", "last_fail_at", "signal"]
    info = LockInfo("a.py", "s", 2, "t0", "t1", 30, False, False, "locks/a.py.yml")
    assert LockCheck("a.py", True, info).as_dict() == {"file": "a.py", "locked": True, "lock": info.as_dict()}
    assert LockCheck("a.py", False, None).as_dict()["lock"] is None
    assert LockList((info,), (bad,)).as_dict() == {"locks": [info.as_dict()], "corrupt": [bad.as_dict()]}
    assert "unwritable" not in WatchdogReport(1, 0, (), ()).as_dict()
    assert WatchdogReport(1, 0, (), (), ("x",)).as_dict()["unwritable"] == ["x"]
    assert json.dumps(DriftReport("s", "docs/", ("c1",), ("a",), (), ("b",)).as_dict()) == (
        '{"sess_id": "s", "scope": "docs/", "commits": ["c1"], "changed": ["a"], "uncommitted": [], '
        '"outside": ["b"], "drift": true}')


def test_json_value_turns_containers_into_json_ones() -> None:
    @dataclass(frozen=True)
    class Row(JsonShaped):
        name: str
        tags: tuple[str, ...]

    assert json_value({"rows": (Row("a", ("x",)),), "n": 1}) == {"rows": [{"name": "a", "tags": ["x"]}], "n": 1}


def test_a_field_none_if_unset_gives_null_when_empty() -> None:
    @dataclass(frozen=True)
    class Row(JsonShaped):
        name: str
        commit: str = ""

        _json_none_if_unset = frozenset({"commit"})

    assert Row("a").as_dict() == {"name": "a", "commit": None}
    assert Row("a", "abc").as_dict() == {"name": "a", "commit": "abc"}
