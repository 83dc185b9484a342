"""A pane that hides itself (the stale pane once its last claim is released) does not keep the keyboard.

Releasing the last stale claim hides the stale pane; the keys the pilot types next act on what the screen
shows (the active claims), never on the released claim in a table no longer on screen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.screens.close_form import CloseClaimScreen
from brain_tui.tui.widgets.claims_table import ActiveClaimsTable

from .conftest import STALE, select, settle, status

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_releasing_the_last_stale_claim_gives_the_keys_to_the_active_claims(
        make_app, demo_root: Path, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#stale", STALE)
        await pilot.press("R", *"gone", "enter", *"notes-wrap", "enter")
        await settle(pilot)
        assert status(demo_root, STALE) == "released"
        assert not app.screen.query_one("#pane-stale").display
        active = app.screen.query_one("#active", ActiveClaimsTable)
        assert app.focused is active
        before = active.cursor_row
        await pilot.press("down")
        assert active.cursor_row == before + 1
        await pilot.press("c")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, CloseClaimScreen)
        assert form.claim.sess_id == active.selected_key != STALE
