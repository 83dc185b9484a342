"""While the filter box has focus, the selection line names what the keys will act on once the filter is applied.

A filter that hides the selected claim used to leave its ID on the line (the last claim selected); enter then
gave the keys to the table, whose cursor was on another row. The line names the row the table's cursor is on
(one the filter still shows), or nothing when the filter hides every row.
"""

from __future__ import annotations

import pytest

from brain_tui.tui.widgets.claims_table import ActiveClaimsTable
from brain_tui.tui.widgets.satellite_tree import SatelliteTree

from .conftest import DEPLOY, GATED, SEARCH, screen_text, select, settle

pytestmark = pytest.mark.anyio


def _selection_line(app) -> str:  # noqa: ANN001
    return screen_text(app).splitlines()[-2].strip()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_filter_hiding_the_selected_claim_names_the_row_the_keys_will_act_on(
        make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("slash", *"deploy")
        await settle(pilot)
        typing = _selection_line(app)
        assert "api-search" not in typing, typing
        await pilot.press("enter")
        await settle(pilot)
        active = app.screen.query_one("#active", ActiveClaimsTable)
        assert app.focused is active
        key = active.selected_key
        assert key is not None and key != SEARCH and key in active.row_keys
        assert typing.startswith("● " + key) or typing.split(" ", 1)[1].startswith(key), typing
        assert _selection_line(app) == typing


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_filter_hiding_every_claim_names_nothing(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("slash", *"zzzznothing")
        await settle(pilot)
        assert _selection_line(app).startswith("no selection"), _selection_line(app)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.query_one("#active", ActiveClaimsTable).selected_key is None
        assert _selection_line(app).startswith("no selection"), _selection_line(app)


# A filter the pilot types moves a cursor whose row it hides to the first row it shows (where reading starts,
# and the same row whichever line the cursor was on); a row the filter still shows keeps the cursor.

@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_filter_hiding_the_cursor_row_moves_it_to_the_first_matching_row(
        make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        active = app.screen.query_one("#active", ActiveClaimsTable)
        await select(pilot, "#active", DEPLOY)
        assert active.cursor_row >= 3
        await pilot.press("slash", *"api", "enter")
        await settle(pilot)
        assert DEPLOY not in active.row_keys and len(active.row_keys) >= 3
        assert active.cursor_row == 0 and active.selected_key == active.row_keys[0]


async def test_a_filter_still_showing_the_cursor_row_keeps_it(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        active = app.screen.query_one("#active", ActiveClaimsTable)
        await select(pilot, "#active", GATED)
        await pilot.press("slash", *"api", "enter")
        await settle(pilot)
        assert active.selected_key == GATED


async def test_a_filter_hiding_the_tree_cursor_node_moves_it_to_the_first_node(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.screen.query_one("#tree", SatelliteTree)
        await pilot.press("3", "end")
        await settle(pilot)
        assert tree.selected_id == DEPLOY and tree.cursor_line >= 4
        await pilot.press("slash", *"api", "enter")
        await settle(pilot)
        assert DEPLOY not in tree.node_ids and SEARCH in tree.node_ids
        assert app.focused is tree and tree.cursor_line == 0 and tree.selected_id == tree.node_ids[0]
        await pilot.press("escape")  # the filter cleared: the cursor goes back to the node it was on before
        await settle(pilot)
        assert tree.selected_id == DEPLOY
