"""An approval at the edge of a claim's 8 h says the status every rule then reads (SPEC 6.3, 6.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.records.statuses import Status
from brain_tui.core.rules.effective import effective_status
from tests.rules.facade import at, open_in


@pytest.mark.parametrize(("approved_at", "in_force"), [
    ("2026-11-29T17:59:30Z", Status.OPEN),  # within opening + 8 h
    ("2026-11-29T18:00:00Z", Status.STALE),  # at opening + 8 h: stale for every rule (SPEC 6.3, 6.4)
])
def test_an_approval_past_eight_hours_names_the_status_in_force(brain: Path, approved_at: str,
                                                                  in_force: Status) -> None:
    sess = open_in(brain, "src/", ttl="8h", now="2026-11-29T10:00:00Z")
    at(brain, "2026-11-29T17:59:00Z").gates.request(sess, "deploy?")
    facade = at(brain, approved_at)
    out = facade.gates.approve(sess, "ok", by="human:alice")
    claim = facade.snapshot().claim(sess)
    assert claim is not None
    assert out.status == effective_status(claim, facade.snapshot().now) == in_force
