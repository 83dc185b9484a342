"""What needs the pilot, counted one way (issue 13 items 6–8 and the missing pieces a pilot reaches for).

The header, the queue screen (`g`), `n`, the bell and the tree all read `Brain.attention()`; the detail view
acts; the words are plain; the layout keeps its counters and its footer whole at any width.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets._footer import FooterKey

from brain_tui.tui.screens.cockpit import CockpitScreen
from brain_tui.tui.screens.confirm import GateDecisionDialog
from brain_tui.tui.screens.detail import DetailScreen
from brain_tui.tui.screens.queue import QueueScreen
from brain_tui.tui.screens.quick import RenewDialog, SendSignalDialog
from brain_tui.tui.widgets import history

from .conftest import DEPLOY, DOMAIN, GATED, PILOT, SEARCH, STALE, fresh, screen_text, select, settle

pytestmark = pytest.mark.anyio
SMALL = (80, 24)
WIDE = (120, 40)


def header(app: Any) -> str:
    """The header line as shown."""
    return str(app.screen.query_one("#header").render())


async def test_header_counts_the_queue_one_way(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        # the gate, the BLOCKED_ON, the stale claim and the newest sprint's breath alert: the four the queue lists
        assert "⚑ 4 need you" in header(app)
        await pilot.press("g")
        assert isinstance(app.screen, QueueScreen)
        assert len(app.screen.query_one("#gate-table").row_keys) == 4
        assert "⚑ 4 need you" in header(app)


async def test_header_keeps_its_counters_through_a_resize(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.resize_terminal(90, 30)
        await pilot.pause()
        assert "⚑ 4" in header(app) and "10:00" in header(app)
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert "⚑ 4 need you" in header(app) and "2026-11-29 10:00 UTC" in header(app)


async def test_a_gate_under_15_minutes_warns_in_header_bell_and_toast(make_app, clock) -> None:  # noqa: ANN001
    app = make_app()
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert "expiring" not in header(app) and rings == []
        clock.advance(minutes=20)  # the gate (TTL to 10:30) has 10 min left
        app.tick()
        await pilot.pause()
        assert "⏳ 1 expiring" in header(app)
        assert rings == [1]
        toast = [n for n in app._notifications if n.title == "expiring"]
        assert toast and "10m left" in toast[-1].message and "renew" in toast[-1].message
        app.tick()
        assert rings == [1]  # told once
        await pilot.press("g")
        assert "10m" in screen_text(app)  # time left on the gate row


async def test_n_goes_to_the_next_item_from_anywhere(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("n")
        assert screen.query_one("#active").selected_key == GATED and app.focused is screen.query_one("#active")
        await pilot.press("n")
        assert app.focused is screen.query_one("#signals")
        sig = screen.selected_signal()
        assert sig is not None and sig.type == "BLOCKED_ON"
        await pilot.press("n")
        assert screen.query_one("#stale").selected_key == STALE
        await pilot.press("n")  # the newest sprint's breath alert: the pilot ran it
        assert screen.query_one("#active").selected_key == PILOT
        await pilot.press("n")  # round again
        assert screen.query_one("#active").selected_key == GATED
        await pilot.press("question_mark", "escape", "enter")  # help, back, the detail of the gate
        assert isinstance(app.screen, DetailScreen)
        await pilot.press("n")  # from the detail: back to the cockpit, on the next item
        assert isinstance(app.screen, CockpitScreen) and app.focused is screen.query_one("#signals")


async def test_the_tree_shows_what_waits_inside_a_node(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree")
        labels = {node.data: str(node.label) for node in tree._tree_nodes.values() if node.data}
        assert "⚑2 inside" in labels[PILOT] and "⚑2 inside" in labels[DOMAIN]
        assert "inside" not in labels[GATED]
        tree._claim_nodes[DOMAIN].collapse()
        await pilot.pause()
        assert "⚑2 inside" in str(tree._claim_nodes[DOMAIN].label)  # collapsed, still telling


async def test_q_in_the_detail_closes_it_and_the_detail_can_act(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        await pilot.press("a")
        assert isinstance(app.screen, GateDecisionDialog)
        await pilot.press("escape")
        assert isinstance(app.screen, DetailScreen)
        await pilot.press("q")
        assert app.is_running and isinstance(app.screen, CockpitScreen)


async def test_a_blocked_on_names_and_acts_on_the_blocked_sender(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        table = app.screen.query_one("#signals")
        blocked = next(s for s in app.snapshot.signals if s.type == "BLOCKED_ON")
        table.select_key(blocked.sig_id)
        await pilot.press("enter")
        await settle(pilot)
        text = screen_text(app)
        assert "Sender's claim" in text and SEARCH in text  # the sender is the one that waits
        assert app.screen.target_claim("pause").sess_id == SEARCH  # and the keys act on it


async def test_renew_key_extends_a_claim(make_app, demo_root: Path) -> None:  # noqa: ANN001
    before = fresh(demo_root).snapshot().claim(DEPLOY).expires_at
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("r")
        assert isinstance(app.screen, RenewDialog)
        await pilot.press("enter")
        await settle(pilot)
    after = fresh(demo_root).snapshot().claim(DEPLOY).expires_at
    assert after is not None and before is not None and after > before


async def test_signal_send_from_the_cockpit(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("S")
        assert isinstance(app.screen, SendSignalDialog)
        assert app.screen.query_one("#to").value == DOMAIN  # to its parent by default
        await pilot.press(*"schema is merged")
        await pilot.press("ctrl+s")
        await settle(pilot)
    sent = [s for s in fresh(demo_root).snapshot().signals if s.payload == "schema is merged"]
    assert len(sent) == 1 and sent[0].sender == SEARCH and sent[0].to == DOMAIN and sent[0].type == "INFO"


async def test_watchdog_toast_speaks_english(make_app, clock) -> None:  # noqa: ANN001
    clock.advance(minutes=25)
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("w")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("watchdog: 5 active claims, 2 stale" in m for m in messages), messages
        assert not any("actifs" in m or "détectés" in m for m in messages)


async def test_a_refusal_is_said_in_plain_words(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("u")  # resume an open claim: refused before any dialog
        refusals = [n.message for n in app._notifications if n.title == "refused"]
        assert refusals and "waiting_human" not in refusals[-1] and "allowed from" not in refusals[-1]


async def test_demo_toast_goes_away_quickly(make_app) -> None:  # noqa: ANN001
    app = make_app(demo_path="/tmp/brain-tui-demo-x")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        demo = [n for n in app._notifications if n.title == "demo"]
        assert demo and demo[0].timeout <= 6


@pytest.mark.parametrize("width", [60, 80, 100])
async def test_footer_shows_whole_keys_only(make_app, width: int) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        footer = app.screen.query_one("FittingFooter")
        keys = [k for k in footer.query(FooterKey) if k.display]
        right = max(k.region.right for k in keys)
        assert right <= width  # nothing cut at the edge
        last_line = screen_text(app).splitlines()[-1]
        for key in keys:
            if key.has_class("-command-palette"):
                continue
            assert key.description in last_line
        assert ("palette" in last_line) == (width >= 70)


async def test_scope_and_story_take_the_room_there_is(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#active")
        widths = {str(key.value): col.width for key, col in table.columns.items()}
        assert widths["scope"] >= len("brain-engine/api/routes.py")
        assert sum(widths.values()) + 2 * len(widths) >= 180  # no band of empty columns on the right
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "routes.py" in text and "tests/" in text  # narrow: the ends of the paths, where they differ


async def test_sort_by_any_column(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#active")
        table.focus()
        table.sort_by("ttl")
        await pilot.pause()
        assert table.row_keys[0] == SEARCH  # 20m left, the least
        await pilot.press("less_than_sign")
        assert table.row_keys[-1] == SEARCH
        app.refresh_snapshot()
        await settle(pilot)
        assert table.row_keys[-1] == SEARCH  # a refresh keeps the order
        await pilot.press("greater_than_sign")
        assert table.sort_column != "ttl"


async def test_palette_finds_claims_and_panes(make_app) -> None:  # noqa: ANN001
    from brain_tui.tui.palette import BrainProvider

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        provider = BrainProvider(app.screen)
        hits = [hit async for hit in provider.search("deploy-notes")]
        assert hits and "0950-deploy-notes" in str(hits[0].text)
        hits[0].command()
        await pilot.pause()
        assert app.screen.query_one("#active").selected_key == DEPLOY
        panes = [hit async for hit in provider.search("Locks")]
        assert panes
        panes[0].command()
        await pilot.pause()
        assert app.screen.current_pane == 6


async def test_locks_pane_lists_the_locks(make_app, demo_root: Path) -> None:  # noqa: ANN001
    fresh(demo_root).locks.acquire("brain-engine/api/routes.py", SEARCH)
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("6")
        text = screen_text(app)
        assert "routes.py" in text and "0820-api-search" in text


async def test_history_is_paged(make_app, monkeypatch) -> None:  # noqa: ANN001
    from brain_tui.tui.screens import cockpit

    monkeypatch.setattr(history, "PAGE_SIZE", 1)
    monkeypatch.setattr(cockpit, "PAGE_SIZE", 1)
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("7")
        table = app.screen.query_one("#history")
        first = table.row_keys
        assert len(first) == 1 and table.total >= 2
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert table.row_keys != first and len(table.row_keys) == 1
        assert "page 2/" in screen_text(app)
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert table.row_keys == first


async def test_tabs_are_clickable(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.click("#tab-2")
        await pilot.pause()
        assert app.screen.current_pane == 2 and app.screen.query_one("#pane-signals").display
        await pilot.click("#tab-3")
        await pilot.pause()
        assert app.screen.current_pane == 3
