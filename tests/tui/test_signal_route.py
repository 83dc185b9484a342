"""The signals queue's From → To keeps both ends readable in its 22 cells.

A long sender (a human's `Name <email>`, a long slug) filled the column and cut the recipient off entirely, at
every width: a PAUSED signal read ``human:Demo Pilot <pil…`` and whom it was for was nowhere in the row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.records.statuses import SignalState
from brain_tui.tui.app import BrainApp
from brain_tui.tui.present import short_party
from brain_tui.tui.widgets.signals_table import route_text

from .conftest import FAKE_ENV, INSTANCE, PILOT, fresh, screen_text, settle

pytestmark = pytest.mark.anyio


def test_a_short_route_is_shown_whole() -> None:
    assert route_text("engine-docs", "pilote-be7").plain == "engine-docs→pilote-be7"


def test_a_long_sender_leaves_the_recipient_whole() -> None:
    shown = route_text("human:Demo Pilot <pilot@example.org>", "pilote-be7").plain
    assert shown.endswith("→pilote-be7") and shown.startswith("human:Demo") and len(shown) <= 22


def test_two_long_ends_share_the_cells() -> None:
    shown = route_text("hostile-long-slug", "another-long-slug").plain
    sender, _, recipient = shown.partition("→")
    assert len(shown) <= 22 and sender.startswith("hostile") and recipient.startswith("another")


async def test_a_human_signal_names_its_recipient_at_80x24(make_app, demo_root: Path) -> None:  # noqa: ANN001
    brain = fresh(demo_root)
    brain.gates.pause(PILOT, "careful")
    snapshot = brain.snapshot()
    paused = next(s for s in snapshot.signals if s.type == "PAUSED" and s.state == SignalState.PENDING)
    assert len(paused.sender) > 22  # a human: `human:Name <email>`
    recipient = short_party(paused.to, snapshot, "prod", slug_only=True)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        row = next(line for line in screen_text(app).splitlines() if "PAUSED" in line)
        assert f"→{recipient}" in row, row


async def test_a_wide_route_column_cuts_only_at_its_own_width(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """At ≥ 100 cells the From → To column is 34 wide: the route is cut there, not at the narrow 22."""
    brain = fresh(demo_root)
    brain.gates.pause(PILOT, "careful")
    snapshot = brain.snapshot()
    paused = next(s for s in snapshot.signals if s.type == "PAUSED" and s.state == SignalState.PENDING)
    sender = short_party(paused.sender, snapshot, "prod", slug_only=True)
    recipient = short_party(paused.to, snapshot, "prod", slug_only=True)
    assert len(sender) + len(recipient) + 1 > 34  # cut in either column
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        assert dict(app.screen.query_one("#signals")._shown)["route"] == 34
        row = next(line for line in screen_text(app).splitlines() if "PAUSED" in line)
        assert route_text(sender, recipient, 34).plain in row, row


#: A row of the legacy index whose destination (`Pour`) is `—`: imported with none.
NOWHERE = "sig-20261129-155845-paused"


async def test_a_signal_without_a_destination_says_so(legacy_git_brain: Path) -> None:
    # The legacy index's `—` destination read `superoauth-domain→`, nothing after the arrow, in the pane
    # and in the signal's detail.
    brain = Brain(legacy_git_brain, clock=lambda: datetime(2026, 11, 29, 16, 0, tzinfo=UTC), instance=INSTANCE)
    assert next(s for s in brain.snapshot().signals if s.sig_id == NOWHERE).to == ""
    app = BrainApp(brain, live=False, theme="brain-dark", remember_theme=False,
                   env_provider=lambda _brain: (FAKE_ENV, ""))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        row = next(line for line in screen_text(app).splitlines() if "PAUSED" in line)
        assert "superoauth-domain→—" in row, row
        table = app.screen.query_one("#signals")
        assert table.select_key(NOWHERE)
        await pilot.press("enter")
        await settle(pilot)
        assert "from 0316-2100-superoauth-domain → —" in screen_text(app)
