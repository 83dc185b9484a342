"""What a gate says and when it was raised, read once in core/rules/attention.py for the queue and the gate screen."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from brain_tui.core.records.model import Claim
from brain_tui.core.rules.attention import gate_message, gate_raised_at

OPENED = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def _claim(data: Mapping[str, Any]) -> Claim:
    return Claim("sess-20261129-0900-gate", "claims/sess-20261129-0900-gate.yml", data, (), "src/", "waiting_human",
                 "satellite", "t@test", "story", OPENED, None, None, None, "code", "leaf")


HISTORY = [
    {"ts": "2026-11-29T09:30:00+00:00", "event": "HUMAN_GATE", "by": "sess-x", "message": "first gate"},
    {"ts": "2026-11-29T09:40:00+00:00", "event": "APPROVED", "by": "Ada", "message": "ok"},
    "not a mapping",
    {"ts": "2026-11-29T10:00:00+00:00", "event": "human_gate", "by": "sess-x", "message": "second gate"},
    {"ts": "2026-11-29T10:05:00+00:00", "event": "PAUSED", "by": "Ada", "message": ""},
]


def test_raised_at_is_the_last_human_gate_event() -> None:
    assert gate_raised_at(_claim({"gate_history": HISTORY}), UTC) == datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def test_raised_at_skips_an_unreadable_timestamp_and_falls_back_to_the_opening() -> None:
    bad = [{"ts": "yesterday", "event": "HUMAN_GATE"}]
    assert gate_raised_at(_claim({"gate_history": bad}), UTC) == OPENED
    assert gate_raised_at(_claim({"gate_history": "junk"}), UTC) == OPENED


def test_message_is_gate_message_else_the_last_human_gate_event() -> None:
    assert gate_message(_claim({"gate_message": "deploy?", "gate_history": HISTORY})) == "deploy?"
    assert gate_message(_claim({"gate_history": HISTORY})) == "second gate"
    assert gate_message(_claim({})) == ""
