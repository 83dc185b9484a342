"""Sorting a table (`>`, `<`, a click on a header) keeps the cursor on the row it was on: the next key acts on
the claim the pilot chose, wherever the sort put it."""

from __future__ import annotations

import pytest

from brain_tui.tui.screens.close_form import CloseClaimScreen

from .conftest import DEPLOY, SEARCH, select, settle

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_sorting_keeps_the_cursor_on_the_chosen_claim(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", DEPLOY)
        table = app.screen.query_one("#active")
        for key in ("greater_than_sign", "greater_than_sign", "less_than_sign", "greater_than_sign"):
            before = table.row_keys.index(DEPLOY)
            await pilot.press(key)
            await settle(pilot)
            assert table.selected_key == DEPLOY, (key, table.sort_column, before, table.row_keys)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CloseClaimScreen)
        assert app.screen.claim.sess_id == DEPLOY


async def test_a_header_click_keeps_the_cursor_on_the_chosen_claim(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", SEARCH)
        table = app.screen.query_one("#active")
        table.sort_by("ttl", reverse=True)
        await settle(pilot)
        assert table.row_keys[-1] == SEARCH  # 20m left, the least: last
        assert table.selected_key == SEARCH
