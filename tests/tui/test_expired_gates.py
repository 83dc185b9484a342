"""A gate that expires under the pilot's eyes (issue 19 item 5): approving it gives a claim that works, the
countdown never reads 0m or -0m, the header stops saying "expiring" once it expired, and an open dialog learns
that the gate was decided elsewhere."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from textual.widgets import Button, Static

from brain_tui.core.brain import Brain
from brain_tui.core.clock import humanize_countdown
from brain_tui.core.errors import PreflightRefused
from brain_tui.tui.screens.confirm import GateDecisionDialog

from .conftest import DEPLOY, GATED, INSTANCE, NOW, screen_text, select, settle

pytestmark = pytest.mark.anyio
SIZES = [(80, 24), (120, 40)]
#: DEPLOY opened at 09:50 with the default 2 h TTL: it expires at 11:50.
EXPIRY = NOW + timedelta(hours=1, minutes=50)


def request_gate(root: Path) -> None:
    """DEPLOY's session stops at a human gate (as `bsi gate request` would)."""
    Brain(root, clock=lambda: NOW, instance=INSTANCE).gates.request(DEPLOY, "ship the checklist?")


def dialog_text(app) -> str:  # noqa: ANN001
    """Every text block of the open dialog, words joined by single spaces."""
    return " ".join(" ".join(str(w.render()) for w in app.screen.query(Static)).split())


def header(app) -> str:  # noqa: ANN001
    return str(app.screen.query_one("#header").render())


@pytest.mark.parametrize("size", SIZES)
async def test_approving_an_expired_gate_renews_the_claim_the_dialog_says_so(
        make_app, demo_root: Path, clock, size: tuple[int, int]) -> None:  # noqa: ANN001
    request_gate(demo_root)
    clock.at = EXPIRY + timedelta(minutes=4)  # 4 min past expiry, not yet marked stale
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("a")
        assert isinstance(app.screen, GateDecisionDialog)
        text = dialog_text(app)
        assert "renews it for 2h00m, until 13:54" in text, text
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, GateDecisionDialog)
    later = Brain(demo_root, clock=lambda: EXPIRY + timedelta(minutes=4), instance="prod@laptop")
    claim = later.snapshot().claim(DEPLOY)
    assert claim is not None and claim.status == "open"
    assert claim.expires_at == EXPIRY + timedelta(hours=2, minutes=4)
    assert later.preflight(DEPLOY, "deploy/vps.md").code == 0  # the satellite can write again


async def test_an_expired_gate_past_eight_hours_says_it_stays_stale(make_app, demo_root: Path, clock) -> None:  # noqa: ANN001
    request_gate(demo_root)
    clock.at = NOW + timedelta(hours=8)  # DEPLOY opened at 09:50: past its 8 h limit
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("a")
        assert isinstance(app.screen, GateDecisionDialog)
        text = dialog_text(app)
        assert "approve → stale" in text and "cannot renew it" in text and "resumes its work" not in text
        assert "renew it (r)" not in text and "at its 8 h limit: no renewal can extend it" in text, text
        await pilot.press("enter")
        await settle(pilot)
    later = Brain(demo_root, clock=lambda: NOW + timedelta(hours=8), instance="prod@laptop")
    with pytest.raises(PreflightRefused):
        later.preflight(DEPLOY, "deploy/vps.md")


async def test_a_gate_renewed_up_to_its_eight_hour_cap_is_not_told_to_renew(
        make_app, demo_root: Path, clock) -> None:  # noqa: ANN001
    # DEPLOY opened at 09:50: renewing it for 8 h stops at its cap, 17:50
    Brain(demo_root, clock=lambda: NOW, instance=INSTANCE).renew_claim(DEPLOY, timedelta(hours=8))
    request_gate(demo_root)
    clock.at = NOW + timedelta(hours=7, minutes=45)  # 5 minutes before the cap
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("a")
        assert isinstance(app.screen, GateDecisionDialog)
        text = dialog_text(app)
        assert "5m left" in text and "renew it (r)" not in text, text
        assert "at its 8 h limit: no renewal can extend it" in text


