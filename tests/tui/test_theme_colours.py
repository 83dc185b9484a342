"""Colours are theme `$variables` resolved when drawn: a theme change recolours the header, the tables and the
tree without rebuilding one row or label, and each role keeps its meaning (ok, warn, error, accent)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.content import Content

from brain_tui.tui.styles import ERROR, OK, WARN, rich_text

from .conftest import GATED, settle

pytestmark = pytest.mark.anyio


def colour_of(app: Any, fragment: str, after: str = "") -> str:
    """The foreground (hex) of the first segment on screen holding `fragment`, on the first line holding `after`."""
    for strip in app.screen._compositor.render_strips():
        line = "".join(segment.text for segment in strip)
        if after and after not in line:
            continue
        for segment in strip:
            if fragment in segment.text and segment.style is not None and segment.style.color is not None:
                return str(segment.style.color.triplet.hex).upper()  # type: ignore[union-attr]
    raise AssertionError(f"{fragment!r} not on screen")


def variable(app: Any, name: str) -> str:
    return app.get_css_variables()[name].upper()


async def test_a_theme_change_recolours_without_rebuilding(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("2")  # the satellite tree
        await settle(pilot)
        active = app.screen.query_one("#active")
        tree = app.screen.query_one("#tree")
        rows_before = active._keyed_rows
        labels_before = {key: node.label for key, node in tree._claim_nodes.items()}
        seen: dict[str, dict[str, str]] = {}
        for theme in ("brain-dark", "brain-light", "high-contrast"):
            app.theme = theme
            await settle(pilot)
            seen[theme] = {
                "header accent": colour_of(app, "prod", after="◆"),
                "open claim": colour_of(app, "●", after="api-search"),
                "tree gate": colour_of(app, "⚑ gate"),
            }
            assert seen[theme] == {"header accent": variable(app, "text-accent"),
                                   "open claim": variable(app, "text-success"),
                                   "tree gate": variable(app, "text-warning")}, theme
        assert len({tuple(colours.values()) for colours in seen.values()}) == 3  # each theme drew its own
        assert active._keyed_rows is rows_before  # no row was rebuilt …
        assert all(tree._claim_nodes[key].label is label for key, label in labels_before.items())  # … nor a label
        assert GATED in labels_before


async def test_rich_text_resolves_the_roles_of_the_running_theme(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)):
        text = rich_text(Content.assemble(("ok", OK), " ", ("warn", WARN), " ", ("err", ERROR)))
        styles = {text.plain[span.start:span.end]: span.style for span in text.spans}
        assert str(styles["ok"].color.triplet.hex).upper() == variable(app, "text-success")  # type: ignore[union-attr]
        assert styles["warn"].bold and styles["err"].bold  # warnings and errors read without colour too
        assert str(styles["err"].color.triplet.hex).upper() == variable(app, "text-error")  # type: ignore[union-attr]
