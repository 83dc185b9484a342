"""The detail view shows the claim as it is now: after a key acted from it, and after another process changed it."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.screens.detail import DetailScreen

from .conftest import DEPLOY, GATED, fresh, select, settle

pytestmark = pytest.mark.anyio


def _text(app, widget_id: str) -> str:  # noqa: ANN001
    return str(app.screen.query_one(widget_id).render())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_pause_from_the_detail_view_shows_there(make_app, demo_root: Path, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        assert "open" in _text(app, "#summary")
        await pilot.press("p")
        await pilot.press("enter")  # on Pause
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        assert fresh(demo_root).snapshot().claim(DEPLOY).status == "paused"  # type: ignore[union-attr]
        summary = _text(app, "#summary")
        assert "paused" in summary and "open" not in summary
        assert "status: paused" in _text(app, "#file")
        assert "PAUSED" in _text(app, "#gate-history")


async def test_a_gate_approved_elsewhere_shows_in_the_open_detail_view(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("enter")
        await settle(pilot)
        assert "waiting_human" in _text(app, "#summary")
        fresh(demo_root).gates.approve(GATED, "ok from the CLI")
        app.refresh_snapshot()
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        summary = _text(app, "#summary")
        assert "closed" in summary
        assert "ended just now" in summary or "ended 1m ago" in summary
        assert "TTL" not in summary  # a finished claim's TTL no longer counts
        assert "ok from the CLI" in _text(app, "#gate-history")
        assert "status: closed" in _text(app, "#file")
