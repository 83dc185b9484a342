"""While the filter box has focus, the selection line names what the keys will act on once the filter is applied.

A filter that hides the selected claim used to leave its ID on the line (the last claim selected); enter then
gave the keys to the table, whose cursor was on another row. The line names the row the table's cursor is on
(one the filter still shows), or nothing when the filter hides every row.
"""

from __future__ import annotations

import pytest

from brain_tui.tui.widgets.claims_table import ActiveClaimsTable

from .conftest import SEARCH, screen_text, select, settle

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
