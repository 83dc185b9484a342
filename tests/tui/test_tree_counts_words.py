"""The satellite tree's children counts say what they mean: failed children are among the ended ones, never
read as one more finished ("[1/3 done, 1 failed]" read as two finished when one had ended, failed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.rules.claims import CloseRequest

from .conftest import DOMAIN, GATED, SEARCH, fresh, screen_text, settle

pytestmark = pytest.mark.anyio


async def test_a_failed_child_is_counted_as_ended_and_named_failed(make_app, demo_root: Path) -> None:  # noqa: ANN001
    brain = fresh(demo_root)
    brain.close_claim(SEARCH, CloseRequest(status="ok", tests_total=1, tests_passed=1, tests_failed=0))
    brain.gates.reject(GATED, "the tests test nothing")  # a failed child beside a closed one
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        children = app.snapshot.children(DOMAIN)
        ended = sum(1 for c in children if c.is_terminal)
        text = screen_text(app)
        assert ended == 2 and f"[2/{len(children)} ended · 1 failed]" in text, text
        assert "done" not in text.split("pilot → domain → leaf")[1].split("Environment")[0]
