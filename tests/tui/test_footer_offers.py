"""The footer offers what the focused thing can do: `K` on a pending signal, the claim keys on a claim.

Help listed `K`, but the footer never showed it; on a signal (its detail, a queue item behind one) the footer
still offered close, approve and reject, which do not apply to a plain signal.
"""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from brain_tui.core.records.statuses import Status
from brain_tui.tui.screens.detail import DetailScreen
from brain_tui.tui.screens.queue import QueueScreen

from .conftest import GATED, SEARCH, STALE, select, settle

pytestmark = pytest.mark.anyio

SMALL = (80, 24)


def _footer_keys(app) -> list[str]:  # noqa: ANN001
    return [key.key for key in app.screen.query(FooterKey) if not key.has_class("-command-palette")]


async def test_signals_pane_offers_ack_and_not_the_claim_keys(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        await settle(pilot)
        assert app.screen.selected_signal() is not None
        keys = _footer_keys(app)
        assert "K" in keys and not {"c", "a", "x"} & set(keys), keys
        await pilot.press("1")
        await settle(pilot)
        keys = _footer_keys(app)
        assert {"c", "a", "x"} <= set(keys) and "K" not in keys, keys


async def test_a_plain_signals_detail_offers_ack_not_the_claim_keys(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.signal is not None
        keys = _footer_keys(app)
        assert "K" in keys and not {"c", "a", "x"} & set(keys), keys


async def test_queue_offers_gate_keys_only_on_a_gate(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("g")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        items = {item.sess_id: item for item in app.queue if item.sig_id is not None}
        blocked = items[SEARCH]
        await select(pilot, "#gate-table", blocked.key)
        await settle(pilot)
        keys = _footer_keys(app)
        assert app.claim(SEARCH).status != Status.WAITING_HUMAN
        assert "K" in keys and not {"a", "x"} & set(keys), keys
        gate = next(item for item in app.queue if item.sess_id == GATED and item.kind == "gate")
        await select(pilot, "#gate-table", gate.key)
        await settle(pilot)
        keys = _footer_keys(app)
        assert {"a", "x"} <= set(keys), keys


async def test_the_footer_keeps_its_keys_while_what_they_show_is_unchanged(make_app) -> None:  # noqa: ANN001
    """A cursor move that changes no offered key leaves the footer's widgets in place (Textual asks for a new
    footer after every move and binding check; mounting the keys anew restyled the whole bar each time); a move
    that changes the keys still shows the new ones."""
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        before = list(app.screen.query(FooterKey))
        await pilot.press("down")
        await settle(pilot)
        await pilot.press("up")
        await settle(pilot)
        after = list(app.screen.query(FooterKey))
        assert [id(key) for key in after] == [id(key) for key in before], _footer_keys(app)
        await pilot.press("2")
        await settle(pilot)
        assert "K" in _footer_keys(app)


async def test_queue_offers_no_gate_keys_on_a_stale_claim(make_app) -> None:  # noqa: ANN001
    """A stale claim in the queue is released (its pane's title says `R release`), never approved: the footer
    offered a/x there, keys the core refuses."""
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("g")
        await settle(pilot)
        stale = next(item for item in app.queue if item.sess_id == STALE and item.sig_id is None)
        await select(pilot, "#gate-table", stale.key)
        await settle(pilot)
        keys = _footer_keys(app)
        assert not {"a", "x"} & set(keys), keys
