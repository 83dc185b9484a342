"""The protocol's vocabularies are enums with one home; files still read and write the same text (SPEC 6.3, 7)."""

from __future__ import annotations

import ast
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.core.records import yamlio
from brain_tui.core.records.formats import held_status, normalize_status
from brain_tui.core.records.statuses import (
    ABORTABLE,
    BLOCKING_STATUSES,
    KNOWN_STATUSES,
    LIVE_STATUSES,
    PAUSABLE,
    RENEWABLE,
    RESULT_STATUSES,
    TERMINAL_STATUSES,
    GateOrigin,
    ResultStatus,
    SignalState,
    Status,
)
from tests.paths import LEGACY

LNOW = datetime(2026, 3, 16, 22, 0, tzinfo=UTC)


def test_the_sets_of_statuses_are_derived_from_the_enum() -> None:
    assert KNOWN_STATUSES == set(Status) == {"open", "waiting_human", "paused", "stale", "closed", "failed",
                                             "released"}
    assert {"closed", "failed", "released"} == TERMINAL_STATUSES
    assert BLOCKING_STATUSES == KNOWN_STATUSES - TERMINAL_STATUSES == {"open", "waiting_human", "paused", "stale"}
    assert LIVE_STATUSES == ("open", "waiting_human", "paused")
    assert {"open", "waiting_human"} == PAUSABLE and set(LIVE_STATUSES) | {"stale"} == ABORTABLE
    assert tuple(SignalState) == ("pending", "delivered", "archived")
    assert {o.value for o in GateOrigin} == {"request", "close"}


def test_a_member_is_its_string_in_json_yaml_and_text() -> None:
    assert Status.WAITING_HUMAN == "waiting_human" and hash(Status.OPEN) == hash("open")
    assert f"{Status.STALE}" == "stale" and ", ".join(sorted(PAUSABLE)) == "open, waiting_human"
    assert json.dumps({"status": Status.OPEN, "state": SignalState.DELIVERED}) == \
        '{"status": "open", "state": "delivered"}'
    assert yamlio.dump_round_trip({"status": Status.PAUSED, "paused_from": Status.WAITING_HUMAN,
                                   "gate_origin": GateOrigin.CLOSE}) == \
        "status: paused\npaused_from: waiting_human\ngate_origin: close\n"


def test_of_finds_a_member_and_never_raises_on_an_unknown_word() -> None:
    assert Status.of("paused") is Status.PAUSED and SignalState.of("archived") is SignalState.ARCHIVED
    assert Status.of("blocked") is None and Status.of("OPEN") is None and GateOrigin.of("") is None


def test_normalize_status_gives_members_and_keeps_unknown_text() -> None:
    assert normalize_status(" Active ") is Status.OPEN and normalize_status("completed") is Status.CLOSED
    assert normalize_status("WAITING_HUMAN") is Status.WAITING_HUMAN
    kept = normalize_status(" Blocked-On-Ops ")
    assert kept == "Blocked-On-Ops" and not isinstance(kept, Status)


def test_the_legacy_fixture_loads_with_typed_statuses_and_an_unknown_one_still_loads(tmp_path: Path) -> None:
    root = tmp_path / "legacy"
    shutil.copytree(LEGACY, root)
    target = root / "claims" / "sess-20260315-0200-quick-wins.yml"
    text = target.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("status:")]
    assert len(lines) == 1
    target.write_text(text.replace(lines[0], "status: on_hold"), encoding="utf-8")
    snapshot = Brain(root, clock=lambda: LNOW, commit=False).snapshot()
    by_id = {c.sess_id: c for c in snapshot.claims}
    odd = by_id["sess-20260315-0200-quick-wins"]
    assert odd.status == "on_hold" and not isinstance(odd.status, Status)
    assert "status-unknown" in odd.flags and odd.is_blocking and not odd.is_terminal
    others = [c for c in snapshot.claims if c is not odd]
    assert others and all(isinstance(c.status, Status) for c in others)
    assert {c.status for c in others} <= KNOWN_STATUSES
    assert all(isinstance(s.state, SignalState) for s in snapshot.signals)


def _event(event: str, by: str | None = None) -> dict[str, str]:
    return {"ts": "2026-11-29T10:00:00+00:00", "event": event, **({"by": by} if by else {})}


