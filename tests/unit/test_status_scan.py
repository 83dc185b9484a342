"""The line scan that reads a committed claim's terminal status without YAML: it answers only when the
bytes leave no doubt, and then as the YAML parse does."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pytest

from brain_tui.core.records.formats import claim_identity, parse_claim_bytes
from brain_tui.core.records.status_scan import UNDECIDED, scan_status, terminal_of

PLAIN = (b"sess_id: sess-a\nscope: x/\nstatus: closed\nclosed_at: '2026-11-29T10:00:00+00:00'\n"
         b"result:\n  status: ok\n  files:\n    - a.py\n  tests:\n    total: 3\n"
         b"gate_history:\n  - {ts: '2026-11-29T09:00:00+00:00', event: HUMAN_GATE, message: \"go?\"}\n"
         b"note: |\n  status: open\n  text\n")


def test_a_plain_closed_claim_is_read_by_the_scan() -> None:
    found = scan_status(PLAIN, "sess-a.yml", UTC)
    assert isinstance(found, tuple) and found[:2] == ("sess-a", "closed") and found[2] > 0
    assert claim_identity(parse_claim_bytes(PLAIN), "claims/sess-a.yml", UTC) == found[:2]


@pytest.mark.parametrize("raw", [
    b"sess_id: sess-a\nstatus: closed\n  foo: bar\n",  # a value running on: YAML refuses it
    b"sess_id: sess-a\nstory: \"x\nstatus: closed\"\n",  # the status line is inside a quoted value
    b"sess_id: sess-a\nstatus: open\nstatus: closed\n",  # duplicate key
    b"sess_id: sess-a\nstatus: closed\nresult:\n    status: ok\n  bad: x\n",  # bad indentation
    b"sess_id: sess-a\nstatus: closed\r\n",  # another line break
    b"sess_id: sess-a\nstatus: *alias\n",
    b"<<<<<<< HEAD\nsess_id: sess-a\nstatus: closed\n=======\nstatus: open\n>>>>>>> other\n",
    b"sess_id: sess-a\nstatus: closed\nh: {a: [b}\n",
    b"\"status\": closed\nsess_id: sess-a\n",
    b"sess_id: sess-a\n",  # no status: the parse decides from closed_at
])
def test_anything_not_plain_is_left_to_the_parse(raw: bytes) -> None:
    assert scan_status(raw, "sess-a.yml", UTC) == UNDECIDED


def test_undecided_files_are_parsed_and_corrupt_ones_are_never_terminal() -> None:
    conflict = b"<<<<<<< HEAD\nsess_id: sess-a\nstatus: closed\n=======\nstatus: open\n>>>>>>> other\n"
    assert terminal_of(conflict, "sess-a.yml", UTC) is None
    assert terminal_of(b"sess_id: sess-a\nstatus: open\n", "sess-a.yml", UTC) is None
    legacy = b"sess_id: sess-a\nscope: x/\nclosed_at: '2026-11-29T10:00:00+00:00'\n"
    found = terminal_of(legacy, "sess-a.yml", UTC)
    assert found is not None and found[:2] == ("sess-a", "closed")


def test_the_scan_agrees_with_the_parse_on_the_fixture_claims() -> None:
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    checked = 0
    for path in fixtures.rglob("claims/*.y*ml"):
        raw = path.read_bytes()
        scanned = scan_status(raw, path.name, UTC)
        if not isinstance(scanned, tuple):
            continue
        checked += 1
        assert claim_identity(parse_claim_bytes(raw), f"claims/{path.name}", UTC) == scanned[:2], path
    assert checked >= 3
