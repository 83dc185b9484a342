"""The cockpit lays itself out once when it starts (a first paint over SSH pays for every extra pass)."""

from __future__ import annotations

import pytest

from brain_tui.tui.screens.cockpit import CockpitScreen
from brain_tui.tui.widgets.footer import FittingFooter

from .conftest import settle

pytestmark = pytest.mark.anyio


async def test_a_start_fits_the_bands_once(make_app, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    fits: list[int] = []
    measure = CockpitScreen._band_needs

    def counted(self: CockpitScreen, width: int):  # noqa: ANN202
        fits.append(width)
        return measure(self, width)

    monkeypatch.setattr(CockpitScreen, "_band_needs", counted)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert fits == [120]  # the screen's own resize at mount changes nothing: no second pass
        await pilot.resize_terminal(130, 40)
        await settle(pilot)
        assert fits[-1] == 130  # a real resize still lays out again


def _styles(app) -> list[tuple[str, str]]:  # noqa: ANN001
    """Each node of the screen with the CSS rules applied to it."""
    return [(repr(node), node._css_styles.css) for node in app.screen.walk_children(with_self=True)]


async def test_the_first_resume_does_not_style_the_screen_again(make_app,  # noqa: ANN001
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    restyled: list[object] = []
    restyle = CockpitScreen.update_node_styles

    def counted(self: CockpitScreen, animate: bool = True) -> None:
        restyled.append(self)
        restyle(self, animate)

    monkeypatch.setattr(CockpitScreen, "update_node_styles", counted)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert restyled == []  # each widget was styled as it mounted
        before = _styles(app)
        monkeypatch.setattr(CockpitScreen, "update_node_styles", restyle)
        app.screen.update_node_styles(animate=False)
        await settle(pilot)
        assert _styles(app) == before  # and what a full restyle gives is what it has


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_a_full_restyle_after_start_changes_nothing(make_app, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        before = _styles(app)
        assert sum(bool(css) for _node, css in before) > 20  # the widgets' rules, not empty ones
        app.screen.update_node_styles(animate=False)
        await settle(pilot)
        assert _styles(app) == before


async def test_a_resize_to_the_size_laid_out_does_not_lay_out_again(make_app,  # noqa: ANN001
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    resized: list[object] = []
    handle = CockpitScreen._screen_resized

    def counted(self: CockpitScreen, size) -> None:  # noqa: ANN001
        resized.append(size)
        handle(self, size)

    monkeypatch.setattr(CockpitScreen, "_screen_resized", counted)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert resized == []  # laid out once at 120x40 as it showed: the resizes to 120x40 after are no change
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert resized and app.screen.size == (100, 30)
        assert app.screen.query_one(FittingFooter).region.bottom == 30
