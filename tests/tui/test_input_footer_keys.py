"""While the filter box (`/`) or the jump palette (`:`) has the keys, the footer says what enter and esc do there
(it showed only "^p palette", or the cockpit's keys, which do nothing while the palette is open)."""

from __future__ import annotations

import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from .conftest import GATED, screen_text, settle

pytestmark = pytest.mark.anyio


def _footer(app) -> str:  # noqa: ANN001
    return screen_text(app).splitlines()[-1]


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_the_filter_box_footer_says_enter_applies_and_esc_clears(  # noqa: ANN001
        make_app, size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("slash")
        await settle(pilot)
        assert isinstance(app.focused, Input)
        footer = _footer(app)
        assert "Apply filter" in footer and "Clear filter" in footer, footer
        await pilot.press("a", "p", "i", "enter")  # enter still applies the filter
        await settle(pilot)
        assert app.screen.needle == "api" and not isinstance(app.focused, Input)
        await pilot.press("slash")
        await pilot.press("escape")  # esc still clears it
        await settle(pilot)
        assert app.screen.needle == "" and not app.screen.query_one("#filter").display


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_the_jump_palette_footer_says_enter_jumps_and_esc_cancels(  # noqa: ANN001
        make_app, size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("colon")
        await settle(pilot)
        assert CommandPalette.is_open(app)
        footer = _footer(app)
        assert "Jump" in footer and "Cancel" in footer, footer
        assert "Open" not in footer and "Close" not in footer, footer  # the cockpit's keys do nothing here
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert not CommandPalette.is_open(app)


async def test_enter_in_the_jump_palette_still_jumps(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("colon", *"api-tests")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert not CommandPalette.is_open(app)
        assert app.screen.query_one("#active").selected_key == GATED and app.focused is app.screen.query_one("#active")


async def test_the_palette_footer_says_choose_after_ctrl_p(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await settle(pilot)
        footer = _footer(app)
        assert "Choose" in footer and "Cancel" in footer and "palette" not in footer, footer
