"""The recent window of a snapshot (`closed_since`): finished claims that ended before it are never built."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain_tui.core.config import BrainConfig
from brain_tui.core.records.model import BLOCKING_STATUSES
from brain_tui.core.records.store import BrainStore

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def claim_text(sess_id: str, status: str, closed_at: datetime | None = None, parent: str | None = None) -> str:
    """A claim file; finished ones carry `closed_at`."""
    lines = [f"sess_id: {sess_id}", "type: satellite" if parent else "type: solo", "instance: prod@laptop",
             "scope: wiki/", f"status: {status}", "opened_at: '2025-01-01T09:00:00+00:00'",
             "expires_at: '2026-11-29T11:00:00+00:00'"]
    if closed_at is not None:
        lines.append(f"closed_at: '{closed_at.isoformat()}'")
    if parent:
        lines.append(f"parent_satellite: {parent}")
    return "\n".join(lines) + "\n"


def windowed_brain(root: Path, old: int = 30) -> Path:
    """One open claim, one closed two days ago, and `old` closed a year ago."""
    claims = root / "claims"
    claims.mkdir(parents=True)
    (claims / "sess-20261129-0900-live.yml").write_text(claim_text("sess-20261129-0900-live", "open"))
    recent = "sess-20261120-0900-recent"
    (claims / f"{recent}.yml").write_text(claim_text(recent, "closed", NOW - timedelta(days=2)))
    for n in range(old):
        sess_id = f"sess-20251101-{n // 60:02d}{n % 60:02d}-old{n}"
        (claims / f"{sess_id}.yml").write_text(claim_text(sess_id, "failed" if n % 3 else "closed",
                                                          NOW - timedelta(days=365)))
    return root



def test_the_window_keeps_live_and_recent_and_builds_no_old_claim(tmp_path: Path, built: list[str]) -> None:
    root = windowed_brain(tmp_path)
    BrainStore(root, UTC, BrainConfig()).snapshot(NOW)  # warm the parse cache (hints), as a previous run did
    built.clear()
    snap = BrainStore(root, UTC, BrainConfig()).snapshot(NOW, only_statuses=BLOCKING_STATUSES,
                                                         closed_since=NOW - timedelta(days=30))
    assert sorted(c.sess_id for c in snap.claims) == ["sess-20261120-0900-recent", "sess-20261129-0900-live"]
    assert not [rel for rel in built if "-old" in rel]


def test_without_only_statuses_the_window_keeps_every_unfinished_claim(tmp_path: Path) -> None:
    root = windowed_brain(tmp_path, old=3)
    (root / "claims" / "sess-20261129-0901-paused.yml").write_text(claim_text("sess-20261129-0901-paused", "paused"))
    snap = BrainStore(root, UTC, BrainConfig()).snapshot(NOW, closed_since=NOW - timedelta(days=30))
    assert sorted(c.sess_id for c in snap.claims) == [
        "sess-20261120-0900-recent", "sess-20261129-0900-live", "sess-20261129-0901-paused"]
