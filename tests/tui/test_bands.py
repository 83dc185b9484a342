"""The wide layout gives each band the rows its panes hold (issue 19 item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.bands import BandNeeds, band_heights, corner_after, pane_shown, tree_pane_width
from brain_tui.tui.widgets.satellite_tree import SatelliteTree

from .conftest import CROWD, screen_text, settle

pytestmark = pytest.mark.anyio


def test_what_fits_is_given_and_the_claims_take_the_rest() -> None:
    assert band_heights(37, BandNeeds(top=13, mid=8, bottom=12)) == (8, 12)


def test_when_nothing_fits_the_claims_keep_half_and_the_others_share() -> None:
    mid, bottom = band_heights(37, BandNeeds(top=80, mid=22, bottom=11))
    assert 37 - mid - bottom >= 37 // 2
    assert (mid, bottom) == (13, 6)  # the middle holds twice as much; the bottom keeps a third of the rest
    assert band_heights(37, BandNeeds(top=13, mid=8, bottom=17)) == (8, 16)  # the tree whole, a chart line less
    assert band_heights(20, BandNeeds(top=80, mid=40, bottom=40)) == (5, 6)  # never below a few lines


async def test_a_crowded_brain_at_120x40_shows_its_claims(make_app, crowded_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        active = app.screen.query_one("#active")
        assert active.row_count == CROWD + 6
        shown = active.region.height - 1  # less its header
        assert shown >= 10, shown  # 7 before the bands were fitted
        env_pane = app.screen.query_one("#pane-env")
        assert env_pane.region.height <= 13  # it gives away what it does not hold


async def test_a_small_brain_gives_the_environment_its_lines(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        env = app.screen.query_one("#env")
        scroll = app.screen.query_one("#env-scroll")
        assert scroll.region.height >= env.region.height  # nothing of it scrolled away


def test_the_tree_pane_takes_the_columns_its_labels_need_up_to_half() -> None:
    assert tree_pane_width(120, 40) == 48  # short labels: its share, 2 of 5
    assert tree_pane_width(120, 56) == 59  # the widest line, the border and a scrollbar
    assert tree_pane_width(120, 90) == 60  # never more than half: the signals keep theirs


async def test_the_tree_labels_show_whole_at_120x40(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree", SatelliteTree)
        labels = [str(tree.get_node_at_line(line).label) for line in range(tree.last_line + 1)]  # type: ignore[union-attr]
        assert any("inside" in label for label in labels), "the demo's pilot shows what waits inside it"
        text = screen_text(app)
        assert [label for label in labels if label not in text] == []
        await pilot.resize_terminal(80, 24)  # one pane at a time: the whole width again
        await pilot.press("3")
        await settle(pilot)
        assert app.screen.query_one("#pane-tree").outer_size.width >= 76


def tree_rows(app) -> list[str]:  # noqa: ANN001
    """The tree pane's rows as shown on screen, inside its border."""
    tree = app.screen.query_one("#tree", SatelliteTree)
    region = tree.content_region
    lines = screen_text(app).splitlines()
    return [lines[y][region.x:region.right].rstrip() for y in range(region.y, region.y + tree.last_line + 1)]


def natural_rows(app) -> list[str]:  # noqa: ANN001
    """The tree's lines whole (guides, toggle and label), as they would show in a pane wide enough."""
    tree = app.screen.query_one("#tree", SatelliteTree)
    rows = []
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        assert node is not None
        depth, parent = 0, node.parent
        while parent is not None and parent is not tree.root:  # no root shown
            depth, parent = depth + 1, parent.parent
        toggle = (tree.ICON_NODE_EXPANDED if node.is_expanded else tree.ICON_NODE) if node.allow_expand else ""
        rows.append(f"{'x' * 3 * depth}{toggle}{node.label}")
    return rows


def assert_rows_fit(app) -> None:  # noqa: ANN001
    """Every tree row shows whole, or cut with an ellipsis inside the pane (never at its border, nor scrolled)."""
    tree = app.screen.query_one("#tree", SatelliteTree)
    room = tree.size.width - tree.scrollbar_size_vertical  # the scrollbar's column, while one shows
    for shown, whole in zip(tree_rows(app), natural_rows(app), strict=True):
        label = whole.lstrip("x")
        body = shown[len(whole) - len(label):]
        if len(whole) <= room:
            assert body == label, (shown, whole)
        else:
            assert body.endswith("…") and len(shown) == room, (shown, whole, room)
            assert label.startswith(body[:-1]), (shown, whole)
    assert tree.virtual_size.width <= room, "no horizontal scrollbar: the rows fit the pane"


