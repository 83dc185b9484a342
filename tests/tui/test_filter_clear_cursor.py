"""Clearing a filter puts the cursor back on the row it was on before the filter, when that row is still there.

The filter moves a cursor whose row it hides to the first row it shows; clearing it used to leave the cursor
there, so esc after a glance at a filter lost the row the pilot was on. A row the pilot chose while the filter
was on keeps the cursor.
"""

from __future__ import annotations

import pytest

from brain_tui.tui.widgets.claims_table import ActiveClaimsTable
from brain_tui.tui.widgets.satellite_tree import SatelliteTree

from .conftest import DEPLOY, GATED, SEARCH, select, settle

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("keys", [("enter", "escape"), ("escape",)])
async def test_clearing_a_filter_brings_the_table_cursor_back(
        make_app, size: tuple[int, int], keys: tuple[str, ...]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        active = app.screen.query_one("#active", ActiveClaimsTable)
        await select(pilot, "#active", DEPLOY)
        await pilot.press("slash", *"api")
        await settle(pilot)
        assert DEPLOY not in active.row_keys and active.selected_key != DEPLOY
        await pilot.press(*keys)  # cleared from the table (enter, then esc) or from the box itself
        await settle(pilot)
        assert DEPLOY in active.row_keys and active.selected_key == DEPLOY
        assert app.focused is active


async def test_a_row_chosen_under_the_filter_keeps_the_cursor(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        active = app.screen.query_one("#active", ActiveClaimsTable)
        await select(pilot, "#active", DEPLOY)
        await pilot.press("slash", *"api", "enter")
        await settle(pilot)
        while active.selected_key != GATED:
            await pilot.press("j")
        await pilot.press("escape")
        await settle(pilot)
        assert active.selected_key == GATED


async def test_clearing_a_filter_brings_the_tree_cursor_back(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        tree = app.screen.query_one("#tree", SatelliteTree)
        await pilot.press("3", "end")
        await settle(pilot)
        assert tree.selected_id == DEPLOY
        await pilot.press("slash", *"search", "enter")
        await settle(pilot)
        assert DEPLOY not in tree.node_ids and tree.selected_id != DEPLOY
        await pilot.press("escape")
        await settle(pilot)
        assert tree.selected_id == DEPLOY and app.focused is tree
        assert SEARCH in tree.node_ids
