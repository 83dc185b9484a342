"""Keys typed right after `/`, in the same burst (a fast typist, a paste, an SSH connection), are the filter's text.

The filter box used to take the focus a message later than the keys already queued behind `/`: `/pi` reached the
claims table as `p` (the pause dialog) and `i`, so a fast `/pi` then enter could pause the selected claim.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual.widgets import Input

from brain_tui.tui.screens.cockpit import CockpitScreen

from .conftest import SEARCH, select, settle, status

pytestmark = pytest.mark.anyio


async def burst(pilot: Any, keys: list[tuple[str, str | None]]) -> None:
    """Send keys all at once, with no pause between them."""
    app = pilot.app
    for key, char in keys:
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)
    await settle(pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_letters_right_after_slash_are_the_filters_text_never_keys_of_the_table(
        make_app, demo_root, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await burst(pilot, [("slash", "/"), *[(ch, ch) for ch in "pi"], ("enter", "\r")])
        assert isinstance(app.screen, CockpitScreen), type(app.screen).__name__
        assert app.screen.query_one("#filter", Input).value == "pi"
        assert app.screen.needle == "pi"
        assert status(demo_root, SEARCH) == "open"


async def test_a_slash_typed_in_the_filter_is_its_text(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await burst(pilot, [("slash", "/"), *[(ch, ch) for ch in "api"], ("slash", "/"), ("s", "s")])
        box = app.screen.query_one("#filter", Input)
        assert box.value == "api/s" and box.has_focus
        await pilot.press("enter", "slash", "x")
        await settle(pilot)
        assert box.value == "x" and box.has_focus  # `/` from the table gives the box back, its old text selected
