"""The selection line follows the locks pane: the lock under its cursor, its holder and expiry (SPEC 9)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain

from .conftest import NOW, SEARCH, screen_text, settle

pytestmark = pytest.mark.anyio

FILE = "brain-engine/api/routes.py"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_selection_line_names_the_highlighted_lock(  # noqa: ANN001
        make_app, demo_root: Path, size: tuple[int, int]) -> None:
    Brain(demo_root, clock=lambda: NOW).locks.acquire(FILE, SEARCH, 30)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        table = app.screen.query_one("#locks")
        assert app.focused is table and table.selected_key is not None
        text = screen_text(app)
        assert "no selection" not in text
        assert f"lock {FILE} · 0820-api-search · expires in 30m · gen 1" in text


async def test_an_expired_lock_says_how_it_goes(make_app, demo_root: Path, clock) -> None:  # noqa: ANN001
    Brain(demo_root, clock=lambda: NOW - timedelta(hours=2)).locks.acquire(FILE, SEARCH, 30)
    assert f"lock {FILE} · 0820-api-search · expired 1h30m ago · gen 1 · `bsi lock cleanup` removes it" in \
        await _locks_pane_text(make_app)


async def test_the_lock_of_an_ended_claim_says_how_it_goes(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """Its holder closed: the lock holds nothing though unexpired, and `bsi lock cleanup` removes it."""
    from brain_tui.core.rules.claims import CloseRequest

    brain = Brain(demo_root, clock=lambda: NOW)
    brain.locks.acquire(FILE, SEARCH, 30)
    brain.close_claim(SEARCH, CloseRequest(status="ok", tests_total=1, tests_passed=1, tests_failed=0))
    text = await _locks_pane_text(make_app)
    assert (f"lock {FILE} · 0820-api-search · expires in 30m · gen 1 · holds nothing: its claim is closed · "
            "`bsi lock cleanup` removes it") in text
    # its row says it is free, as `bsi lock list` does ("free (closed)"), not a countdown beside its holder
    row = next(line for line in text.splitlines() if "routes.py" in line and " lock " not in line)
    assert " free " in row and "in 30m" not in row, row


async def _locks_pane_text(make_app) -> str:  # noqa: ANN001
    """The cockpit's screen at 160x45 with the locks pane shown (its first lock selected)."""
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        return screen_text(app)
