"""A dialog acts on what it showed, or not at all: the claim changing on disk between the dialog and the key.

Another terminal (or another pilot) decides while this cockpit's dialog is open, and the cockpit's next
read has not arrived yet (the watcher is debounced; a dialog that does not follow the brain never gets
one). The key that confirms must not decide a gate, or lift a pause, that the dialog never showed.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import claims
from brain_tui.tui.screens.confirm import CascadeDialog, GateDecisionDialog, SlugConfirmDialog

from .conftest import DEPLOY, DOMAIN, GATED, INSTANCE, NOW, SEARCH, fresh, select, settle, status

pytestmark = pytest.mark.anyio
SIZES = [(80, 24), (120, 40)]


def other(root: Path) -> Brain:
    """Another process on the same brain (a second pilot's `bsi`, or the session itself)."""
    return Brain(root, clock=lambda: NOW, instance=INSTANCE)


def gate_messages(root: Path, sess_id: str) -> list[tuple[str, str]]:
    """The claim's gate history as (event, message) pairs, as `bsi` reads it."""
    claim = fresh(root).snapshot().claim(sess_id)
    assert claim is not None
    return [(e.event, e.message) for e in claim.gate_history]


@pytest.mark.parametrize("size", SIZES)
async def test_approve_never_decides_a_gate_raised_after_the_dialog_opened(make_app, demo_root: Path,
                                                                          size: tuple[int, int]) -> None:  # noqa: ANN001
    other(demo_root).gates.request(SEARCH, "run the migration on staging?")
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("a")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, GateDecisionDialog)
        # Meanwhile: another pilot approves that gate, and the session at once asks for another one. The
        # cockpit has not read the brain again yet; its dialog still shows the first gate.
        other(demo_root).gates.approve(SEARCH, "ok")
        other(demo_root).gates.request(SEARCH, "drop the production index?")
        await pilot.press("enter")
        await settle(pilot)
    assert status(demo_root, SEARCH) == "waiting_human"
    assert gate_messages(demo_root, SEARCH)[-1] == ("HUMAN_GATE", "drop the production index?")


@pytest.mark.parametrize("size", SIZES)
async def test_reject_never_decides_a_gate_raised_after_the_dialog_opened(make_app, demo_root: Path,
                                                                         size: tuple[int, int]) -> None:  # noqa: ANN001
    other(demo_root).gates.request(SEARCH, "run the migration on staging?")
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, GateDecisionDialog)
        other(demo_root).gates.approve(SEARCH, "ok")
        other(demo_root).gates.request(SEARCH, "publish the release?")
        await pilot.press(*"not now", "enter")
        await settle(pilot)
    assert status(demo_root, SEARCH) == "waiting_human"


@pytest.mark.parametrize("size", SIZES)
async def test_resume_never_lifts_a_pause_made_after_the_dialog_opened(make_app, demo_root: Path,
                                                                      size: tuple[int, int]) -> None:  # noqa: ANN001
    other(demo_root).gates.pause(DEPLOY, "checking the VPS first", by="alice <a@x>")
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, CascadeDialog)
        # Meanwhile the pause this dialog shows is lifted, and another pilot pauses again for another reason.
        other(demo_root).gates.resume(DEPLOY, "checked", by="alice <a@x>")
        other(demo_root).gates.pause(DEPLOY, "the VPS is on fire", by="bob <b@x>")
        await pilot.press("enter")
        await settle(pilot)
    assert status(demo_root, DEPLOY) == "paused"
    assert gate_messages(demo_root, DEPLOY)[-1] == ("PAUSED", "the VPS is on fire")


@pytest.mark.parametrize("size", SIZES)
async def test_abort_stops_when_the_claim_changed_after_the_dialog_opened(make_app, demo_root: Path,
                                                                         size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("X")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, SlugConfirmDialog)
        other(demo_root).gates.request(SEARCH, "may I deploy?")
        await pilot.press(*"scrap it", "enter", *dialog.claim.slug, "enter")
        await settle(pilot)
        assert app.screen is dialog  # the refusal stays in the dialog
    assert status(demo_root, SEARCH) == "waiting_human"


@pytest.mark.parametrize("size", SIZES)
async def test_abort_never_takes_a_satellite_opened_after_the_dialog_listed_the_tree(  # noqa: ANN201
        make_app, demo_root: Path, size: tuple[int, int]):  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", DOMAIN)
        await pilot.press("X")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, SlugConfirmDialog)
        listed = str(dialog.query_one("#cascade").render())
        # Meanwhile a session opens a satellite under the domain: the dialog never listed it.
        newcomer = other(demo_root).open_claim(claims.OpenRequest(
            scope=parse_scope("brain-engine/api/new.py", demo_root), ttl=parse_duration("2h"), instance=INSTANCE,
            type="satellite", parent=DOMAIN, slug="newcomer", story="just started"))
        assert "newcomer" not in listed
        await pilot.press(*"scrap it", "enter", *dialog.claim.slug, "enter")
        await settle(pilot)
        assert app.screen is dialog  # the refusal stays in the dialog, naming the claim it did not show
        assert "newcomer" in str(dialog.query_one("#error").render())
    assert status(demo_root, newcomer) == "open"
    assert status(demo_root, DOMAIN) == "open"


