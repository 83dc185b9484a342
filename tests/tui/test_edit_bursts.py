"""A typo corrected in one burst of keys (a fast typist, an SSH connection that delivers keys together): the
editing keys act where and when they were typed, before the characters that follow them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input

from brain_tui.tui.screens.close_form import CloseClaimScreen
from brain_tui.tui.screens.confirm import CascadeDialog, SlugConfirmDialog

from .conftest import SEARCH, STALE, fresh, select, settle, status

pytestmark = pytest.mark.anyio

#: The keys of a burst that are not characters: backspace, tab, enter and the arrows.
NAMED = {"\x7f": ("backspace", "\x7f"), "\t": ("tab", None), "\r": ("enter", "\r"), "←": ("left", None),
         "→": ("right", None)}


async def edit_burst(pilot: Any, keys: str) -> None:
    """Send keys all at once, no pause between (as `test_forms.burst`), editing keys included."""
    app = pilot.app
    for ch in keys:
        key, char = NAMED.get(ch, (ch, ch))
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)
    await settle(pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_count_corrected_in_one_burst_is_the_corrected_count(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("c")
        assert isinstance(app.screen, CloseClaimScreen)
        await edit_burst(pilot, "12\t11\x7f2\t1\x7f0")
        values = [app.screen.query_one(f"#{name}", Input).value for name in ("tests-total", "tests-passed",
                                                                              "tests-failed")]
        assert values == ["12", "12", "0"]


async def test_a_slug_corrected_in_one_burst_confirms_the_release(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#stale", STALE)
        await pilot.press("R")
        dialog = app.screen
        assert isinstance(dialog, SlugConfirmDialog)
        slug = dialog.claim.slug
        await edit_burst(pilot, "gone\t" + slug[:-1] + "x\x7f" + slug[-1])
        assert dialog.query_one("#reason", Input).value == "gone"
        assert dialog.query_one("#slug", Input).value == slug
        await edit_burst(pilot, "←←Z→→")  # the cursor moves before the Z lands, and back to the end
        assert dialog.query_one("#slug", Input).value == slug[:-2] + "Z" + slug[-2:]


async def test_a_filter_corrected_in_one_burst_filters_by_the_corrected_text(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash")
        box = app.screen.query_one("#filter", Input)
        assert app.screen.focused is box
        await edit_burst(pilot, "dex\x7fpl")
        assert box.value == "depl"
        await edit_burst(pilot, "←←\x7f→→oy")  # the arrows and a backspace inside the text
        assert box.value == "dploy"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_enter_between_reason_and_slug_moves_on_before_the_slug_lands(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#stale", STALE)
        await pilot.press("R")
        dialog = app.screen
        assert isinstance(dialog, SlugConfirmDialog)
        slug = dialog.claim.slug
        await edit_burst(pilot, "gone\r" + slug)
        assert dialog.query_one("#reason", Input).value == "gone"
        assert dialog.query_one("#slug", Input).value == slug


async def test_enter_between_counts_moves_on_before_the_next_count_lands(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("c")
        assert isinstance(app.screen, CloseClaimScreen)
        await edit_burst(pilot, "12\r12\r0")
        values = [app.screen.query_one(f"#{name}", Input).value for name in ("tests-total", "tests-passed",
                                                                              "tests-failed")]
        assert values == ["12", "12", "0"]


async def test_a_pause_message_then_enter_twice_in_one_burst_pauses_with_that_message(  # noqa: ANN001
        make_app, demo_root: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("p")
        assert isinstance(app.screen, CascadeDialog)
        await edit_burst(pilot, "\twhy\r\r")  # tab to the message, type it, enter: the button; enter: pause
        await settle(pilot)
    assert status(demo_root, SEARCH) == "paused"
    claim = fresh(demo_root).snapshot().claim(SEARCH)
    assert claim is not None and claim.gate_history[-1].message == "why"
