"""A legacy naive time read in a brain timezone with daylight saving (SPEC 3, 6.4): the TTL is a duration,
so a claim opened shortly before a clock change still lasts its TTL — not an hour less or more."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.clock import parse_timestamp, zone_from_name
from tests.rules.facade import at

PARIS = "Europe/Paris"


@pytest.mark.parametrize("opened", [
    "2026-03-29T01:30",  # CET; clocks go 02:00 → 03:00 within the TTL (spring forward)
    "2026-10-25T01:30",  # CEST; clocks go 03:00 → 02:00 within the TTL (fall back)
    "2026-11-29T09:00",  # no change: the control
])
def test_a_legacy_claims_ttl_is_a_duration_across_a_clock_change(brain: Path, opened: str) -> None:
    (brain / "brain-compose.yml").write_text(f"timezone: {PARIS}\n", encoding="utf-8")
    (brain / "claims" / "sess-20260101-0000-dst.yml").write_text(
        f'sess_id: sess-20260101-0000-dst\nstatus: open\nscope: a/\nopened_at: "{opened}"\n', encoding="utf-8")
    (claim,) = at(brain, "2026-03-29T00:00:00Z").snapshot().claims
    assert claim.opened_at is not None and claim.expires_at is not None
    assert claim.expires_at - claim.opened_at == timedelta(hours=2)
    assert (claim.expires_at.timestamp() - claim.opened_at.timestamp()) == 2 * 3600


def test_naive_time_plus_a_duration_is_absolute_time() -> None:
    start = parse_timestamp("2026-03-29T01:30", zone_from_name(PARIS))
    assert (start + timedelta(hours=2)).timestamp() - start.timestamp() == 2 * 3600
    assert start.isoformat() == "2026-03-29T01:30:00+01:00"