async def test_a_dialog_that_still_matches_the_brain_acts(make_app, demo_root: Path) -> None:  # noqa: ANN001
    other(demo_root).gates.request(SEARCH, "run the migration on staging?")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("a")
        await settle(pilot)
        other(demo_root).signals.send(SEARCH, DEPLOY, "INFO", "unrelated news")  # not this claim's history
        await pilot.press("enter")
        await settle(pilot)
    assert status(demo_root, SEARCH) == "open"


async def test_a_watchdog_run_meanwhile_does_not_void_a_release(make_app, demo_root: Path, clock) -> None:  # noqa: ANN001
    later = NOW + timedelta(hours=2, minutes=10)  # DEPLOY (2 h from 09:50) is expired, not yet marked stale
    clock.at = later
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("R")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, SlugConfirmDialog)
        Brain(demo_root, clock=lambda: later, instance=INSTANCE).watchdog()  # writes down what the clock said
        await pilot.press(*"left behind", "enter", *dialog.claim.slug, "enter")
        await settle(pilot)
    assert Brain(demo_root, clock=lambda: later).snapshot().claim(DEPLOY).status == "released"  # type: ignore[union-attr]


@pytest.mark.parametrize("size", SIZES)
async def test_a_key_never_acts_on_the_row_a_refresh_slid_under_the_cursor(make_app, demo_root: Path,
                                                                           size: tuple[int, int]) -> None:  # noqa: ANN001
    other(demo_root).gates.request(DEPLOY, "ship the checklist?")  # the row after GATED is a gate too
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", GATED)
        # GATED is approved elsewhere (it closes and leaves the list); the cockpit reads the brain again and
        # its cursor, left on the same line, is now on DEPLOY. The pilot's "a enter", meant for GATED, comes.
        other(demo_root).gates.approve(GATED, "done")
        app.refresh_snapshot()
        await settle(pilot)
        assert app.screen.query_one("#active").selected_key == DEPLOY
        await pilot.press("a", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, GateDecisionDialog)
        assert status(demo_root, DEPLOY) == "waiting_human"
        # Now the pilot has seen where the cursor is: the same key acts on DEPLOY.
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, GateDecisionDialog) and app.screen.claim.sess_id == DEPLOY


@pytest.mark.parametrize("size", SIZES)
async def test_the_gate_queue_never_slides_the_next_gate_under_a_decision(make_app, demo_root: Path,
                                                                          size: tuple[int, int]) -> None:  # noqa: ANN001
    other(demo_root).gates.request(DEPLOY, "ship the checklist?")  # ranked right after the BLOCKED_ON signal
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("g")
        await settle(pilot)
        table = app.screen.query_one("#gate-table")
        blocked = next(i for i in app.queue if i.kind == "blocked")
        assert table.select_key(blocked.key)
        await pilot.pause()
        other(demo_root).signals.ack(blocked.sig_id)  # someone else deals with it: it leaves the queue
        app.refresh_snapshot()
        await settle(pilot)
        assert table.selected_key.startswith(f"gate:{DEPLOY}")
        await pilot.press("a", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, GateDecisionDialog)
    assert status(demo_root, DEPLOY) == "waiting_human"


async def test_after_the_pilots_own_decision_the_next_row_acts_at_once(make_app, demo_root: Path) -> None:  # noqa: ANN001
    other(demo_root).gates.request(DEPLOY, "ship the checklist?")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a", "enter")  # the pilot's own approval: GATED closes and leaves the list
        await settle(pilot)
        assert status(demo_root, GATED) == "closed"
        assert app.screen.query_one("#active").selected_key == DEPLOY
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, GateDecisionDialog) and app.screen.claim.sess_id == DEPLOY


async def test_a_row_the_pilots_filter_hid_is_no_slide(make_app, demo_root: Path) -> None:  # noqa: ANN001
    other(demo_root).gates.request(DEPLOY, "ship the checklist?")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("slash", *"0950-deploy", "enter")  # hides the selected row: the first row shown
        await settle(pilot)
        assert app.screen.query_one("#active").selected_key == DEPLOY
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, GateDecisionDialog) and app.screen.claim.sess_id == DEPLOY


