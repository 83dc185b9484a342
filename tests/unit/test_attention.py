"""The attention queue (core/rules/attention.py): what it lists, once each, and how it ranks them.

In process, on a temporary brain without git and a movable clock.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import attention
from brain_tui.core.rules.claims import OpenRequest

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture
def world() -> Iterator[tuple[Brain, Clock]]:
    root = Path(tempfile.mkdtemp(prefix="bsi-attention-"))
    for folder in ("claims", "signals", "locks", "breath"):
        (root / folder).mkdir()
    clock = Clock()
    yield Brain(root, clock=clock, commit=False, instance="t@test"), clock
    shutil.rmtree(root, ignore_errors=True)


def _open(brain: Brain, slug: str, scope: str, ttl: str = "2h", **kw: object) -> str:
    req = OpenRequest(scope=parse_scope(scope, brain.root), ttl=parse_duration(ttl), instance="t@test",
                      story=f"story of {slug}", slug=slug, **kw)  # type: ignore[arg-type]
    return brain.open_claim(req)


def _tree(brain: Brain) -> dict[str, str]:
    """A pilot, a domain under it and four leaves under the domain."""
    pilot = _open(brain, "pilot", "eng/", ttl="4h", type="pilote")
    domain = _open(brain, "dom", "eng/api/", ttl="4h", parent=pilot, satellite_type="domain", level="domain")
    ids = {"pilot": pilot, "domain": domain}
    for n in range(4):
        ids[f"leaf{n}"] = _open(brain, f"leaf{n}", f"eng/api/f{n}.py", parent=domain, satellite_type="code")
    return ids


def test_a_gate_holding_a_tree_ranks_before_a_lone_stale_claim(world: tuple[Brain, Clock]) -> None:
    brain, clock = world
    lone = _open(brain, "note", "wiki/", ttl="1h")
    clock.at += timedelta(minutes=70)
    brain.watchdog()  # the lone note is stale now
    ids = _tree(brain)
    brain.gates.request(ids["domain"], "ship the API?")
    items = brain.attention()
    assert [(i.kind, i.sess_id) for i in items] == [("gate", ids["domain"]), ("stale", lone)]
    assert items[0].unblocks == 6  # the domain, the pilot above it and the four leaves below
    assert items[1].unblocks == 1


def test_each_kind_is_listed_once(world: tuple[Brain, Clock]) -> None:
    brain, clock = world
    ids = _tree(brain)
    brain.gates.request(ids["leaf0"], "merge?")
    # The gate request also sends a HUMAN_GATE signal: folded into the claim's row.
    sig = brain.signals.send(ids["leaf1"], ids["domain"], "BLOCKED_ON", "waiting for the schema")
    brain.signals.send(ids["leaf2"], ids["domain"], "INFO", "fyi")
    items = brain.attention()
    kinds = sorted((i.kind, i.sess_id, i.sig_id) for i in items)
    assert kinds == sorted([("gate", ids["leaf0"], None), ("blocked", ids["leaf1"], sig)])


def test_an_expired_open_claim_counts_before_the_watchdog_runs(world: tuple[Brain, Clock]) -> None:
    brain, clock = world
    sess = _open(brain, "late", "docs/", ttl="1h")
    clock.at += timedelta(minutes=61)
    (item,) = brain.attention()
    assert (item.kind, item.sess_id) == ("stale", sess)
    assert item.time_left is not None and item.time_left < timedelta(0)


def test_a_gate_close_to_expiry_is_a_warning_and_ranks_first_among_equals(world: tuple[Brain, Clock]) -> None:
    brain, clock = world
    early = _open(brain, "early", "a/", ttl="1h")
    clock.at += timedelta(minutes=10)
    late = _open(brain, "late", "b/", ttl="2h")
    brain.gates.request(early, "one?")
    brain.gates.request(late, "two?")
    items = brain.attention()
    assert [i.sess_id for i in items] == [early, late]
    assert not any(i.warning for i in items)
    clock.at += timedelta(minutes=40)  # early has 10 min left, late 1h20
    items = brain.attention()
    assert [(i.sess_id, i.warning) for i in items] == [(early, True), (late, False)]
    assert items[0].time_left == timedelta(minutes=10)
    assert attention.describe_time_left(items[0].time_left) == "10m left"


def test_paused_claims_close_to_expiry_are_announced_not_the_ancestors_with_time(world: tuple[Brain, Clock]) -> None:
    brain, clock = world
    ids = _tree(brain)
    brain.gates.pause(ids["domain"], "hold on")
    assert brain.attention() == []  # paused with hours left: nothing to decide yet
    clock.at += timedelta(minutes=110)  # the 2 h leaves have 10 min left, the domain 2h10
    items = brain.attention()
    assert [(i.kind, i.warning) for i in items] == [("paused", True)] * 4
    assert all(i.sess_id not in (ids["domain"], ids["pilot"]) for i in items)


def test_needs_input_comes_from_the_liveness_of_bound_sessions(world: tuple[Brain, Clock]) -> None:
    @dataclass(frozen=True)
    class Live:
        state: str

    brain, _ = world
    ids = _tree(brain)
    snapshot = brain.snapshot()
    items = attention.attention(snapshot, {ids["leaf3"]: Live("needs_input"), ids["leaf2"]: Live("working")})
    assert [(i.kind, i.sess_id) for i in items] == [("needs_input", ids["leaf3"])]


def test_circuit_break_is_listed_on_its_claim(world: tuple[Brain, Clock]) -> None:

    brain, _ = world
    sess = _open(brain, "flaky", "src/")
    for _ in range(3):
        brain.circuit.fail(sess)
    items = brain.attention()
    assert [(i.kind, i.sess_id) for i in items] == [("circuit", sess)]


def test_waiting_inside_counts_items_up_the_tree(world: tuple[Brain, Clock]) -> None:
    brain, _ = world
    ids = _tree(brain)
    brain.gates.request(ids["leaf0"], "one?")
    brain.gates.request(ids["leaf1"], "two?")
    snapshot = brain.snapshot()
    counts = attention.waiting_inside(snapshot, attention.attention(snapshot))
    assert counts[ids["pilot"]] == 2 and counts[ids["domain"]] == 2 and counts[ids["leaf0"]] == 1
    assert ids["leaf2"] not in counts


def test_json_shape(world: tuple[Brain, Clock]) -> None:
    brain, _ = world
    sess = _open(brain, "g", "g/")
    brain.gates.request(sess, "go?")
    (item,) = brain.attention()
    assert item.as_dict() == {"kind": "gate", "sess_id": sess, "sig_id": None, "since": T0.isoformat(),
                              "time_left_s": 7200, "unblocks": 1, "warning": False, "summary": "gate: go?",
                              "runway": None, "path": None}


def test_the_session_a_signal_party_names_has_one_reading() -> None:
    from brain_tui.core.ids import party_session

    assert party_session("sess-20260101-0900-abcd@laptop") == "sess-20260101-0900-abcd"
    assert party_session("sess-20260101-0900-abcd") == "sess-20260101-0900-abcd"
    for party in ("human:ana", "pilote", "*", "", "parent"):
        assert party_session(party) is None


def test_an_aborted_gate_is_no_longer_a_gate_to_decide(world: tuple[Brain, Clock]) -> None:
    brain, clock = world
    ids = _tree(brain)
    brain.gates.request(ids["leaf0"], "merge?")
    brain.gates.abort(ids["domain"], "wrong plan")
    assert [i for i in brain.attention() if i.kind == "gate"] == []
    gate_signals = [s for s in brain.snapshot().signals if s.type == "HUMAN_GATE"]
    assert gate_signals and all(s.state == "delivered" for s in gate_signals)  # decided, as approve/reject do


def test_a_released_gate_is_no_longer_pending_anywhere(world: tuple[Brain, Clock]) -> None:
    """A gate left past its 8 h goes stale; a human's release decides it: its HUMAN_GATE is delivered, as on abort."""
    brain, clock = world
    note = _open(brain, "note", "wiki/", ttl="1h")
    brain.gates.request(note, "merge?")
    clock.at += timedelta(hours=9)
    brain.watchdog()
    brain.release_claim(note, "left for a day")
    gate_signals = [s for s in brain.snapshot().signals if s.type == "HUMAN_GATE"]
    assert gate_signals and all(s.state == "delivered" for s in gate_signals)
    assert [i for i in brain.attention() if i.kind == "gate"] == []


