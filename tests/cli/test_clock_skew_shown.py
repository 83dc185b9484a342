"""A claim opened more than 5 minutes in the future is shown with a `clock-skew` flag (SPEC 3), in text too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bsi import Run

Bsi = Callable[..., Run]
NOW = "2026-12-06T10:00:00Z"


def _claim(root: Path, sess_id: str, opened_at: str) -> None:
    (root / "claims" / f"{sess_id}.yml").write_text(
        f"sess_id: {sess_id}\nscope: wiki/{sess_id}.md\nstatus: open\nopened_at: {opened_at}\nttl: 2h\n",
        encoding="utf-8")


def test_claim_list_shows_the_clock_skew_flag(brain: Path, bsi: Bsi) -> None:
    _claim(brain, "sess-20261206-1006-ahead", "2026-12-06T10:06:00Z")
    _claim(brain, "sess-20261206-1005-edge", "2026-12-06T10:05:00Z")  # 5 minutes exactly: within tolerance
    listed = bsi("claim", "list", brain=brain, now=NOW)
    assert listed.code == 0, listed.err
    rows = {line.split()[0]: line for line in listed.out.splitlines()[1:]}
    assert "clock-skew" in rows["sess-20261206-1006-ahead"]
    assert "clock-skew" not in rows["sess-20261206-1005-edge"]
