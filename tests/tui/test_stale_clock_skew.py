"""A stale mark made by a clock that runs ahead shows as such in the stale pane (SPEC 3's `clock-skew` flag).

A machine whose clock is hours ahead runs the watchdog: claims still within their deadline here are marked stale.
`bsi claim list` flags them `clock-skew`; the stale pane offered `R release · TTL expired without close` beside an
"expired in 1h43m" that no pilot reads as a warning, inviting the release of a session still at work.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain

from .conftest import INSTANCE, NOW, PILOT, screen_text, settle

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_a_stale_mark_from_a_clock_ahead_says_clock_skew(make_app, demo_root: Path,  # noqa: ANN001
                                                              size: tuple[int, int]) -> None:
    ahead = NOW + timedelta(hours=6)
    Brain(demo_root, clock=lambda: ahead, instance=INSTANCE).watchdog()
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert PILOT in app.screen.query_one("#stale").row_keys
        text = screen_text(app)
        assert "[clock-skew]" in text, text
