"""`bsi claim list`: the TTL column counts down as the cockpit and `bsi attention` do, never ``0m`` nor ``-0m``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi

OPENED = "2026-11-29T09:00:00Z"  # a 90m claim: it expires at 10:30


@pytest.mark.parametrize(("now", "shown"), [("2026-11-29T10:29:30Z", "1m"), ("2026-11-29T10:30:00Z", "-1m"),
                                            ("2026-11-29T10:30:30Z", "-1m"), ("2026-11-29T10:31:10Z", "-1m"),
                                            ("2026-11-29T10:28:10Z", "2m")])
def test_the_last_minute_reads_1m_and_just_after_minus_1m(brain: Path, now: str, shown: str) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "cd/", "--ttl", "90m", brain=brain, now=OPENED))
    row = next(line for line in ok(run_bsi("claim", "list", brain=brain, now=now)).splitlines() if sess in line)
    assert row.split()[4] == shown, row