async def test_a_paused_tree_row_ends_with_an_ellipsis_at_120x40(make_app, demo_root: Path) -> None:  # noqa: ANN001
    from .conftest import DOMAIN, fresh

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree", SatelliteTree)
        before = app.screen.query_one("#pane-tree").outer_size.width
        fresh(demo_root).gates.pause(DOMAIN, "hold")  # its labels grow in place (the tree keeps its shape)
        app.refresh_snapshot()
        await settle(pilot)
        assert any("paused" in str(tree.get_node_at_line(n).label) for n in range(tree.last_line + 1))  # type: ignore[union-attr]
        widest = max(len(row) for row in natural_rows(app))
        assert app.screen.query_one("#pane-tree").outer_size.width == tree_pane_width(120, widest) > before
        assert_rows_fit(app)
        assert any(row.endswith("…") for row in tree_rows(app)), "the domain's row is wider than half the screen"


async def test_the_tree_pane_gives_columns_back_when_its_labels_shrink(make_app, demo_root: Path) -> None:  # noqa: ANN001
    from .conftest import DOMAIN, fresh

    fresh(demo_root).gates.pause(DOMAIN, "hold")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.screen.query_one("#pane-tree").outer_size.width == 60  # at most half
        fresh(demo_root).gates.resume(DOMAIN, "go")
        app.refresh_snapshot()
        await settle(pilot)
        widest = max(len(row) for row in natural_rows(app))
        wanted = tree_pane_width(120, widest, scrollbar=False)  # all its lines show: no scrollbar's column
        assert app.screen.query_one("#pane-tree").outer_size.width == wanted < 60
        assert app.screen.query_one("#pane-signals").outer_size.width == 120 - wanted
        assert_rows_fit(app)


def deep_branch(root: Path, *, pause: bool = True) -> None:
    """Three satellites below the demo's domain, each inside the one before, with long names; the domain paused."""
    from brain_tui.core.brain import Brain
    from brain_tui.core.clock import parse_duration
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.rules import claims

    from .conftest import DOMAIN, INSTANCE, NOW

    brain = Brain(root, clock=lambda: NOW, instance=INSTANCE)
    parent = DOMAIN
    for depth in range(3):  # a deep branch of long names: its rows are wider than the whole screen
        parent = brain.open_claim(claims.OpenRequest(
            scope=parse_scope(f"brain-engine/api/models{depth}/", root), ttl=parse_duration("2h"),
            instance=INSTANCE, parent=parent, story="x", slug=f"a-satellite-with-a-very-long-name-{depth}"))
    if pause:
        brain.gates.pause(DOMAIN, "hold")


async def test_tree_rows_fit_their_pane_at_80x24(make_app, demo_root: Path) -> None:  # noqa: ANN001
    deep_branch(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        assert_rows_fit(app)
        assert any(row.endswith("…") for row in tree_rows(app)), (tree_rows(app), natural_rows(app))
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert_rows_fit(app)


async def test_a_collapsed_branch_gives_its_columns_back(make_app, demo_root: Path) -> None:  # noqa: ANN001
    from .conftest import DOMAIN

    deep_branch(demo_root, pause=False)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#tree", SatelliteTree)
        assert app.screen.query_one("#pane-tree").outer_size.width == 60  # the deep rows want more than half
        await pilot.press("3")
        while tree.selected_id != DOMAIN:
            await pilot.press("down")
        await pilot.press("space")  # collapse the domain: its long satellites are no longer shown
        await settle(pilot)
        widest = max(len(row) for row in natural_rows(app))
        assert app.screen.query_one("#pane-tree").outer_size.width == tree_pane_width(120, widest, scrollbar=False) < 60
        assert_rows_fit(app)


def test_history_takes_the_environment_and_the_corner_in_the_wide_layout() -> None:
    shown = {group for group in range(1, 8) if pane_shown(group, wide=True, current=7, corner=7)}
    assert shown == {1, 2, 3, 7}
    assert {group for group in range(1, 8) if pane_shown(group, wide=True, current=6, corner=6)} == {1, 2, 3, 4, 6}
    assert {group for group in range(1, 8) if pane_shown(group, wide=False, current=7, corner=7)} == {7}
    assert corner_after(4, 7) == 5 and corner_after(4, 6) == 6 and corner_after(7, 5) == 7 and corner_after(2, 7) == 7
