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


@pytest.mark.parametrize(("opener", "typed"), [("colon", "api-tests"), ("ctrl+p", "theme")])
async def test_an_enter_typed_before_the_palette_key_never_chooses_in_it(make_app, opener: str,  # noqa: ANN001
                                                                        typed: str) -> None:
    """`enter : api-tests` in one burst: the palette opens on a priority key, after the enter (the cockpit's, its
    detail waiting behind the keys before it); that enter is never the palette's, which waits for its own."""
    from brain_tui.tui.palette import BrainPalette

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", PILOT)
        theme = app.theme
        await keys_at_once(pilot, "enter", opener, *typed)
        await settle(pilot)
        assert isinstance(app.screen, BrainPalette), type(app.screen).__name__
        assert app.screen.query_one(CommandInput).value == typed
        assert app.theme == theme
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.selected_claim_id() == PILOT