def test_a_status_line_holds_no_more_than_the_marks_and_events_of_a_human_decision_allow() -> None:
    own = "sess-20261129-1000-sat"
    gated = {"sess_id": own, "gate_history": [_event("HUMAN_GATE", own)]}
    assert held_status(gated, Status.OPEN) == Status.WAITING_HUMAN  # never approved
    approved = {**gated, "gate_history": [_event("HUMAN_GATE", own), _event("APPROVED", "alice <a@x>")]}
    assert held_status(approved, Status.OPEN) == Status.OPEN
    assert held_status({"sess_id": own, "gate_origin": "request"}, Status.OPEN) == Status.WAITING_HUMAN
    paused = {"sess_id": own, "gate_history": [_event("PAUSED_CASCADE", "alice <a@x>")]}
    assert held_status(paused, Status.OPEN) == Status.PAUSED
    assert held_status(paused, Status.WAITING_HUMAN) == Status.PAUSED
    resumed = {"sess_id": own, "gate_history": [_event("PAUSED", "bob"), _event("RESUMED", "bob")]}
    assert held_status(resumed, Status.OPEN) == Status.OPEN
    assert held_status({"sess_id": own, "paused_by": own}, Status.OPEN) == Status.PAUSED
    # the marks say nothing about a status they do not lift: stale and terminal claims read as written
    assert held_status({**paused, "gate_origin": "request"}, Status.STALE) == Status.STALE
    assert held_status({**paused, "gate_origin": "request"}, Status.CLOSED) == Status.CLOSED
    # the original scripts wrote their gate events with no `by`, and their approval as APPROVED (the legacy
    # fixture's be-tests): an undecided one holds (SPEC 14.2's bypass), a decided one does not
    assert held_status({"sess_id": own, "gate_history": [_event("HUMAN_GATE")]}, Status.OPEN) == Status.WAITING_HUMAN
    legacy_approved = {"sess_id": own, "gate_history": [_event("HUMAN_GATE"), _event("APPROVED")]}
    assert held_status(legacy_approved, Status.OPEN) == Status.OPEN
    # a gate event another session's name signs is not this claim's own gate
    assert held_status({"sess_id": own, "gate_history": [_event("HUMAN_GATE", "sess-x")]}, Status.OPEN) == Status.OPEN


def test_result_statuses_are_an_enum_too() -> None:
    assert RESULT_STATUSES == ("ok", "partial", "failed") and ResultStatus.of("partial") is ResultStatus.PARTIAL
    assert RENEWABLE == ("open", "waiting_human", "paused") and ResultStatus.of("closed") is None


#: Words of the vocabularies that nothing but a status, a state or a result spells (``request`` and
#: ``close``, the gate origins, are also action names, so they are left to review).
VOCABULARY = frozenset(Status) | frozenset(SignalState) | frozenset(ResultStatus)


def literal_status_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, code) of each comparison in `source` against a vocabulary word written as a string literal,
    alone or in a tuple, list or set (``status == "open"``, ``state in ("pending", "delivered")``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        for part in (node.left, *node.comparators):
            items = part.elts if isinstance(part, (ast.Tuple, ast.List, ast.Set)) else [part]
            if any(isinstance(i, ast.Constant) and i.value in VOCABULARY for i in items):
                found.append((node.lineno, ast.unparse(node)))
                break
    return found


def test_the_scan_sees_a_literal_comparison() -> None:
    assert literal_status_comparisons("a == 'open'\nb in ('ok', 'x')\nc == Status.OPEN\nd == 'opened'\n") == [
        (1, "a == 'open'"), (2, "b in ('ok', 'x')")]


#: Files the scan passes over, each with its reason.
NOT_SCANNED = {
    "core/records/statuses.py": "the vocabularies' home",
}


def test_no_status_is_compared_as_a_string_literal() -> None:
    """Statuses, signal states and result statuses are compared as the enums in the whole package."""
    package = Path(__file__).resolve().parents[2] / "brain_tui"
    found = {
        rel: hits
        for path in sorted(package.rglob("*.py"))
        if (rel := path.relative_to(package).as_posix()) not in NOT_SCANNED
        if (hits := literal_status_comparisons(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_a_status_line_bsi_does_not_know_lifts_no_hold_still_marked() -> None:
    """A paused or gated claim whose status line was edited to an unknown word reads as that hold (the human's verb
    then lifts it); with no hold marked the unknown word is kept as written (it blocks, flagged status-unknown)."""
    own = "sess-20261129-1000-sat"
    for word in ("weird", "[open]"):
        assert held_status({"sess_id": own, "paused_by": own}, word) == Status.PAUSED
        assert held_status({"sess_id": own, "gate_history": [_event("PAUSED", "bob")]}, word) == Status.PAUSED
        assert held_status({"sess_id": own, "gate_origin": "request"}, word) == Status.WAITING_HUMAN
        assert held_status({"sess_id": own, "gate_history": [_event("PAUSED", "bob"), _event("RESUMED", "bob")]},
                           word) == word
        assert held_status({"sess_id": own}, word) == word
