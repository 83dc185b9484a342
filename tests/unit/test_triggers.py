"""The HANDOFF payload read by the exit-trigger parser: one rule for the close, `bsi launch` and the cockpit."""

from __future__ import annotations

from datetime import datetime

import pytest

from brain_tui.core.records.model import Signal
from brain_tui.core.rules.triggers import handoff_task


def _signal(payload: str, sig_type: str = "HANDOFF") -> Signal:
    return Signal("sig-20260316-001", "signals/s.yml", {}, "sess-20260316-2000-api", "sess-20260316-1900-pilot",
                  sig_type, "tests/", payload, "pending", datetime(2026, 3, 16, 21, 0), None)


@pytest.mark.parametrize("payload, expected", [
    # what `run_trigger` writes for `trigger → type:test scope:tests/`
    ("launch type:test scope:tests/ — after sess-20260316-2000-api", ("test", "tests/")),
    ("type: code  scope: src/api/", ("code", "src/api/")),
    ("scope:docs/ type:doc", ("doc", "docs/")),
    ("type:test scope:tests/  # a comment", ("test", "tests/")),
])
def test_handoff_task_reads_type_and_scope(payload: str, expected: tuple[str, str]) -> None:
    assert handoff_task(_signal(payload)) == expected


@pytest.mark.parametrize("payload", ["", "please look at the api", "type:test only", "scope:tests/ only"])
def test_handoff_task_none_without_both_fields(payload: str) -> None:
    assert handoff_task(_signal(payload)) is None


def test_handoff_task_none_for_another_signal_type() -> None:
    assert handoff_task(_signal("launch type:test scope:tests/", sig_type="INFO")) is None
