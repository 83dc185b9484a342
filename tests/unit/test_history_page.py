"""The closed history a page at a time (`brain.audit.history_page`): one page's files read, names in time order."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.core.records.model import BLOCKING_STATUSES

from .test_closed_window import claim_text

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "legacy"


def history_brain(root: Path, finished: int = 120) -> Path:
    """Two open claims and `finished` closed or failed ones, one opened per minute."""
    claims = root / "claims"
    claims.mkdir(parents=True)
    for name in ("sess-20261129-0900-live", "sess-20251201-0000-old-live"):
        (claims / f"{name}.yml").write_text(claim_text(name, "open"))
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for n in range(finished):
        opened = start + timedelta(minutes=n)
        sess_id = f"sess-{opened:%Y%m%d-%H%M}-done{n}"
        (claims / f"{sess_id}.yml").write_text(claim_text(sess_id, "failed" if n % 4 == 0 else "closed",
                                                          opened + timedelta(minutes=5)))
    return root



def test_a_page_reads_at_most_its_own_files(tmp_path: Path, built: list[str]) -> None:
    root = history_brain(tmp_path)
    Brain(root, now=NOW.isoformat(), commit=False).snapshot()  # a previous run left the parse cache warm
    brain = Brain(root, now=NOW.isoformat(), commit=False)
    live = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    built.clear()
    first = brain.audit.history_page(0, 50, snapshot=live)
    assert first.total == 120
    assert len(first.claims) == 50 and len(built) <= 50
    assert first.claims[0].sess_id == "sess-20260101-0159-done119"  # the newest opening first
    built.clear()
    last = brain.audit.history_page(2, 50, snapshot=live)
    assert [c.sess_id for c in last.claims][-1] == "sess-20260101-0000-done0"
    assert len(last.claims) == 20 and len(built) <= 20
    assert all(c.is_terminal for c in (*first.claims, *last.claims))


def test_a_needle_filters_names_before_any_file_is_read(tmp_path: Path, built: list[str]) -> None:
    root = history_brain(tmp_path)
    brain = Brain(root, now=NOW.isoformat(), commit=False)
    live = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    built.clear()
    found = brain.audit.history_page(0, 50, "DONE11", snapshot=live)
    assert sorted(c.sess_id.rsplit("-", 1)[1] for c in found.claims) == [
        "done11", *(f"done11{n}" for n in range(10))]
    assert found.total == 11 and len(built) == 11
    assert brain.audit.history_page_of("sess-20260101-0000-done0", 50, snapshot=live) == 2


def test_legacy_names_are_read_and_non_claims_left_out(tmp_path: Path) -> None:
    root = tmp_path / "brain"
    shutil.copytree(LEGACY, root)
    brain = Brain(root, now=NOW.isoformat(), commit=False)
    full = brain.snapshot()
    expected = sorted(c.sess_id for c in full.claims if c.is_terminal and (root / c.path).is_file())
    page = brain.audit.history_page(0, 50)
    assert sorted(c.sess_id for c in page.claims) == expected
    assert page.total == len(expected)
    assert "sess-init-cold-start" in expected  # claims/init.yml: a name that is no session ID
    assert page.claims[-1].sess_id == "sess-init-cold-start"  # names without an opening time sort oldest
