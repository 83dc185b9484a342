"""The palette shows a hostile claim's scope and story inert, like every other pane (SPEC 15).

Textual's command palette reads a hit's prompt and help text as markup when they are strings: a claim's
story must reach it as a `Content` built from plain text, never as a string.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.content import Content

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import claims
from brain_tui.tui.palette import BrainProvider

from .conftest import HOSTILE_STORIES, NOW, screen_text, settle

pytestmark = pytest.mark.anyio

WIDE = (120, 40)
MARKUP_STORY = next(story for slug, _scope, story in HOSTILE_STORIES if slug == "mkp")


async def test_palette_hits_carry_a_hostile_story_as_plain_text(hostile_root: Path, make_app) -> None:  # noqa: ANN001
    # A story whose markup parses: as markup, its words would become a link that quits the cockpit.
    Brain(hostile_root, clock=lambda: NOW, instance="evil@box").open_claim(claims.OpenRequest(
        scope=parse_scope("wiki/d.md", hostile_root), ttl=parse_duration("2h"), instance="evil@box",
        story="click [@click=app.quit]here[/] mkp", slug="clk"))
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        hits = [hit async for hit in BrainProvider(app.screen).search("mkp")]
        assert hits
        for hit in hits:
            # What the palette itself does with a hit (textual.command.CommandPalette._gather_commands).
            prompt = Content.from_markup(hit.prompt)  # type: ignore[arg-type]
            help_text = Content.from_markup(hit.help or "")
            assert not [span for span in [*prompt.spans, *help_text.spans] if "@click" in str(span.style)]
        shown = [Content.from_markup(hit.help or "").plain for hit in hits]
        assert any(MARKUP_STORY in line for line in shown)
        assert any("click [@click=app.quit]here[/] mkp" in line for line in shown)


async def test_typing_a_hostile_story_in_the_palette_shows_it_literally(hostile_root: Path, make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"mkp")
        await settle(pilot)
        assert isinstance(app.screen, CommandPalette)
        text = screen_text(app)
        assert "[ @click=app.quit] [b]bold[/b]" in text  # literal, not a link nor bold
        assert app.is_running
