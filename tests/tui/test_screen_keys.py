"""Keys of the screens above the cockpit, as the help screen lists them (`esc / q` goes back)."""

from __future__ import annotations

import pytest

from brain_tui.tui.screens.lint import LintScreen

from .conftest import settle

pytestmark = pytest.mark.anyio


async def test_q_on_the_lint_screen_goes_back_and_does_not_quit(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LintScreen)
        await pilot.press("q")
        await settle(pilot)
        assert app.is_running and not app.quitting
        assert not isinstance(app.screen, LintScreen)
