"""A time column sorts by the moment it shows, not by its text: "in 29m" after "in 3m", "1h ago" before both.

The locks pane's Expires column sorted "in 29m" before "in 3m" (text order), and an expired lock anywhere.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from urllib.parse import unquote

import pytest

from brain_tui.core.brain import Brain

from .conftest import NOW, SEARCH, settle

pytestmark = pytest.mark.anyio

#: file → when its lock expires, from NOW.
LOCKS = {"wiki/a.md": timedelta(minutes=29), "wiki/b.md": timedelta(minutes=3), "wiki/c.md": -timedelta(hours=1),
         "wiki/d.md": timedelta(hours=2, minutes=5), "wiki/e.md": -timedelta(minutes=5)}
BY_EXPIRY = ["wiki/c.md", "wiki/e.md", "wiki/b.md", "wiki/a.md", "wiki/d.md"]


async def test_the_locks_expires_column_sorts_by_the_moment(make_app, demo_root: Path) -> None:  # noqa: ANN001
    for file, left in LOCKS.items():
        at = NOW + left - timedelta(minutes=180)
        Brain(demo_root, clock=lambda at=at: at).locks.acquire(file, SEARCH, 180)
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        table = app.screen.query_one("#locks")
        table.sort_by("left")
        await pilot.pause()
        assert _files(table.row_keys) == BY_EXPIRY, table.row_keys
        table.sort_by("left", reverse=True)
        await pilot.pause()
        assert _files(table.row_keys) == BY_EXPIRY[::-1]


def _files(keys: list[str]) -> list[str]:
    """The locked files of the locks table's row keys (their lock files' paths)."""
    return [unquote(key.removeprefix("locks/").removesuffix(".yml")) for key in keys]


async def test_the_claims_ttl_column_sorts_by_the_moment(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#active")
        snapshot = app.snapshot
        expiry = {c.sess_id: c.expires_at for c in snapshot.claims}
        table.sort_by("ttl")
        await pilot.pause()
        keys = [k for k in table.row_keys if expiry.get(k) is not None]
        assert keys == sorted(keys, key=lambda k: expiry[k])
