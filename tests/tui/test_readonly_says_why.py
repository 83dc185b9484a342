"""With --readonly an action key says why it does nothing: the footer hides the actions, but a pilot who types
`o`, `c` or `a` from habit is told the cockpit is read-only, never left with a key that does nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.commands import COMMANDS

from .conftest import GATED, settle, status

pytestmark = pytest.mark.anyio

READONLY_WORD = "read-only: actions are disabled (--readonly)"


async def test_each_action_key_says_the_cockpit_is_read_only(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app(readonly=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for command in (c for c in COMMANDS if c.mutating):
            app.clear_notifications()
            await pilot.press(command.key)
            await settle(pilot)
            told = [n.message for n in app._notifications]
            assert told == [READONLY_WORD], (command.key, told)
    assert status(demo_root, GATED) == "waiting_human"


async def test_the_filter_still_takes_those_letters(make_app) -> None:  # noqa: ANN001
    app = make_app(readonly=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "o", "c", "a")
        await settle(pilot)
        assert app.screen.query_one("#filter").value == "oca"
        assert not list(app._notifications)


async def test_an_action_key_is_silent_nowhere_but_read_only(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        app.clear_notifications()
        await pilot.press("o")
        await settle(pilot)
        assert READONLY_WORD not in [n.message for n in app._notifications]
