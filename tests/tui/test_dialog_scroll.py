"""A decision dialog whose details overflow at 80x24 scrolls them from the keyboard.

The gate message, story and result sit in a scrolling box (`#details`) above the message field and the buttons;
on a small terminal what a decision does (``approve → …``, ``reject → …``) and the result can fall below its
fold. Focus opens on the action button and tab goes between the message and that button, so the arrows and
page keys must scroll the details without moving the focus — a keyboard-only pilot reads it all before deciding.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Button, Input

from brain_tui.tui.screens.confirm import GateDecisionDialog

from .conftest import DEPLOY, fresh, screen_text, select, settle, status

pytestmark = pytest.mark.anyio
SMALL = (80, 24)
LONG_GATE = "Deploy " + "z" * 400 + " to prod?"


async def test_page_down_scrolls_the_approve_details_and_keeps_the_focus(make_app, demo_root: Path) -> None:  # noqa: ANN001
    fresh(demo_root).gates.request(DEPLOY, LONG_GATE)
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("a")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, GateDecisionDialog)
        details = dialog.query_one("#details", VerticalScroll)
        assert details.max_scroll_y > 0  # the details overflow at 80x24
        assert "reject →" not in screen_text(app)  # below the fold
        submit = dialog.query_one("#submit", Button)
        assert app.focused is submit
        await pilot.press("pagedown")
        await settle(pilot)
        assert "reject →" in screen_text(app)  # what a rejection does is readable now
        assert app.focused is submit  # still one enter from deciding, nothing decided
        await pilot.press("pagedown")
        await settle(pilot)
        assert details.scroll_y == details.max_scroll_y
        assert isinstance(app.screen, GateDecisionDialog)
        await pilot.press("up")
        await settle(pilot)
        assert details.scroll_y == details.max_scroll_y - 1
    assert status(demo_root, DEPLOY) == "waiting_human"


async def test_the_arrows_scroll_the_details_from_the_message_field(make_app, demo_root: Path) -> None:  # noqa: ANN001
    fresh(demo_root).gates.request(DEPLOY, LONG_GATE)
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("x")  # reject: opens on its reason field
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, GateDecisionDialog)
        message = dialog.query_one("#message", Input)
        assert app.focused is message
        await pilot.press("down", "down", *"no")
        await settle(pilot)
        assert dialog.query_one("#details", VerticalScroll).scroll_y == 2
        assert message.value == "no" and app.focused is message
