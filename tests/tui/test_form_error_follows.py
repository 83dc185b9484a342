"""A form's refusal speaks of what was submitted: once the pilot edits a field, it goes away.

After `claim refused: … conflicts with …` the pilot changes the scope; the live preview says "no conflict"
and the old refusal must not stay beside it, contradicting it.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from brain_tui.tui.screens.agent_pane import AnswerDialog
from brain_tui.tui.screens.claim_form import OpenClaimScreen
from brain_tui.tui.screens.close_form import CloseClaimScreen

from .conftest import DEPLOY, SEARCH, select, settle

pytestmark = pytest.mark.anyio


async def test_editing_the_scope_clears_the_old_refusal(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o", *"brain-engine/api/routes.py", "ctrl+s")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, OpenClaimScreen)
        error = form.query_one("#error", Static)
        assert error.display and "claim refused" in str(error.render())
        await pilot.press("ctrl+u", *"wiki/new.md")
        assert "no conflict" in str(form.query_one("#preview").render())
        assert not error.display


async def test_editing_the_test_counts_clears_the_old_refusal(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("c", "5", "tab", "3", "tab", "2", "ctrl+s")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, CloseClaimScreen)
        error = form.query_one("#error", Static)
        assert error.display and "tests red" in str(error.render())
        form.query_one("#tests-failed", Input).focus()
        await pilot.press("backspace", "0")
        assert not error.display


async def test_typing_a_reply_clears_the_empty_reply_refusal(make_app) -> None:  # noqa: ANN001
    # The write-to-agent dialog kept "the reply is empty" under the reply being typed.
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        claim = app.snapshot.claim(DEPLOY)
        assert claim is not None
        app.push_screen(AnswerDialog(claim))
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, AnswerDialog)
        error = dialog.query_one("#error", Static)
        assert error.display and "the reply is empty" in str(error.render())
        await pilot.press("o", "k")
        assert dialog.query_one("#reply", Input).value == "ok"
        assert not error.display
