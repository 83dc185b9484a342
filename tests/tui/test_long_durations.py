"""A duration of many days shows whole in its narrow column: from 10 days on, its days only.

A legacy brain's claims expired months ago: their TTL read ``-264d1…`` and their signals' age ``265d…``, cut by the
column's ellipsis at 80 columns and at 160 alike. ``-264d`` and ``265d`` say it in the room there is.
"""

from __future__ import annotations

import re

import pytest

from brain_tui.tui.widgets.claims_table import ActiveClaimsTable
from brain_tui.tui.widgets.signals_table import SignalsTable

from .conftest import SEARCH, settle

pytestmark = pytest.mark.anyio


def _cell(table, key: str, column: str) -> str:  # noqa: ANN001
    return str(table.get_cell(key, column).plain)


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_months_show_whole_as_days(make_app, clock, size: tuple[int, int]) -> None:  # noqa: ANN001
    clock.advance(days=120)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        active = app.screen.query_one("#active", ActiveClaimsTable)
        ttl = _cell(active, SEARCH, "ttl")
        assert re.fullmatch(r"-1[12]\dd!?", ttl), ttl
        assert "…" not in ttl
        signals = app.screen.query_one("#signals", SignalsTable)
        ages = [_cell(signals, key, "age") for key in signals.row_keys]
        assert ages and all(re.fullmatch(r"1[12]\dd", a) for a in ages), ages


async def test_a_few_days_keep_their_hours(make_app, clock) -> None:  # noqa: ANN001
    clock.advance(days=2)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        active = app.screen.query_one("#active", ActiveClaimsTable)
        assert re.fullmatch(r"-1d\d\dh!?", _cell(active, SEARCH, "ttl")), _cell(active, SEARCH, "ttl")
