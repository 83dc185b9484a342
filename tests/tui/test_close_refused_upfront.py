"""`c` on a claim the core would not close says why at once, like approve or pause do, instead of opening the
close form (whose submit only then was refused).

In the history pane `c` on a closed claim opened "Close sess-…" with its fields to fill; ctrl+s then said it
"is closed". The core's dry run of the close decides now.
"""

from __future__ import annotations

import pytest

from brain_tui.tui.screens.close_form import CloseClaimScreen
from brain_tui.tui.widgets.history import HistoryTable

from .conftest import GATED, SEARCH, select, settle

pytestmark = pytest.mark.anyio


async def test_c_on_a_closed_claim_is_refused_without_a_form(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("7")
        await settle(pilot)
        history = app.screen.query_one("#history", HistoryTable)
        assert app.focused is history and history.selected_key is not None
        await pilot.press("c")
        await settle(pilot)
        assert not isinstance(app.screen, CloseClaimScreen)
        refusals = [n.message for n in app._notifications if n.title == "refused"]
        assert any("closed" in m for m in refusals), refusals
        assert app.focused is history


async def test_c_at_a_gate_is_refused_and_on_an_open_claim_opens_the_form(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("c")
        await settle(pilot)
        assert not isinstance(app.screen, CloseClaimScreen)
        await select(pilot, "#active", SEARCH)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CloseClaimScreen)
