"""Keys typed right after `:` (or ctrl+p) in the same burst (a fast typist, an SSH connection) are the palette's
query, never keys of the cockpit below it.

`:sat` typed at once used to reach the table as `s` (sync), `a` (approve) and `t` (the next theme), and an enter
behind them opened the detail of the row under the cursor instead of jumping.
"""

from __future__ import annotations

import pytest
from textual.command import CommandInput, CommandPalette

from brain_tui.tui.screens.cockpit import CockpitScreen
from brain_tui.tui.screens.detail import DetailScreen

from .conftest import GATED, PILOT, select, settle
from .test_key_bursts import keys_at_once

pytestmark = pytest.mark.anyio
SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES)
async def test_letters_right_after_colon_are_the_palettes_query(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", PILOT)
        theme = app.theme
        await keys_at_once(pilot, "colon", *"tests")
        assert CommandPalette.is_open(app)
        assert app.theme == theme
        assert app.screen.query_one(CommandInput).value == "tests"


@pytest.mark.parametrize("size", SIZES)
async def test_enter_right_after_the_query_jumps_to_the_claim_it_found(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", PILOT)
        await keys_at_once(pilot, "colon", *"api-tests", "enter")
        await settle(pilot)
        assert not CommandPalette.is_open(app)
        assert isinstance(app.screen, CockpitScreen), type(app.screen).__name__
        assert not isinstance(app.screen, DetailScreen)
        assert app.screen.query_one("#active").selected_key == GATED
