"""A tree row is cut at the pane's last column when no scrollbar shows, one column before it when one does.

The tree used to keep a scrollbar's column free whether or not a scrollbar showed: a long row ended one column
short of the border, with a blank column beside its ellipsis.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.widgets.satellite_tree import SatelliteTree

from .conftest import DOMAIN, INSTANCE, NOW, screen_text, settle
from .test_bands import deep_branch, natural_rows, tree_rows

pytestmark = pytest.mark.anyio


def _cut_rows(app) -> list[str]:  # noqa: ANN001
    return [shown for shown, whole in zip(tree_rows(app), natural_rows(app), strict=True)
            if shown.endswith("…") and shown != whole]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_cut_tree_row_reaches_the_border_when_no_scrollbar_shows(
        make_app, demo_root: Path, size: tuple[int, int]) -> None:  # noqa: ANN001
    deep_branch(demo_root)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("3")
        await settle(pilot)
        tree = app.screen.query_one("#tree", SatelliteTree)
        assert not tree.show_vertical_scrollbar
        cut = _cut_rows(app)
        assert cut, tree_rows(app)
        room = tree.content_region.width - tree.scrollbar_size_vertical  # 0 when no scrollbar shows
        assert all(len(row) == room for row in cut), (cut, room)
        assert tree.virtual_size.width <= room  # and nothing scrolls sideways


def many_satellites(root: Path, count: int = 24) -> None:
    """`count` more satellites below the demo's domain: more rows than the pane at 80x24 holds."""
    from brain_tui.core.brain import Brain
    from brain_tui.core.clock import parse_duration
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.rules import claims

    brain = Brain(root, clock=lambda: NOW, instance=INSTANCE, commit=False)
    for i in range(count):
        brain.open_claim(claims.OpenRequest(
            scope=parse_scope(f"brain-engine/api/part{i:02d}/", root), ttl=parse_duration("2h"), instance=INSTANCE,
            parent=DOMAIN, story="x", slug=f"s{i:02d}"))


async def test_a_cut_tree_row_stops_before_a_scrollbar_that_shows(make_app, demo_root: Path) -> None:  # noqa: ANN001
    many_satellites(demo_root)
    deep_branch(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        tree = app.screen.query_one("#tree", SatelliteTree)
        assert tree.show_vertical_scrollbar
        region = tree.content_region
        lines = screen_text(app).splitlines()
        cut = [row for row in (lines[y][region.x:region.right].rstrip() for y in range(region.y, region.bottom))
               if row.endswith("…")]
        assert cut, "\n".join(lines)
        room = tree.content_region.width - tree.scrollbar_size_vertical  # 0 when no scrollbar shows
        assert all(len(row) == room for row in cut), (cut, room)
        assert tree.virtual_size.width <= room


async def test_the_tree_pane_keeps_no_column_for_a_scrollbar_it_does_not_show(
        make_app, demo_root: Path) -> None:  # noqa: ANN001
    from brain_tui.tui.bands import BORDER

    from .conftest import fresh

    fresh(demo_root).gates.pause(DOMAIN, "hold")  # the domain's row is the widest, still under half of 160
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree", SatelliteTree)
        assert not tree.show_vertical_scrollbar
        widest = max(len(row) for row in natural_rows(app))
        assert widest + BORDER < 80
        assert app.screen.query_one("#pane-tree").outer_size.width == widest + BORDER
        assert not any(row.endswith("…") for row in tree_rows(app)), tree_rows(app)


async def test_the_tree_pane_keeps_a_column_for_a_scrollbar_it_shows(make_app, demo_root: Path) -> None:  # noqa: ANN001
    from brain_tui.tui.bands import BORDER

    many_satellites(demo_root, count=40)
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree", SatelliteTree)
        assert tree.show_vertical_scrollbar
        widest = max(len(row) for row in natural_rows(app))
        assert app.screen.query_one("#pane-tree").outer_size.width == max(160 * 2 // 5, widest + BORDER + 1)
