"""A sprint ID that is not one (SPEC 17) is refused by every breath action (exit 65) before anything is written,
asked of `Brain` in process. tests/cli/test_breath.py keeps one `bsi` case for the exit code and message."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from tests.rules.facade import at, refused

EVIL = "../claims/evil"
ACTIONS: dict[str, Callable[[Brain], object]] = {
    "inhale": lambda b: b.breath.inhale(EVIL, "a", ["x.md"]),
    "reference": lambda b: b.breath.reference(EVIL, ["x.md"]),
    "expire": lambda b: b.breath.expire(EVIL, ["x.md"]),
    "show": lambda b: b.breath.metrics([EVIL]),
}


@pytest.mark.parametrize("action", list(ACTIONS))
def test_bad_sprint_id_is_refused_on_every_action(brain: Path, action: str) -> None:
    before = sorted(p.name for p in brain.rglob("*.yml"))
    error = refused(lambda: ACTIONS[action](at(brain)), 65)
    assert "invalid sprint ID" in str(error)
    assert sorted(p.name for p in brain.rglob("*.yml")) == before
