"""A signal type written by hand is hostile text like any other: shown inert, placeholders and all, never altered.

Only a type that is a word (``checkpoint`` in an old file) is read upper-cased; other text keeps its own case,
so what the cockpit shows is the file's text with the product's placeholders (``⟨ESC⟩``), not a rewrite of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.screens.detail import DetailScreen

from .conftest import DEPLOY, PILOT, fresh, screen_text, select, settle

pytestmark = pytest.mark.anyio

SIG_ID = "sig-20261129-095900-evil"
HOSTILE_TYPE = "x\x1b[31mred\u202ez"
SHOWN = "x⟨ESC⟩[31mred⟨U+202E⟩z"


def write_signal(root: Path, sig_type: str, sig_id: str = SIG_ID) -> None:
    escaped = sig_type.encode("unicode_escape").decode("ascii").replace('"', '\\"').replace("\\x1b", "\\e")
    (root / "signals" / f"{sig_id}.yml").write_text(
        f"sig_id: {sig_id}\nfrom: {DEPLOY}\nto: {PILOT}\ntype: \"{escaped}\"\nscope: deploy/\n"
        "payload: hostile type\nstate: pending\ncreated_at: '2026-11-29T09:59:00+00:00'\n", encoding="utf-8")


def test_a_type_that_is_no_word_is_read_as_written(demo_root: Path) -> None:
    write_signal(demo_root, HOSTILE_TYPE)
    write_signal(demo_root, " checkpoint ", "sig-20261129-095800-word")
    types = {s.sig_id: s.type for s in fresh(demo_root).snapshot().signals}
    assert types[SIG_ID] == HOSTILE_TYPE
    assert types["sig-20261129-095800-word"] == "CHECKPOINT"


async def test_the_cockpit_shows_a_hostile_type_inert_and_unaltered(make_app, demo_root: Path) -> None:  # noqa: ANN001
    write_signal(demo_root, HOSTILE_TYPE)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select(pilot, "#signals", SIG_ID)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        text = screen_text(app)
        assert SHOWN in text
        assert "X⟨ESC⟩[31MRED" not in text
