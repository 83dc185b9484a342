"""The cockpit lays itself out once when it starts (a first paint over SSH pays for every extra pass)."""

from __future__ import annotations

import pytest

from brain_tui.tui.screens.cockpit import CockpitScreen

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