def test_pausing_a_gate_does_not_announce_it_again_as_a_new_item(world: tuple[Brain, Clock]) -> None:
    brain, clock = world
    ids = _tree(brain)
    brain.gates.request(ids["leaf0"], "merge?")
    assert [(i.kind, i.sess_id) for i in brain.attention()] == [("gate", ids["leaf0"])]
    brain.gates.pause(ids["domain"], "hold on")
    assert brain.attention() == []  # paused with hours left: nothing to decide yet (resume brings the gate back)
    brain.gates.resume(ids["domain"])
    assert [(i.kind, i.sess_id) for i in brain.attention()] == [("gate", ids["leaf0"])]


def test_a_claim_file_that_does_not_read_waits_for_a_human(world: tuple[Brain, Clock]) -> None:
    brain, _ = world
    (brain.root / "claims" / "sess-20261129-0850-broken.yml").write_text("status: [open\nscope: notes/\n")
    (item,) = brain.attention()
    assert item.kind == "unreadable" and item.path == "claims/sess-20261129-0850-broken.yml"
    assert item.sess_id is None and item.as_dict()["path"] == item.path
    assert "bsi claim repair sess-20261129-0850-broken" in item.summary and "until repaired it holds" in item.summary


def test_a_claim_whose_status_bsi_does_not_know_waits_for_a_human(world: tuple[Brain, Clock]) -> None:
    brain, _ = world
    sess = _open(brain, "odd", "odd/")
    path = brain.root / "claims" / f"{sess}.yml"
    path.write_text(path.read_text().replace("status: open", "status: weird"))
    (item,) = brain.attention()
    assert item.kind == "unreadable" and item.sess_id == sess and item.path == f"claims/{sess}.yml"
    assert "'weird' is none bsi knows" in item.summary and f"bsi gate abort {sess}" in item.summary


def test_a_lock_file_whose_two_copies_do_not_read_is_one_item(world: tuple[Brain, Clock]) -> None:
    """The work tree's copy and HEAD's copy of one lock file may both be corrupt rows: one queue item (its key is
    its path, as the cockpit keys its row: two would be one row key twice)."""
    from brain_tui.core.record import replace
    from brain_tui.core.records.model import CorruptFile

    brain, _clock = world
    rel = "locks/notes%2Fa.md.yml"
    twins = (CorruptFile(rel, 2, "bad"), CorruptFile(rel, 3, "bad (the copy git holds)"))
    snap = replace(brain.snapshot(), corrupt=twins)
    items = [i for i in attention.attention(snap) if i.kind == "unreadable"]
    assert [(i.key, i.path, i.unblocks) for i in items] == [(f"unreadable:{rel}", rel, 1)]
    assert items[0].summary == ("lock file does not read: fix or remove it by hand (line 2: bad); until then it keeps "
                                "notes/a.md locked")
