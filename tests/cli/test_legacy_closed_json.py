"""`--json` gives a claim's times as instants with their UTC offset (SPEC 3, 19): the closing time of a legacy
claim too (a naive `closed_at`, or the v1 `closed:`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bsi import Run

Bsi = Callable[..., Run]


def test_legacy_closing_times_carry_their_offset(legacy_brain: Path, bsi: Bsi) -> None:
    run = bsi("--json", "claim", "list", "--all", brain=legacy_brain, now="2026-03-17T12:00:00Z")
    assert run.code == 0, run.err
    claims = {c["sess_id"]: c for c in run.json()["claims"]}
    assert claims["sess-init-cold-start"]["closed_at"] == "2026-01-01T00:01:00+00:00"
    assert claims["sess-20260315-0200-quick-wins"]["closed_at"] == "2026-03-15T03:10:00+00:00"
