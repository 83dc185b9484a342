"""Keys delivered in one burst (a fast typist, an SSH connection): each lands where the pilot aimed it."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events

from brain_tui.tui.screens.confirm import SlugConfirmDialog
from brain_tui.tui.screens.detail import DetailScreen

from .conftest import DOMAIN, GATED, PILOT, SEARCH, STALE, fresh, select, settle
from .test_forms import burst

pytestmark = pytest.mark.anyio
SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("after", ["o", "c", "r", "g", "?", "l", "n", "\t"])
async def test_keys_after_q_in_the_same_burst_do_nothing(make_app, size: tuple[int, int], after: str) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await burst(pilot, "q" + after)
    assert app.return_code == 0


@pytest.mark.parametrize("size", SIZES)
async def test_n_pressed_quickly_walks_the_whole_queue(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        assert [item.kind for item in app.queue] == ["gate", "blocked", "stale", "breath"]
        await burst(pilot, "nnn")
        assert app.screen.current_item_key() == app.queue[2].key
        assert app.screen.selected_claim_id() == STALE
        await burst(pilot, "n")  # the newest sprint's breath alert, last: it holds nothing up
        assert app.screen.current_item_key() == app.queue[3].key


@pytest.mark.parametrize("size", SIZES)
async def test_r_right_after_n_onto_a_stale_claim_targets_that_claim(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        assert app.queue[2].sess_id == STALE
        app.screen.query_one("#active").focus()
        await settle(pilot)
        await burst(pilot, "nnnR")
        assert isinstance(app.screen, SlugConfirmDialog)
        assert app.screen.claim.sess_id == STALE
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.focused is app.screen.query_one("#stale")
        assert app.screen.selected_claim_id() == STALE


async def keys_at_once(pilot: Any, *keys: str) -> None:
    """Send named keys (`down`, `enter`) all at once, as an SSH connection delivers a fast typist's."""
    for key in keys:
        event = events.Key(key, key if len(key) == 1 else {"colon": ":", "slash": "/"}.get(key))
        event.set_sender(pilot.app)
        pilot.app._driver.send_message(event)
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("downs", "expected"), [(1, DOMAIN), (2, SEARCH), (3, GATED)])
async def test_enter_right_after_moves_opens_the_row_the_cursor_reached(make_app, size: tuple[int, int],  # noqa: ANN001
                                                                        downs: int, expected: str) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", PILOT)
        await keys_at_once(pilot, *["down"] * downs, "enter")
        assert isinstance(app.screen, DetailScreen)
        assert app.screen.claim is not None and app.screen.claim.sess_id == expected


@pytest.mark.parametrize("size", SIZES)
async def test_enter_right_after_moves_in_the_tree_opens_the_node_the_cursor_reached(make_app,  # noqa: ANN001
                                                                                   size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("3")
        await settle(pilot)
        tree = app.screen.query_one("#tree")
        start = tree.selected_id
        await keys_at_once(pilot, "j", "enter")
        assert isinstance(app.screen, DetailScreen)
        shown = app.screen.claim.sess_id if app.screen.claim is not None else None
        await pilot.press("escape")
        await settle(pilot)
        assert shown is not None and shown != start and shown == tree.selected_id


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("opener", ["colon", "ctrl+p"])
async def test_keys_typed_right_behind_the_palette_key_are_its_search(make_app, size: tuple[int, int],  # noqa: ANN001
                                                                      opener: str) -> None:
    from textual.command import CommandInput

    from brain_tui.tui.palette import BrainPalette

    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", PILOT)
        typed = "api-tests"
        await keys_at_once(pilot, opener, *typed)
        assert isinstance(app.screen, BrainPalette)
        assert app.screen.query_one(CommandInput).value == typed
        assert app.screen.focused is app.screen.query_one(CommandInput)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.selected_claim_id() == PILOT  # none of the letters acted on the cockpit


async def test_a_colon_typed_in_the_filter_box_is_its_text(make_app) -> None:  # noqa: ANN001
    from textual.widgets import Input

    from brain_tui.tui.screens.cockpit import CockpitScreen

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await keys_at_once(pilot, "slash", "a", "colon", "b")
        assert isinstance(app.screen, CockpitScreen)
        assert app.screen.query_one("#filter", Input).value == "a:b"


@pytest.mark.parametrize("size", SIZES)
async def test_enter_right_behind_ack_acknowledges_the_row_the_cursor_reached(make_app, demo_root,  # noqa: ANN001
                                                                               size: tuple[int, int]) -> None:
    """`j j K enter` in one burst: K asks about the third signal, and the enter behind it is the dialog's
    (never the cockpit's detail, opened over the dialog)."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("2")
        await settle(pilot)
        table = app.screen.query_one("#signals")
        aimed = table.row_keys[2]
        await keys_at_once(pilot, "j", "j", "K", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, DetailScreen), type(app.screen).__name__
    states = {s.sig_id: s.state for s in fresh(demo_root).snapshot().signals}
    assert states[aimed] == "delivered"
    assert sum(1 for s in states.values() if s == "pending") == 3
