"""The wide layout gives each band the rows its panes hold (issue 19 item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.bands import BandNeeds, band_heights, tree_pane_width
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
        assert app.screen.query_one("#pane-tree").size.width >= 76
