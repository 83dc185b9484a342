"""The open form's conflict preview follows the brain while the form is open.

The pilot types a scope and a story; meanwhile another session opens a claim on that scope, or the holder the
preview named closes. The preview (and the parent ctrl+r offers) must speak of the brain as it is now, not as it
was when `o` was pressed: a holder shown as open after it closed is a parent the core refuses.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import claims
from brain_tui.tui.screens.claim_form import OpenClaimScreen

from .conftest import NOW, settle

pytestmark = pytest.mark.anyio
SIZES = [(80, 24), (120, 40)]


def other(root: Path) -> Brain:
    """Another session's `bsi` on the same brain."""
    return Brain(root, clock=lambda: NOW, instance="prod@laptop")


def preview(app) -> str:  # noqa: ANN001
    """The form's conflict preview, as shown."""
    return str(app.screen.query_one("#preview", Static).render())


@pytest.mark.parametrize("size", SIZES)
async def test_a_claim_opened_elsewhere_meanwhile_shows_in_the_preview(make_app, demo_root: Path,  # noqa: ANN001
                                                                      size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("o", *"wiki/new.md")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, OpenClaimScreen)
        assert "no conflict" in preview(app)
        other(demo_root).open_claim(claims.OpenRequest(
            scope=parse_scope("wiki/new.md", demo_root), ttl=parse_duration("2h"), instance="prod@laptop",
            slug="wiki-new", story="another session"))
        app.refresh_snapshot()  # the watcher sees the new claim file
        await settle(pilot)
        assert app.screen is form
        assert "wiki-new" in preview(app) and "no conflict" not in preview(app), preview(app)