def test_the_countdown_never_reads_zero() -> None:
    seconds = [90, 60, 59, 30, 1, 0, -1, -30, -59, -60, -119, -120]
    shown = [humanize_countdown(timedelta(seconds=s)) for s in seconds]
    assert shown == ["2m", "1m", "1m", "1m", "1m", "-1m", "-1m", "-1m", "-1m", "-1m", "-1m", "-2m"]


@pytest.mark.parametrize("size", SIZES)
async def test_the_last_minute_and_the_first_after_expiry_on_screen(make_app, demo_root: Path, clock,
                                                                    size: tuple[int, int]) -> None:  # noqa: ANN001
    request_gate(demo_root)
    clock.at = EXPIRY - timedelta(seconds=30)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert "⏳ 1" in header(app) and "⌛ 1" in header(app)  # DEPLOY expiring; GATED's gate expired at 10:30
        await select(pilot, "#active", DEPLOY)
        assert "1m left" in str(app.screen.query_one("#selection").render())
        clock.at = EXPIRY + timedelta(seconds=30)
        app.tick()
        await pilot.pause()
        assert "⏳" not in header(app) and "⌛ 2" in header(app)
        assert "-0m" not in screen_text(app) and "0m left" not in screen_text(app)
        assert "expired 1m ago" in str(app.screen.query_one("#selection").render())


@pytest.mark.parametrize("size", SIZES)
async def test_an_open_approve_dialog_learns_the_gate_was_decided_elsewhere(make_app, demo_root: Path,
                                                                            size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a")
        dialog = app.screen
        assert isinstance(dialog, GateDecisionDialog)
        # another terminal approves it (`bsi gate approve`), and the cockpit's watcher reads the brain again
        Brain(demo_root, clock=lambda: NOW, instance="prod@laptop").gates.approve(GATED, "done")
        app.refresh_snapshot()
        await settle(pilot)
        assert app.screen is dialog
        assert dialog.query_one("#submit", Button).disabled
        text = dialog_text(app)
        assert "decided elsewhere" in text and "closed" in text, text
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, GateDecisionDialog)


@pytest.mark.parametrize("minutes, offered", [(100, True), (115, False)])
async def test_the_queue_offers_r_only_while_renewing_helps(make_app, demo_root: Path, clock, minutes: int,
                                                            offered: bool) -> None:  # noqa: ANN001
    request_gate(demo_root)
    clock.at = NOW + timedelta(minutes=minutes)  # 10 minutes before DEPLOY's expiry, or 5 after it
    app = make_app(gates=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#gate-table")
        key = next(k for k in table.row_keys if DEPLOY in k)
        table.focus()
        table.select_key(key)
        await settle(pilot)
        title = str(app.screen.query_one("#gate-detail").border_title)
        assert ("r renew" in title) is offered, title
        assert "a approve" in title


async def test_the_queue_title_counts_expiring_and_expired_as_the_header_does(make_app, demo_root: Path,
                                                                              clock) -> None:  # noqa: ANN001
    """30 s before DEPLOY's gate expires: one expiring, GATED's expired; 30 s after it: two expired, none
    expiring (README: once past its expiry it counts as expired)."""
    request_gate(demo_root)
    clock.at = EXPIRY - timedelta(seconds=30)
    app = make_app(gates=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        title = str(app.screen.query_one("#gate-list").border_title)
        assert "1 expiring" in title and "1 expired" in title, title
        clock.at = EXPIRY + timedelta(seconds=30)
        app.tick()
        await pilot.pause()
        await settle(pilot)
        title = str(app.screen.query_one("#gate-list").border_title)
        assert "expiring" not in title and "2 expired" in title, title
