"""Progressive start: paint from the blocking claims, then the full snapshot (closed claims, counts) arrives."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.tui import feed as feed_module

from .conftest import fresh, settle

pytestmark = pytest.mark.anyio


def closed_ids(root: Path) -> set[str]:
    """The claims of the demo brain that a blocking-only read leaves out."""
    return {c.sess_id for c in fresh(root).snapshot().claims if c.status not in BLOCKING_STATUSES}


async def test_progressive_start_then_full_snapshot(make_app, demo_root: Path) -> None:  # noqa: ANN001
    closed = closed_ids(demo_root)
    assert closed, "the demo brain has closed claims"
    app = make_app(progressive=True)
    assert not app.full_loaded
    assert not closed & {c.sess_id for c in app.snapshot.claims}  # first paint: blocking claims only
    full = make_app()
    assert full.full_loaded  # live=False without progressive: everything before the first paint
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.first_paint_at is not None
        assert app.full_loaded
        assert closed <= {c.sess_id for c in app.snapshot.claims}
        async with full.run_test(size=(120, 40)) as full_pilot:
            await settle(full_pilot)
            tree = app.screen.query_one("#tree")
            full_tree = full.screen.query_one("#tree")
            labels = [str(n.label) for n in tree._tree_nodes.values()]
            assert labels == [str(n.label) for n in full_tree._tree_nodes.values()]
            assert any("ended" in label for label in labels)  # children counts, closed ones included


async def test_reads_run_off_the_ui_thread_one_at_a_time(make_app, demo_root: Path) -> None:  # noqa: ANN001
    import threading
    import time

    app = make_app(progressive=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        real = app.brain.snapshot
        seen: list[str] = []
        running = [0, 0]  # now, most at once

        def slow_snapshot(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            running[0] += 1
            running[1] = max(running)
            seen.append(threading.current_thread().name)
            time.sleep(0.05)
            try:
                return real(*args, **kwargs)
            finally:
                running[0] -= 1

        app.brain.snapshot = slow_snapshot  # type: ignore[method-assign]
        fresh(demo_root).gates.request("sess-20261129-0950-deploy-notes", "ship?")
        for _ in range(5):
            app.refresh_snapshot()
        await settle(pilot)
        assert seen and threading.main_thread().name not in seen  # never on the UI thread
        assert running[1] == 1 and len(seen) <= 2  # five asks: one read, and at most one more after it
        assert app.snapshot.claim("sess-20261129-0950-deploy-notes").status == "waiting_human"


async def test_watch_event_refreshes_before_any_stat_scan(make_app, monkeypatch) -> None:  # noqa: ANN001
    import asyncio

    import watchfiles

    go = asyncio.Event()
    calls: list[str] = []

    async def fake_awatch(*_folders, **_options):  # noqa: ANN002, ANN003, ANN202
        await go.wait()
        yield {(watchfiles.Change.modified, "claims/x.yaml")}

    monkeypatch.setattr(watchfiles, "awatch", fake_awatch)
    app = make_app(live=True, progressive=False)
    real = feed_module.fingerprint
    monkeypatch.setattr(feed_module, "fingerprint", lambda root, held=None: calls.append("stat") or real(root, held))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)  # the watcher, env and breath workers start (the watcher never ends here)
        monkeypatch.setattr(app, "refresh_snapshot", lambda **_: calls.append("refresh"))
        calls.clear()
        go.set()
        for _ in range(50):
            await pilot.pause(0.02)
            if "stat" in calls:
                break
        app.feed.stop()
    assert calls[:1] == ["refresh"]  # no stat scan of the whole brain before the refresh
    assert "stat" in calls[1:]  # the safety net's fingerprint is taken afterwards


async def test_first_full_read_settles_the_heap_once(make_app, monkeypatch) -> None:  # noqa: ANN001
    from brain_tui.tui import heap

    settled: list[int] = []
    monkeypatch.setattr(heap, "settle", lambda: settled.append(1) or 0)
    app = make_app(progressive=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.full_loaded
        assert settled == [1]  # the long-lived objects leave the collector once the full snapshot is shown
        app.refresh_snapshot()
        await settle(pilot)
        assert settled == [1]  # a later read does not collect again


def test_settle_freezes_what_is_alive() -> None:
    import gc

    from brain_tui.tui import heap

    try:
        assert heap.settle() > 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


async def test_a_write_gives_its_pages_back_once_shown(make_app, monkeypatch) -> None:  # noqa: ANN001
    from brain_tui.tui import heap

    released: list[int] = []
    monkeypatch.setattr(heap, "release", lambda: released.append(1) or True)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.refresh_snapshot()
        await settle(pilot)
        assert released == []  # a read alone keeps the heap as it is
        app.call_core(lambda brain: brain.gates.request("sess-20261129-0950-deploy-notes", "ship?"))
        app.refresh_snapshot()
        await settle(pilot)
        assert released == [1]  # the snapshot after the write is shown, then the pages go back
        assert app.snapshot.claim("sess-20261129-0950-deploy-notes").status == "waiting_human"
        app.refresh_snapshot()
        await settle(pilot)
        assert released == [1]


def test_release_trims_where_the_c_library_can() -> None:
    import platform

    from brain_tui.tui import heap

    assert heap.release() is (platform.libc_ver()[0] == "glibc")
