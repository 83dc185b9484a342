"""The selection line above the footer is one line: a story too long for it ends with "…", never cut silently.

A word-wrapped line would show only its first row: the end of the story vanished without a mark, and a story
whose first word is long (escapes shown as ⟨ESC⟩ placeholders) did not show at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import claims

from .conftest import INSTANCE, NOW, SEARCH, screen_text, select

pytestmark = pytest.mark.anyio

LONG_WORD = "EVIL\x1b[31mRED\x1b]0;pwned\x07-and-then-some-more-text"


def _selection_line(app) -> str:  # noqa: ANN001
    return screen_text(app).splitlines()[-2].rstrip()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_long_story_ends_with_an_ellipsis(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        line = _selection_line(app)
        assert line.startswith(" ● sess-20261129-0820-api-search")
        assert line.endswith("…"), line


async def test_a_story_with_a_long_first_word_still_shows(make_app, demo_root: Path) -> None:  # noqa: ANN001
    brain = Brain(demo_root, clock=lambda: NOW, instance=INSTANCE)
    opened = brain.open_claim(claims.OpenRequest(scope=parse_scope("wiki/x.md", demo_root),
                                                 ttl=parse_duration("2h"), instance=INSTANCE, story=LONG_WORD,
                                                 slug="longword"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", opened)
        line = _selection_line(app)
        assert "EVIL⟨ESC⟩" in line and line.endswith("…"), line
