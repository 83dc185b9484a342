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
