"""The satellite tree keeps a cursor through a filter that empties it: clearing the filter brings it back."""

from __future__ import annotations

import pytest

from .conftest import DOMAIN, settle

pytestmark = pytest.mark.anyio


async def test_the_tree_cursor_comes_back_after_a_filter_emptied_the_tree(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.screen.query_one("#tree")
        await pilot.press("3")
        await pilot.press("j")
        await settle(pilot)
        assert tree.selected_id == DOMAIN
        await pilot.press("slash", *"zzz", "enter")  # no claim has a z: empty at once; enter: back to the tree
        await settle(pilot)
        assert tree.node_ids == [] and app.focused is tree
        await pilot.press("escape")
        await settle(pilot)
        assert tree.node_ids and tree.selected_id == DOMAIN  # the node it was on, still there
        await pilot.press("3", "j")
        await settle(pilot)
        assert tree.selected_id is not None and tree.selected_id != DOMAIN  # and it moves on from there
