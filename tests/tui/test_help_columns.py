"""The help screen's long descriptions wrap under the description column, never back to the key column."""

from __future__ import annotations

import pytest

from brain_tui.tui.screens.help import HelpScreen

from .conftest import screen_text, settle

pytestmark = pytest.mark.anyio

GROUP = "Group the active claims by their agent's state"
#: The key column's width (cockpit.tcss: `.help-table` grid-columns).
KEY_WIDTH = 12


@pytest.mark.parametrize("width", [80, 120])
async def test_a_wrapped_description_lines_up_under_its_column(make_app, width: int) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(width, 80)) as pilot:
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        rows = screen_text(app).splitlines()
        start = next(i for i, row in enumerate(rows) if GROUP in row)
        left = rows[start].index(GROUP)
        follow = rows[start + 1]
        assert rows[start][left - KEY_WIDTH:left].startswith("G"), rows[start]
        assert follow[:left].strip("│▏▕┃█ ") == "" and follow[left] != " ", (rows[start], follow)
