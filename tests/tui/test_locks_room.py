"""The Locks pane in the wide layout takes half the bottom band, not a quarter of it.

At 120 columns `6` put Locks in a slot of 30 columns: a lock's file and holder were cut to a few characters each,
while the environment beside it kept three quarters of the band.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain

from .conftest import NOW, SEARCH, screen_text, settle

pytestmark = pytest.mark.anyio

FILE = "brain-engine/api/routes.py"


async def test_locks_at_120_columns_show_the_file_and_its_holder(  # noqa: ANN001
        make_app, demo_root: Path) -> None:
    Brain(demo_root, clock=lambda: NOW).locks.acquire(FILE, SEARCH, 30)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        locks = app.screen.query_one("#pane-locks")
        assert locks.display and locks.region.width == 60  # the breath pane's place, half the band
        rows = [line for line in screen_text(app).splitlines() if "in 30m" in line and " lock " not in line]
        # the file's folder and name, its holder whole, its expiry (the selection line names the whole path)
        assert any("engine/api/routes.py" in row and "0820-api-search " in row for row in rows), rows
