"""Keys of the screens above the cockpit, as the help screen lists them (`esc / q` goes back)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.screens.confirm import CascadeDialog
from brain_tui.tui.screens.lint import LintScreen

from .conftest import DOMAIN, screen_text, select, settle, status

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



async def test_a_dialog_s_answer_arriving_after_the_screens_are_gone_ends_cleanly(make_app, demo_root: Path) -> None:  # noqa: ANN001
    # ctrl+c right after confirming a pause (tmux: p, enter, ctrl+c): the write ran on in its thread and landed;
    # its answer reached `after_dialog` once the screens were gone, and the cockpit ended on a
    # ScreenStackError traceback (exit 1) instead of quietly.
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await select(pilot, "#active", DOMAIN)
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, CascadeDialog)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("ctrl+c")
    assert status(demo_root, DOMAIN) == "paused"
    assert not app.screen_stack
    app.after_dialog(f"paused {DOMAIN} and 2 descendant(s)")  # the answer, late
    app.after_dialog(None)


async def test_a_tick_that_fell_under_a_dialog_is_shown_when_it_closes(make_app, clock) -> None:  # noqa: ANN001
    # The tick is skipped while a modal covers the screen; closing it showed the old clock and TTLs until the
    # next tick, up to 30 s later (a header reading 03:41 at 03:42:55).
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "10:00 UTC" in screen_text(app)
        await pilot.press("question_mark")
        await settle(pilot)
        clock.advance(minutes=30)
        app.tick()  # the timer fires under the help screen
        await pilot.press("escape")
        await settle(pilot)
        text = screen_text(app)
        assert "10:30 UTC" in text and "1h30m" in text
