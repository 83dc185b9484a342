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


def test_every_file_name_of_a_brain_is_spelled_in_layout_only() -> None:
    import ast

    import brain_tui

    names = {layout.INDEX_FILE, layout.CONFIG_FILE, layout.STATE_DIR, *layout.DATA_DIRS}
    package = Path(brain_tui.__file__).parent
    spelled = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "layout.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and \
                    isinstance(node.value.value, str) and \
                    (node.value.value in names or node.value.value.startswith(f"{layout.STATE_DIR}/")):
                spelled.append(f"{path.relative_to(package)}:{node.lineno} {node.value.value}")
    assert spelled == []
    assert layout.HOOK_INDEX_FILE != layout.INDEX_FILE
