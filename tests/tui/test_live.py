"""Live behaviour: another process's changes show up, the cursor stays, modals pause refresh, TTLs tick, bell."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import claims
from brain_tui.tui.screens.help import HelpScreen

from .conftest import DEPLOY, GATED, PILOT, fresh, screen_text, settle

pytestmark = pytest.mark.anyio


def open_elsewhere(root: Path, scope: str, story: str, slug: str) -> str:
    """Another session (another process, as far as the cockpit knows) opens a claim."""
    brain = fresh(root)
    return brain.open_claim(claims.OpenRequest(scope=parse_scope(scope, root), ttl=parse_duration("2h"),
                                                 instance="prod@laptop", story=story, slug=slug))


async def test_refresh_shows_other_sessions_and_keeps_the_cursor(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.screen.query_one("#active")
        table.focus()
        table.select_key(DEPLOY)
        await pilot.pause()
        new_id = open_elsewhere(demo_root, "wiki/", "Glossary again", "glossary2")
        # sorted by opening time: the new claim (10:00) goes after DEPLOY (09:50), before the search scan
        app.refresh_snapshot()
        await settle(pilot)
        assert new_id in table.row_keys
        assert table.selected_key == DEPLOY  # the cursor did not jump
        assert app.brain.store.parsed_last == 1  # only the new file was parsed


async def test_live_watcher_follows_the_files_without_a_key(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app(live=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()  # (no settle: the watcher is a worker that runs until the app exits)
        new_id = open_elsewhere(demo_root, "wiki/", "Watched", "watched")
        table = app.screen.query_one("#active")
        for _ in range(200):  # the watcher reacts within a second or two; give it up to ~20 s under load
            if new_id in table.row_keys:
                break
            await pilot.pause(0.1)
        assert new_id in table.row_keys


async def test_a_new_breath_record_reaches_the_pane_with_the_snapshot(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """Breath records come with the snapshot: another session's inhale shows at the next refresh."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = len(app.readings.breath()[0] or ())
        fresh(demo_root).breath.inhale("sprint-20261129-1005-new", "tech-lead", ["wiki/a.md"])
        app.refresh_snapshot()
        await settle(pilot)
        assert [m.sprint for m in app.readings.breath()[0] or ()][-1] == "sprint-20261129-1005-new"
        assert len(app.readings.breath()[0] or ()) == before + 1
        assert "new•" in screen_text(app)  # the open sprint's column in the pane


async def test_refresh_waits_while_a_modal_is_open(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        new_id = open_elsewhere(demo_root, "wiki/", "While you read help", "behind")
        app.refresh_snapshot()
        await settle(pilot)
        assert app.snapshot.claim(new_id) is None  # nothing re-read under the modal
        await pilot.press("escape")
        await settle(pilot)
        assert new_id in app.screen.query_one("#active").row_keys


async def test_ttl_counts_down_without_reading_the_disk(make_app, clock) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "2h00m" in screen_text(app)  # the pilot's TTL at 10:00
        store = app.brain.store

        def no_disk(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
            raise AssertionError("tick must not read the disk")

        store.snapshot = no_disk  # type: ignore[method-assign]
        clock.advance(minutes=30)
        app.tick()
        await pilot.pause()
        text = screen_text(app)
        assert "1h30m" in text and "10:30 UTC" in text


async def test_bell_rings_for_a_new_gate(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        app.refresh_snapshot()  # the first look sets the baseline: no bell for gates already there
        assert rings == []
        fresh(demo_root).gates.request(PILOT, "merge to main?")
        app.refresh_snapshot()
        await settle(pilot)
        assert rings == [1]
        app.refresh_snapshot()  # nothing new: silence
        await settle(pilot)
        assert rings == [1]


async def test_bell_can_be_turned_off(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app(bell=False)
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        app.refresh_snapshot()
        fresh(demo_root).signals.send("sess-20261129-0820-api-search", PILOT, "BLOCKED_ON", "need the schema")
        app.refresh_snapshot()
        await settle(pilot)
        assert rings == []
        assert any("waiting for a human" in n.message for n in app._notifications)


async def test_gate_key_from_anywhere_and_approval_refreshes(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        keys = app.screen.query_one("#gate-table").row_keys
        assert any(GATED in key for key in keys)
        fresh(demo_root).gates.approve(GATED, "ok from the CLI")
        app.refresh_snapshot()
        await settle(pilot)
        assert not any(GATED in key for key in app.screen.query_one("#gate-table").row_keys)


async def test_a_worker_s_answer_arriving_after_the_screens_are_gone_ends_cleanly(make_app, demo_root: Path) -> None:  # noqa: ANN001
    # The watcher, the timers and the readers run beside the screens: quitting while another session writes a
    # claim (or as a tick, a sync or a reading ends) delivers their message once the screens are gone. Each
    # handler asked `app.screen` (is a dialog open?) and the cockpit ended on a ScreenStackError traceback.
    from brain_tui.tui.messages import EnvRead, FilesChanged, LiveSessionsRead, SnapshotLoaded, SyncFinished

    from .conftest import FAKE_ENV

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        snapshot = app.snapshot
    assert not app.screen_stack
    open_elsewhere(demo_root, "wiki/", "Written as the cockpit quits", "late")
    app._files_changed(FilesChanged((str(demo_root / "claims"),), watched=True))
    app.refresh_snapshot()
    app.tick()
    app._snapshot_loaded(SnapshotLoaded(snapshot))
    app.on_env_read(EnvRead(FAKE_ENV, ""))
    app.on_live_sessions_read(LiveSessionsRead({}))
    app._sync_finished(SyncFinished("fetch", None, error="remote gone"))
    app.catch_up()


async def test_a_watcher_message_handled_while_the_screens_close_ends_cleanly(make_app, demo_root: Path) -> None:  # noqa: ANN001
    # The flake of `test_live_watcher_follows_the_files_without_a_key` under load: the watcher's FilesChanged
    # (from the write it waits for, debounced) reached the app between the screens' removal and the end of its
    # message loop, and the exit raised ScreenStackError. Here the message arrives at exactly that moment.
    import asyncio

    from brain_tui.tui.messages import FilesChanged

    app = make_app()
    close_all = app._close_all

    async def close_then_a_change() -> None:
        await close_all()
        assert not app.screen_stack
        app.post_message(FilesChanged((str(demo_root / "claims"),), watched=True))
        await asyncio.sleep(0.05)  # the app's loop handles it before its own queue closes

    app._close_all = close_then_a_change  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
