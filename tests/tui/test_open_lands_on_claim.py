"""After `o` and a submit, the cursor lands on the claim just opened: `enter`, `c`, `p` act on what the pilot made.

It stayed on the row selected before the form, so the next key acted on another claim.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from brain_tui.tui.screens.claim_form import OpenClaimScreen

from .conftest import SEARCH, fresh, select, settle

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_the_cursor_lands_on_the_claim_just_opened(  # noqa: ANN001
        make_app, demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("o")
        form = app.screen
        assert isinstance(form, OpenClaimScreen)
        form.query_one("#scope", Input).value = "wiki/"
        form.query_one("#story", Input).value = "Rewrite the glossary"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, OpenClaimScreen)
        opened = next(c.sess_id for c in fresh(demo_root).snapshot().claims
                      if c.scope_text == "wiki/" and c.status == "open")
        table = app.screen.query_one("#active")
        assert table.selected_key == opened
        assert app.focused is table
        assert app.screen.selected_claim_id() == opened  # what the other panes and the keys follow
        assert opened.split("-", 3)[3] in str(app.screen.query_one("#selection").render())  # the selection line


async def test_a_refresh_after_landing_leaves_the_cursor_where_the_pilot_puts_it(  # noqa: ANN001
        make_app, demo_root: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("o")
        form = app.screen
        form.query_one("#scope", Input).value = "wiki/"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await select(pilot, "#active", SEARCH)
        app.refresh_snapshot()
        await settle(pilot)
        assert app.screen.query_one("#active").selected_key == SEARCH