async def test_the_queue_names_the_items_by_claim_or_signal(make_app, demo_root: Path) -> None:  # noqa: ANN001
    other(demo_root).gates.request(DEPLOY, "ship the checklist?")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        await settle(pilot)
        blocked = next(i for i in app.queue if i.kind == "blocked")
        assert app.screen.query_one("#gate-table").select_key(blocked.key)
        other(demo_root).signals.ack(blocked.sig_id)
        app.refresh_snapshot()
        await settle(pilot)
        assert app.screen.slid_selection() == (blocked.sig_id, DEPLOY)


async def test_after_the_pilots_own_watchdog_run_the_next_row_acts_at_once(make_app, demo_root: Path) -> None:  # noqa: ANN001
    # `w` marks an expired claim stale: it leaves the active list because the pilot asked, not behind their back.
    early = Brain(demo_root, clock=lambda: NOW - timedelta(hours=2), instance=INSTANCE)
    from brain_tui.core.brain import OpenRequest
    from brain_tui.core.paths.scope import parse_scope

    request = OpenRequest(scope=parse_scope("expired-notes/"), ttl=timedelta(minutes=30), instance=INSTANCE,
                          story="ran out")
    expired = early.open_claim(request)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.screen.query_one("#active")
        if expired not in table.row_keys:
            pytest.skip("the cockpit lists an expired claim among the stale ones before the watchdog marks it")
        await select(pilot, "#active", expired)
        await pilot.press("w")
        await settle(pilot)
        assert status(demo_root, expired) == "stale"
        now_under = app.screen.query_one("#active").selected_key
        assert now_under is not None and now_under != expired
        await pilot.press("p")  # the pause dialog of the row now under the cursor, at once
        await settle(pilot)
        assert isinstance(app.screen, CascadeDialog) and app.screen.claim.sess_id == now_under


def domains(root: Path, *specs: tuple[str, str, str]) -> list[str]:
    """Open standalone domain claims, each a root of the satellite tree: (slug, scope, instance) each."""
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.rules.claims import OpenRequest

    return [other(root).open_claim(OpenRequest(scope=parse_scope(scope, root), instance=where, level="domain",
                                               ttl=timedelta(hours=2), slug=slug)) for slug, scope, where in specs]


async def on_tree_node(pilot: Any, sess_id: str) -> Any:
    """Focus the satellite tree with its cursor on `sess_id`; the tree."""
    tree = pilot.app.screen.query_one("#tree")
    tree.focus()
    tree.move_cursor(tree._claim_nodes[sess_id])
    await pilot.pause()
    assert tree.selected_id == sess_id
    return tree


@pytest.mark.parametrize("size", SIZES)
async def test_a_key_never_acts_on_the_tree_node_a_refresh_slid_under_the_cursor(make_app, demo_root: Path,
                                                                                 size: tuple[int, int]) -> None:  # noqa: ANN001
    from brain_tui.core.rules.claims import CloseRequest
    from brain_tui.tui.screens.close_form import CloseClaimScreen

    first, second = domains(demo_root, ("docs-domain", "docs/", INSTANCE), ("ops-domain", "ops/", INSTANCE))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        if size == (80, 24):
            await pilot.press("3")
        tree = await on_tree_node(pilot, first)
        # The docs domain closes elsewhere and leaves the tree; the cursor, left on its line, is on the next one.
        other(demo_root).close_claim(first, CloseRequest(tests_total=1, tests_passed=1, tests_failed=0))
        app.refresh_snapshot()
        await settle(pilot)
        assert first not in tree.node_ids and tree.selected_id == second
        await pilot.press("c")
        await settle(pilot)
        assert not isinstance(app.screen, CloseClaimScreen)
        await pilot.press("c")  # now the pilot has seen where the cursor is
        await settle(pilot)
        assert isinstance(app.screen, CloseClaimScreen) and app.screen.claim.sess_id == second


async def test_a_tree_node_the_pilots_filter_hid_is_no_slide(make_app, demo_root: Path) -> None:  # noqa: ANN001
    from brain_tui.tui.screens.close_form import CloseClaimScreen

    hidden, after = domains(demo_root, ("docs-domain", "docs/", "evil@box"), ("ops-domain", "ops/", INSTANCE))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = await on_tree_node(pilot, hidden)
        await pilot.press("slash", *"prod@", "enter")  # the pilot's own filter hides the docs domain
        await settle(pilot)
        tree.focus()
        await pilot.pause()
        # the cursor went to the first node shown, and the keys act on it at once (no "changed meanwhile")
        assert hidden not in tree.node_ids and after in tree.node_ids
        assert tree.cursor_line == 0 and tree.selected_id == tree.node_ids[0]
        first = tree.node_ids[0]
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CloseClaimScreen) and app.screen.claim.sess_id == first
