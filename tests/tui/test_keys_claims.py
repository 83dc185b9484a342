"""Claim keys: open (conflict preview), close (tiers), abort and release (slug), refusals — checked on disk.

What the cockpit does must be what `bsi` sees: tests re-read the brain with a
fresh `Brain` (the CLI's code path) after the keys.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Input

from brain_tui.tui.screens.claim_form import OpenClaimScreen
from brain_tui.tui.screens.close_form import CloseClaimScreen
from brain_tui.tui.screens.confirm import GateDecisionDialog, SlugConfirmDialog

from .conftest import (
    DEPLOY,
    DOMAIN,
    GATED,
    PILOT,
    SEARCH,
    STALE,
    fresh,
    last_commit,
    screen_text,
    select,
    settle,
    status,
)

pytestmark = pytest.mark.anyio
SMALL = (80, 24)


async def test_open_form_previews_conflicts_and_opens_through_the_core(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", SEARCH)  # a leaf: the form starts without a parent
        await pilot.press("o")
        form = app.screen
        assert isinstance(form, OpenClaimScreen)
        await pilot.press("*")  # global: meets every blocking claim
        preview = str(form.query_one("#preview").render())
        assert "6 conflict(s)" in preview and "0810-api-domain" in preview and "0500-notes-wrap" in preview
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, OpenClaimScreen)  # refused: the core's message stays in the form
        assert "claim refused" in str(form.query_one("#error").render())
        scope = form.query_one("#scope", Input)
        scope.value = "wiki/"
        await pilot.pause()
        assert "no conflict" in str(form.query_one("#preview").render())
        form.query_one("#story", Input).value = "Rewrite the glossary"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, OpenClaimScreen)
    opened = [c for c in fresh(demo_root).snapshot().claims if c.scope_text == "wiki/" and c.status == "open"]
    assert len(opened) == 1 and opened[0].story == "Rewrite the glossary"
    assert opened[0].instance == "prod@desktop"


async def test_close_tier2_asks_test_counts_and_red_tests_are_refused(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("c")
        dialog = app.screen
        assert isinstance(dialog, CloseClaimScreen)
        assert "Tier 2 — validated" in screen_text(app)
        await pilot.press(*"12", "tab", *"11", "tab", *"1", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, CloseClaimScreen)
        assert "tests red on close" in str(dialog.query_one("#error").render())
        assert status(demo_root, SEARCH) == "open"
        dialog.query_one("#tests-passed", Input).value = "12"
        dialog.query_one("#tests-failed", Input).value = "0"
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert status(demo_root, SEARCH) == "closed"
    claim = fresh(demo_root).snapshot().claim(SEARCH)
    assert claim is not None and claim.data["result"]["tests"] == {"total": 12, "passed": 12, "failed": 0}


async def test_close_tier3_lists_open_children(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", DOMAIN)
        await pilot.press("c")
        text = screen_text(app)
        assert "Tier 3 — orchestrated" in text
        assert "2 satellite(s) still open" in text and "0820-api-search" in text
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "unfinished satellites" in str(app.screen.query_one("#error").render())  # the core's refusal
    assert status(demo_root, DOMAIN) == "open"


async def test_abort_needs_the_slug_typed_exactly(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", DOMAIN)
        await pilot.press("X")
        dialog = app.screen
        assert isinstance(dialog, SlugConfirmDialog)
        await pilot.press(*"no", "enter")
        await pilot.press(*"api-domai", "enter")  # one letter short
        await settle(pilot)
        assert dialog.query_one("#submit", Button).disabled
        assert status(demo_root, DOMAIN) == "open"
        await pilot.press("n", "enter")
        await settle(pilot)
    assert status(demo_root, DOMAIN) == "failed"
    assert status(demo_root, SEARCH) == "failed" and status(demo_root, GATED) == "failed"  # recursive
    assert status(demo_root, PILOT) == "open"


async def test_release_a_stale_claim_with_slug_and_reason(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#stale", STALE)
        await pilot.press("R")
        dialog = app.screen
        assert isinstance(dialog, SlugConfirmDialog)
        await pilot.press(*"gone", "enter", *"notes-wrap")
        assert not dialog.query_one("#submit", Button).disabled
        await pilot.press("enter")
        await settle(pilot)
    assert status(demo_root, STALE) == "released"
    assert last_commit(demo_root) == f"bsi: release {STALE}"


async def test_refused_actions_say_why_in_the_core_s_words(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("R", "a")
        await settle(pilot)
        assert not isinstance(app.screen, (SlugConfirmDialog, GateDecisionDialog))
        messages = [n.message for n in app._notifications]
        assert any(m.startswith(f"cannot release {DEPLOY}: it is open") for m in messages)
        assert any(m.startswith(f"cannot approve {DEPLOY}: it is open") for m in messages)
    assert status(demo_root, DEPLOY) == "open"


async def test_a_handoff_signal_prefills_the_open_form(make_app, demo_root: Path) -> None:  # noqa: ANN001
    from brain_tui.core.rules.claims import CloseRequest

    # api-search closes green: its on_done trigger asks the pilot to launch a test satellite (HANDOFF)
    fresh(demo_root).close_claim(SEARCH, CloseRequest(tests_total=3, tests_passed=3, tests_failed=0))
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        table = app.screen.query_one("#signals")
        handoff = next(s.sig_id for s in app.snapshot.signals if s.type == "HANDOFF")
        table.select_key(handoff)
        await pilot.pause()
        assert "o opens the claim it asks for" in screen_text(app)
        await pilot.press("o")
        form = app.screen
        assert isinstance(form, OpenClaimScreen)
        assert form.query_one("#scope", Input).value == "brain-engine/tests/"
        assert form.query_one("#parent", Input).value == PILOT
        assert form.query_one("#satellite-type").value == "test"


async def test_approving_a_claim_stale_from_open_says_it_had_no_gate(make_app) -> None:  # noqa: ANN001
    """`a` on a claim whose TTL ran out while open read "it is stale (possible only when it is waiting for a
    human, stale (from waiting for a human))": stale, refused for being stale. It says what it was stale from and
    what takes it out."""
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#stale", STALE)
        await pilot.press("a")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        said = next(m for m in messages if m.startswith(f"cannot approve {STALE}"))
        assert said.startswith(f"cannot approve {STALE}: it is stale from open, with no gate to decide"), said
        assert f"bsi claim release {STALE}" in said, said
