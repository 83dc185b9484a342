"""Finding a brain has one home (`core.layout`): the CLI, the hook and its shortcut agree on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.errors import NotFound
from brain_tui.core.paths import layout, path_keys


@pytest.fixture
def brain(tmp_path: Path) -> Path:
    root = tmp_path / "b"
    (root / "claims").mkdir(parents=True)
    (root / "src" / "deep").mkdir(parents=True)
    return root


def test_find_root_reads_the_environment_it_is_given(brain: Path, tmp_path: Path) -> None:
    assert layout.find_root(environ={"BRAIN_ROOT": str(brain)}, cwd=tmp_path) == brain.resolve()
    with pytest.raises(NotFound, match="no brain at"):
        layout.find_root(environ={"BRAIN_ROOT": str(tmp_path)}, cwd=brain)
    assert layout.find_root(environ={}, cwd=brain / "src" / "deep") == brain.resolve()
    with pytest.raises(NotFound, match="upwards"):
        layout.find_root(environ={}, cwd=tmp_path)


def test_locate_brain_skips_relative_starts_and_answers_none(brain: Path, tmp_path: Path) -> None:
    starts = ["", "src", str(tmp_path), str(brain / "src" / "deep")]
    assert layout.locate_brain(None, {}, starts) == str(brain.resolve())
    assert layout.locate_brain(None, {"BRAIN_ROOT": str(tmp_path)}, starts) is None
    assert layout.locate_brain(str(brain), {"BRAIN_ROOT": str(tmp_path)}, []) == str(brain.resolve())


def test_a_path_below_a_brain_is_held_by_it(brain: Path, tmp_path: Path) -> None:
    assert path_keys.brain_holding(str(brain / "src" / "deep" / "a.py")) == str(brain.resolve())
    assert path_keys.brain_holding(str(tmp_path / "a.py")) is None
