"""The cockpit follows git's HEAD too: a commit alone can change what is in force (SPEC 22).

Another process writes a claim file, then commits it. A read that falls between the two shows HEAD's copy
(an uncommitted lift holds nothing up); the commit touches no file of the watched folders, so the cockpit must
notice HEAD moving, or it keeps showing the hold until some other file changes.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.records.in_force import IN_HEAD, STATUS_IN_HEAD

from .conftest import GATED, NOW

pytestmark = pytest.mark.anyio


async def _until(pilot, done) -> bool:  # noqa: ANN001
    for _ in range(300):  # the watcher reacts within a second or two; give it up to ~30 s under load
        if done():
            return True
        await pilot.pause(0.1)
    return done()


async def test_a_commit_that_makes_a_written_approval_in_force_shows_without_another_change(
        make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app(live=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        # Another terminal's `bsi gate approve`, caught between its write and its commit.
        Brain(demo_root, clock=lambda: NOW, commit=False, instance="prod@laptop").gates.approve(GATED, "ok")

        def held_from_head() -> bool:
            claim = app.snapshot.claim(GATED)
            return claim is not None and bool({IN_HEAD, STATUS_IN_HEAD} & set(claim.flags))

        assert await _until(pilot, held_from_head)  # the cockpit read the file: the gate still holds (HEAD's)
        subprocess.run(["git", "commit", "-qam", "bsi: gate APPROVED"], cwd=demo_root, check=True)

        def in_force() -> bool:
            claim = app.snapshot.claim(GATED)
            return claim is not None and claim.is_terminal and not claim.flags

        assert await _until(pilot, in_force)
        assert GATED not in app.screen.query_one("#active").row_keys
