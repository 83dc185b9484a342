"""Progressive start: paint from the blocking claims, then the full snapshot (closed claims, counts) arrives."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.model import BLOCKING_STATUSES
from brain_tui.tui import app as app_module

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
            assert any("done" in label for label in labels)  # children counts, closed ones included


async def test_refresh_during_full_load_waits_for_it(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app(progressive=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        partial = fresh(demo_root).snapshot(only_statuses=BLOCKING_STATUSES)
        app.full_loaded = False  # as while the worker reads
        parsed = app.brain.store.parsed_last
        app.refresh_snapshot()  # deferred: the store is the worker's
        assert app._refresh_after_load and app.brain.store.parsed_last == parsed
        app._full_loaded(partial, "")  # the load ends: a fresh incremental read, not the (older) result
        await settle(pilot)
        assert app.full_loaded and not app._refresh_after_load
        assert closed_ids(demo_root) <= {c.sess_id for c in app.snapshot.claims}


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
    real = app_module.fingerprint
    monkeypatch.setattr(app_module, "fingerprint", lambda root: calls.append("stat") or real(root))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)  # the watcher, env and breath workers start (the watcher never ends here)
        monkeypatch.setattr(app, "refresh_snapshot", lambda **_: calls.append("refresh"))
        calls.clear()
        go.set()
        for _ in range(50):
            await pilot.pause(0.02)
            if "stat" in calls:
                break
        app._stop_watch.set()
    assert calls[:1] == ["refresh"]  # no stat scan of the whole brain before the refresh
    assert "stat" in calls[1:]  # the safety net's fingerprint is taken afterwards
