"""The detail view of a claim whose file is a FIFO (an agent can `mkfifo` it) says the file cannot be read, never
waits on it. Before, its file view's worker blocked on the open for good."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest

from brain_tui.tui.screens.detail import DetailScreen

from .conftest import DEPLOY, select, settle

pytestmark = pytest.mark.anyio


def _release(path: Path) -> None:
    """Let a reader blocked on the FIFO go (it reads an end of file), so a failing test ends."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


async def test_the_detail_view_of_a_fifo_claim_file_says_it_cannot_be_read(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    path = demo_root / "claims" / f"{DEPLOY}.yml"
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", DEPLOY)
        path.unlink()
        os.mkfifo(path)  # planted while the cockpit runs, before the detail view reads the file
        await pilot.press("enter")
        try:
            await asyncio.wait_for(settle(pilot), 30)
            waited = False
        except TimeoutError:
            waited = True
        finally:
            for _ in range(50):
                _release(path)
                await asyncio.sleep(0.02)
        assert not waited, "the detail view waited on the FIFO"
        assert isinstance(app.screen, DetailScreen)
        shown = str(app.screen.query_one("#file").render())
        assert f"cannot read claims/{DEPLOY}.yml" in shown and "regular file" in shown
