"""The cursor row stays readable: every text on it at 4.5:1 or more (WCAG AA) in each theme, and no colour on
its own background once a 16-colour terminal (TERM=linux) rounds them (issue 19 item 8)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.color import ColorSystem

from .conftest import SEARCH, select, settle

pytestmark = pytest.mark.anyio


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """The WCAG contrast ratio of two colours."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def cursor_row(app: Any) -> list[Any]:
    """The text segments of the active table's cursor row (the selected claim's line)."""
    for strip in app.screen._compositor.render_strips():
        line = "".join(segment.text for segment in strip)
        if "0820-api-search" in line and "Implement" in line:
            return [s for s in strip if s.text.strip() and s.text.strip() != "│" and s.style is not None
                    and s.style.color is not None and s.style.bgcolor is not None]
    raise AssertionError("the cursor row is not on screen")


@pytest.mark.parametrize("theme", ["brain-dark", "brain-light", "high-contrast"])
async def test_the_cursor_row_reads_at_4_5_to_1_and_in_16_colours(make_app, theme: str) -> None:  # noqa: ANN001
    app = make_app(theme=theme)
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", SEARCH)
        await settle(pilot)
        segments = cursor_row(app)
        assert {"desktop", "leaf"} <= {s.text.strip() for s in segments}  # the muted cells (instance, level)
        for segment in segments:
            fg, bg = segment.style.color, segment.style.bgcolor
            ratio = contrast(tuple(fg.get_truecolor()), tuple(bg.get_truecolor()))
            assert ratio >= 4.5, (theme, segment.text, round(ratio, 2))
            low_fg, low_bg = fg.downgrade(ColorSystem.STANDARD), bg.downgrade(ColorSystem.STANDARD)
            assert low_fg.number is None or low_bg.number is None or low_fg.number % 8 != low_bg.number % 8, (
                theme, segment.text, low_fg, low_bg)
