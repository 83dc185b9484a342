"""A BLOCKED_ON whose sender has since finished (aborted, closed, released) blocks nothing: not listed as blocked."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.screens.queue import QueueScreen

from .conftest import SEARCH, fresh, screen_text, settle

pytestmark = pytest.mark.anyio


async def test_a_blocked_on_from_an_aborted_claim_is_not_listed_as_blocked(make_app, demo_root: Path) -> None:  # noqa: ANN001
    blocked = [s for s in fresh(demo_root).snapshot().signals if s.type == "BLOCKED_ON" and s.sender == SEARCH]
    assert blocked and blocked[0].state == "pending", "the demo's api-search waits on its domain"
    fresh(demo_root).gates.abort(SEARCH, "superseded")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.brain.attention() and all(item.kind != "blocked" for item in app.brain.attention())
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        assert "blocked" not in screen_text(app).lower()
        assert blocked[0].sig_id not in app.screen.query_one("#gate-table").row_keys
