"""A moment still to come reads "in 17m", never "in 17m ago"; a lock's countdown never reads "0m".

A claim marked stale by a clock that runs ahead (another machine's watchdog, a `bsi --now` in the future) expired
after the cockpit's now: its stale row said ``in 17m ago``. A lock of one minute read ``in 0m`` all its life, then
``0m ago`` and, on the selection line, ``expires 0m ago``.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.tui.widgets.claims_table import StaleClaimsTable
from brain_tui.tui.widgets.history import LocksTable, lock_line

from .conftest import INSTANCE, NOW, SEARCH, screen_text, select, settle

pytestmark = pytest.mark.anyio

LOCKED = "brain-engine/api/routes.py"


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_a_claim_marked_stale_ahead_of_time_reads_in_not_ago(make_app, demo_root: Path,  # noqa: ANN001
                                                                    size: tuple[int, int]) -> None:
    ahead = Brain(demo_root, clock=lambda: NOW + timedelta(minutes=40), instance=INSTANCE)
    ahead.watchdog()  # api-search expires at 10:20: a clock 40 minutes ahead marks it stale
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        stale = app.screen.query_one("#stale", StaleClaimsTable)
        assert SEARCH in stale.row_keys
        cell = stale.get_cell(SEARCH, "expired").plain
        assert cell == "in 20m", cell



async def test_the_stale_row_and_the_selection_line_round_a_moment_ahead_alike(make_app, demo_root: Path,  # noqa: ANN001
                                                                                clock) -> None:  # noqa: ANN001
    # 14 min 30 s before the expiry a clock ahead wrote: the row read "in 14m" (rounded down), the selection line
    # "15m left" (a countdown, rounded up).
    Brain(demo_root, clock=lambda: NOW + timedelta(minutes=40), instance=INSTANCE).watchdog()
    clock.advance(minutes=5, seconds=30)  # api-search expires at 10:20
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#stale", SEARCH)
        cell = app.screen.query_one("#stale", StaleClaimsTable).get_cell(SEARCH, "expired").plain
        line = screen_text(app).splitlines()[-2]
        assert "15m left" in line, line
        assert cell == "in 15m", cell

def _lock_for_a_minute(root: Path, at: float) -> None:
    brain = Brain(root, clock=lambda: NOW + timedelta(seconds=at), instance=INSTANCE)
    brain.locks.acquire(LOCKED, SEARCH, 1)


@pytest.mark.parametrize(("seconds", "cell", "line"), [
    (-30, "in 1m", "expires in 1m"),
    (-90, "1m ago", "expired 1m ago"),
])
async def test_a_lock_counts_down_like_a_ttl(make_app, demo_root: Path, seconds: int, cell: str,  # noqa: ANN001
                                             line: str) -> None:
    _lock_for_a_minute(demo_root, seconds)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        table = app.screen.query_one("#locks", LocksTable)
        table.focus()
        await settle(pilot)
        assert len(table.row_keys) == 1
        assert table.get_cell(table.row_keys[0], "left").plain == cell
        shown = lock_line(app.snapshot, table)
        assert shown is not None and f" · {line} · " in shown.plain, shown.plain


@pytest.mark.parametrize(("seconds", "shown_age", "shown_ago"), [
    (20, "<1m", "just now"),  # a hook wrote it seconds after the cockpit's last tick: just now, not "in 0m"
    (59, "<1m", "just now"),
    (-30, "<1m", "just now"),  # never "0m ago"
    (-60, "1m", "1m ago"),
    (60, "in 1m", "in 1m"),  # a clock a minute or more ahead: said as such
    (-5 * 60, "5m", "5m ago"),
])
def test_seconds_ahead_read_as_just_now(seconds: int, shown_age: str, shown_ago: str) -> None:
    from brain_tui.tui.present import age, ago

    moment = NOW + timedelta(seconds=seconds)
    assert (age(moment, NOW), ago(moment, NOW)) == (shown_age, shown_ago)
