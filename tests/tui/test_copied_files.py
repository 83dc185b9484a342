"""A signal or claim file copied under another name inside the brain (a hand edit, a merge keeping both sides) carries
an ID another file carries: the cockpit shows one row per ID and keeps running (a table refuses a row key twice)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import settle

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("folder", ["signals", "claims"])
async def test_a_copied_file_is_one_row_and_no_crash(make_app, demo_root: Path, folder: str) -> None:  # noqa: ANN001
    first = sorted((demo_root / folder).glob("*.yml"))[0]
    shutil.copy(first, first.with_name(f"copy-{first.name}"))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in ("2", "3", "6", "7", "g", "escape", "1"):
            await pilot.press(key)
            await settle(pilot)
        assert app.is_running
        table = app.screen.query_one("#signals" if folder == "signals" else "#active")
        keys = list(table.row_keys)
        assert len(keys) == len(set(keys)) and keys, keys


async def test_a_copied_signal_file_is_an_unreadable_item_not_a_second_signal(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """The copy of `signals/<ID>.yml` is one corrupt row naming that file (`bsi attention` as the queue): the
    signals pane and the queue show the signal once, the copy as a file to remove."""
    blocked = next(p for p in sorted((demo_root / "signals").glob("*.yml")) if "BLOCKED_ON" in p.read_text())
    copy = blocked.with_name(f"copy-{blocked.name}")
    shutil.copy(blocked, copy)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert f"signals/{copy.name}" not in [s.path for s in app.snapshot.signals]
        assert [c.path for c in app.snapshot.corrupt] == [f"signals/{copy.name}"]
        keys = [item.key for item in app.queue]
        assert f"unreadable:signals/{copy.name}" in keys, keys
        assert keys.count(f"signal:{blocked.stem}") == 1, keys
