"""The cockpit screen and its other keys: panes, ack, detail, read-only, watchdog, sync, filter, help, theme.

What the cockpit does must be what `bsi` sees: tests re-read the brain with a
fresh `Brain` (the CLI's code path) after the keys.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette

from brain_tui.tui.screens.claim_form import OpenClaimScreen
from brain_tui.tui.screens.close_form import CloseClaimScreen
from brain_tui.tui.screens.confirm import CascadeDialog, GateDecisionDialog, SlugConfirmDialog
from brain_tui.tui.screens.detail import DetailScreen
from brain_tui.tui.screens.help import HelpScreen
from brain_tui.tui.screens.quick import AckDialog

from .conftest import (
    DEPLOY,
    DOMAIN,
    GATED,
    PILOT,
    SEARCH,
    STALE,
    fresh,
    screen_text,
    select,
    settle,
    status,
)

pytestmark = pytest.mark.anyio
SMALL = (80, 24)


async def test_main_screen_shows_claims_stale_signals_and_tree(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.query_one("#active").row_keys == [PILOT, DOMAIN, SEARCH, GATED, DEPLOY,
                                                        "sess-20261129-0955-search-scan"]
        assert screen.query_one("#stale").row_keys == [STALE]
        assert len(screen.query_one("#signals").row_keys) == 4
        assert screen.query_one("#tree").node_ids[:2] == [PILOT, DOMAIN]
        text = screen_text(app)
        assert "human control required" in text
        assert "⚑ gate" in text and "2026-11-29 10:00 UTC" in text
        assert "brain-api :7700 ● up" in text  # the environment pane


async def test_narrow_layout_shows_one_pane_at_a_time(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.query_one("#pane-claims").display and not screen.query_one("#pane-signals").display
        await pilot.press("2")
        assert screen.query_one("#pane-signals").display and not screen.query_one("#pane-claims").display
        assert app.focused is screen.query_one("#signals")
        await pilot.press("3")
        assert screen.query_one("#pane-tree").display and app.focused is screen.query_one("#tree")
        await pilot.press("5")
        assert ">2.0" in screen_text(app) and "<50%" in screen_text(app)  # breath charts with their thresholds
        await pilot.press("1")
        assert screen.query_one("#pane-claims").display


async def test_ack_asks_first_and_the_cursor_stays_on_its_line(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        table = app.screen.query_one("#signals")
        first, second = table.row_keys[:2]
        await pilot.press("K")
        assert isinstance(app.screen, AckDialog)  # asked first: nothing acknowledged yet
        assert {s.sig_id: s.state for s in fresh(demo_root).snapshot().signals}[first] == "pending"
        await pilot.press("enter")
        await settle(pilot)
        assert table.cursor_row == 0 and table.selected_key == second  # the line, not the row that moved down
    states = {s.sig_id: s.state for s in fresh(demo_root).snapshot().signals}
    assert states[first] == "delivered"
    assert sum(1 for s in states.values() if s == "pending") == 3


async def test_k_and_j_move_and_never_ack(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("2")
        table = app.screen.query_one("#signals")
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home")
        assert table.cursor_row == 0
        await settle(pilot)
    assert sum(1 for s in fresh(demo_root).snapshot().signals if s.state == "pending") == 4


async def test_detail_shows_file_history_and_git_log(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        file_text = str(app.screen.query_one("#file").render())
        assert "sess_id: sess-20261129-0830-api-tests" in file_text
        assert "HUMAN_GATE" in screen_text(app)
        log = str(app.screen.query_one("#git-log").render())
        assert f"bsi: gate HUMAN_GATE {GATED}" in log or "bsi: close satellite" in log
        await pilot.press("escape")
        assert not isinstance(app.screen, DetailScreen)


async def test_readonly_hides_and_refuses_every_action(make_app, demo_root: Path) -> None:  # noqa: ANN001
    before = sorted(p.read_bytes() for p in (demo_root / "claims").glob("*.yml"))
    app = make_app(readonly=True)
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", GATED)
        shown = {b.binding.action for b in app.screen.active_bindings.values()}
        assert not shown & {"approve", "reject", "open_claim", "close_claim", "abort", "release", "ack"}
        for key in ("a", "x", "o", "c", "p", "X", "w"):
            await pilot.press(key)
            await settle(pilot)
            assert not isinstance(app.screen, (GateDecisionDialog, OpenClaimScreen, CloseClaimScreen,
                                               CascadeDialog, SlugConfirmDialog))
        app.screen.action_approve()  # even called directly (palette, keymap), it is refused
        await settle(pilot)
        assert "READ-ONLY" in screen_text(app)
    assert status(demo_root, GATED) == "waiting_human"
    assert sorted(p.read_bytes() for p in (demo_root / "claims").glob("*.yml")) == before


async def test_watchdog_key_marks_expired_claims_stale(make_app, demo_root: Path, clock) -> None:  # noqa: ANN001
    clock.advance(minutes=25)  # api-search expired at 10:20
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert "-5m!" in screen_text(app)  # expired, not yet marked: shown as such
        await pilot.press("w")
        await settle(pilot)
        assert SEARCH in app.screen.query_one("#stale").row_keys
    assert status(demo_root, SEARCH) == "stale"


async def test_sync_without_remote_says_so(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("s")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("sync not configured" in m for m in messages)
        assert any("git remote add origin" in m for m in messages), messages  # and what to do about it


async def test_filter_narrows_the_tables_and_esc_clears(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("slash", *"api-tests")
        assert app.screen.query_one("#active").row_keys == [GATED]
        await pilot.press("enter")
        assert app.focused is app.screen.query_one("#active")
        await pilot.press("escape")
        assert len(app.screen.query_one("#active").row_keys) == 6


async def test_help_theme_and_palette(make_app, tmp_path: Path) -> None:  # noqa: ANN001
    app = make_app(remember_theme=True)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "Release a stale claim" in screen_text(app)
        await pilot.press("escape")
        await pilot.press("t")
        assert app.theme == "brain-light"
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")
        from brain_tui.tui.themes import load_settings

        assert "theme" not in load_settings()  # `t` is this cockpit's: no other cockpit or browser tab follows
        assert make_app(theme=None).theme == "brain-dark"
        keep = [c for c in app.get_system_commands(app.screen) if c.title.startswith("Theme: keep")]
        assert [c.title for c in keep] == ["Theme: keep brain-light for later cockpits"]
        keep[0].callback()
        assert load_settings()["theme"] == "brain-light"  # kept on purpose, from the palette
    again = make_app(theme=None)
    assert again.theme == "brain-light"
