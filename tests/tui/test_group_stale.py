"""`G` groups the stale claims too, by their agent's state, and a later cockpit starts grouped (issue 21)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.sessions import agents

from .conftest import NOW, STALE, screen_text, settle

pytestmark = pytest.mark.anyio


async def test_the_stale_table_is_grouped_and_kept_across_restarts(make_app, demo_root: Path) -> None:  # noqa: ANN001
    agents.record_binding(demo_root, STALE, "agent-notes", NOW - timedelta(hours=6))
    agents.record_state(demo_root, STALE, "agent-notes", "ended", NOW - timedelta(hours=3))
    app = make_app(remember_theme=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        stale = app.screen.query_one("#stale")
        assert stale.row_keys == [STALE]
        app.screen.query_one("#active").focus()
        await pilot.press("G")
        await settle(pilot)
        assert stale.row_keys == ["group:ended", STALE]
        assert "Stale" in screen_text(app)
    again = make_app(remember_theme=True)
    async with again.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert again.screen.query_one("#stale").row_keys == ["group:ended", STALE]
