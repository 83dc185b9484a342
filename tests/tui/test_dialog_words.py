"""Dialogs say what they do and keys go where the pilot expects (issue 19 item 8)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from textual.widgets import Input, Label

from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import claims
from brain_tui.tui.screens.claim_form import OpenClaimScreen
from brain_tui.tui.screens.confirm import CascadeDialog, GateDecisionDialog
from brain_tui.tui.screens.quick import AckDialog, RenewDialog

from .conftest import DEPLOY, GATED, NOW, PILOT, STALE, fresh, screen_text, select, settle
from .test_forms import burst

pytestmark = pytest.mark.anyio
SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES)
async def test_renew_tab_then_a_typed_ttl_then_enter_renews_that_ttl(make_app, demo_root: Path,
                                                                     size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("r")
        assert isinstance(app.screen, RenewDialog)
        await burst(pilot, "\t3h")
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, RenewDialog)
    claim = fresh(demo_root).snapshot().claim(DEPLOY)
    assert claim is not None and claim.expires_at == NOW + timedelta(hours=3)


async def test_the_open_form_says_an_empty_slug_is_random(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("o")
        assert isinstance(app.screen, OpenClaimScreen)
        labels = " ".join(str(label.render()) for label in app.screen.query(Label))
        assert "empty: 4 random characters" in labels and "from the scope" not in labels


async def test_a_stale_claim_without_a_bound_agent_says_so(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.live_sessions.get(STALE)  # the demo binds no agent to it
        stale = app.screen.query_one("#stale")
        assert STALE in stale.row_keys
        assert "no bound agent" in screen_text(app)


def hint(app) -> str:  # noqa: ANN001
    """The dialog's keys line, as shown."""
    return " ".join(str(label.render()) for label in app.screen.query(".hint"))


@pytest.mark.parametrize(("key", "sess_id", "paused"), [("a", GATED, False), ("p", PILOT, False),
                                                        ("u", PILOT, True)])
async def test_an_optional_message_dialog_starts_on_its_button_and_tab_reaches_the_message(
        make_app, demo_root: Path, key: str, sess_id: str, paused: bool) -> None:  # noqa: ANN001
    if paused:
        fresh(demo_root).gates.pause(PILOT, "hold")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", sess_id)
        await pilot.press(key)
        await settle(pilot)
        assert isinstance(app.screen, (GateDecisionDialog, CascadeDialog))
        assert app.focused is app.screen.query_one("#submit")  # the decision is one real key press away
        assert "tab to the message" in hint(app)
        message = app.screen.query_one("#message", Input)
        assert message.placeholder.startswith("optional")  # the field shows, empty and compact
        await pilot.press("tab")
        assert app.focused is message


async def test_the_ack_dialog_says_its_keys_once(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2", "K")
        await settle(pilot)
        assert isinstance(app.screen, AckDialog)
        details = app.screen.query_one("#details").render().plain  # type: ignore[union-attr]
        assert "acknowledges" not in details  # the signal pane's key hint: in the dialog, its own hint says it
        assert screen_text(app).count("acknowledges") == 1



async def test_the_ack_dialog_names_the_senders_claim_as_such_whatever_the_type(make_app) -> None:  # noqa: ANN001
    # A CHECKPOINT from a closed claim (engine-docs, done) read "Waiting session" above that claim.
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2", "K")
        await settle(pilot)
        assert isinstance(app.screen, AckDialog)
        assert app.screen.sig.type == "CHECKPOINT"
        sender = app.snapshot.claim(app.screen.sig.sender)
        assert sender is not None and sender.status == "closed"
        details = app.screen.query_one("#details").render().plain  # type: ignore[union-attr]
        assert "Waiting session" not in details and "Blocked session" not in details
        assert "Sender's claim" in details, details

async def test_the_pause_dialog_wraps_a_descendant_long_story(make_app, demo_root: Path) -> None:  # noqa: ANN001
    story = "Rewrite the search ranking " + " ".join(f"step{i}" for i in range(30)) + " THE-END"
    brain = fresh(demo_root)
    brain.open_claim(claims.OpenRequest(scope=parse_scope("wiki/long/", demo_root), ttl=parse_duration("2h"),
                                        instance="prod@laptop", story=story, slug="longstory", parent=PILOT))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", PILOT)
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, CascadeDialog)
        cascade = app.screen.query_one("#cascade").render().plain  # type: ignore[union-attr]
        assert "THE-END" in cascade and "…" not in cascade
        assert "THE-END" in screen_text(app)
