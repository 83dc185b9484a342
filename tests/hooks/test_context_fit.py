"""A context's items count as brought in only when the text holds them whole (SPEC 20.2: each item once).

`fit_items` lists one item even when it alone passes the limit, cut short: such an item was counted as shown, and
so never brought in again whole."""

from __future__ import annotations

from brain_tui.hooks.context import CONTEXT_LIMIT, MORE_ITEMS, fit_items


def test_an_item_cut_at_the_limit_is_not_counted_as_shown() -> None:
    long = "- " + "x" * (CONTEXT_LIMIT + 50)
    shown, text = fit_items("BSI: new:", [("a", long), ("b", "- short")], MORE_ITEMS)
    assert len(text) <= CONTEXT_LIMIT
    assert shown == []  # cut short: it comes again (and `b` after it)


def test_items_that_fit_are_shown_and_the_rest_counted() -> None:
    line = "- " + "y" * 998  # 1,000 characters a line: nine fit beside the header and the count
    items = [(f"k{i}", line) for i in range(12)]
    shown, text = fit_items("BSI: new:", items, MORE_ITEMS)
    assert shown == [f"k{i}" for i in range(9)]
    assert text.endswith(MORE_ITEMS.format(3)) and len(text) <= CONTEXT_LIMIT
