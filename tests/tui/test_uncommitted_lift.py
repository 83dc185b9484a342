"""The claims pane says when a claim file lifts a hold HEAD still holds (SPEC 22): the status shown is HEAD's."""

from __future__ import annotations

from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.tui.widgets.claims_table import active_rows
from tests.unit.test_closed_set import T0, root

__all__ = ["root"]


def _story(root_dir: Path, sess_id: str) -> tuple[str, str]:
    snapshot = Brain(root_dir, clock=lambda: T0, commit=False, instance="t@test").snapshot()
    cells = dict(active_rows(snapshot, "t"))[sess_id]
    return str(cells["status"]), str(cells["story"])


def test_an_uncommitted_lift_shows_heads_status_and_says_so(root: Path) -> None:
    status, story = _story(root, "sess-live-b")
    assert "lift" not in story
    path = root / "claims" / "sess-live-b.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("status: paused", "status: open"), encoding="utf-8")
    lifted_status, lifted_story = _story(root, "sess-live-b")
    assert lifted_status == status  # still paused: HEAD's
    assert lifted_story.startswith("[lift not committed] ")
