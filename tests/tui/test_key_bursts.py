"""Keys delivered in one burst (a fast typist, an SSH connection): each lands where the pilot aimed it."""

from __future__ import annotations

import pytest

from .conftest import SEARCH, select
from .test_forms import burst

pytestmark = pytest.mark.anyio
SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("after", ["o", "c", "r", "g", "?", "l", "n", "\t"])
async def test_keys_after_q_in_the_same_burst_do_nothing(make_app, size: tuple[int, int], after: str) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", SEARCH)
        await burst(pilot, "q" + after)
    assert app.return_code == 0
