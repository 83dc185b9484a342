"""The History pane in the wide layout gets the bottom band's whole width (the environment gives way while it shows).

At 120 columns `7` put History in the breath pane's narrow slot (28–38 columns): the ID and a few characters of scope
showed, the story and the end time were cut off.
"""

from __future__ import annotations

import pytest

from .conftest import screen_text, settle

pytestmark = pytest.mark.anyio


async def test_history_at_120_columns_shows_its_story_and_end(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("7")
        await settle(pilot)
        screen = app.screen
        pane = screen.query_one("#pane-history")
        assert pane.display and pane.region.width == 120
        assert not screen.query_one("#pane-env").display  # it gives History its columns…
        assert screen.query_one("#pane-claims").region.height > 0  # … the claims stay on screen
        columns = [key for key, _ in screen.query_one("#history")._shown]
        assert {"id", "scope", "when", "result", "story"} <= set(columns)
        row = next(line for line in screen_text(app).splitlines() if "0840-engine-docs" in line and "✓" in line
                   and "Docstrings" in line)
        assert "brain-engine/search.py" in row or "search.py" in row
        await pilot.press("4")  # the environment comes back, with the breath pane beside it
        await settle(pilot)
        assert screen.query_one("#pane-env").display and screen.query_one("#pane-breath").display
        assert not screen.query_one("#pane-history").display
