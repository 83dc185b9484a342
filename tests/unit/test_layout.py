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


#: The endings of a constant's name that say it names a brain file or folder (`NOTIFIED_FILE`, `AGENTS_DIR`).
FILE_NAME_SUFFIXES = ("_FILE", "_DIR", "_DIRS", "_RECORD")


def spelled_outside_layout(source: str) -> list[tuple[int, str]]:
    """(line, value) of each string constant in `source` that spells a brain file name: a value layout.py
    holds or one under `.brain/`, or any string bound to a name ending like a file name's constant."""
    import ast

    names = {layout.INDEX_FILE, layout.CONFIG_FILE, layout.STATE_DIR, *layout.DATA_DIRS}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if not isinstance(value, ast.Constant) or not isinstance(value.value, str):
            continue
        named_as_file = any(isinstance(t, ast.Name) and t.id.endswith(FILE_NAME_SUFFIXES) for t in targets)
        if named_as_file or value.value in names or value.value.startswith(f"{layout.STATE_DIR}/"):
            found.append((node.lineno, value.value))
    return found


def test_the_scan_sees_a_file_name_constant_named_as_one() -> None:
    assert spelled_outside_layout('NOTIFIED_FILE = "notified.json"\nX: str = ".brain/x"\nN = "bsi"\n') == \
        [(1, "notified.json"), (2, ".brain/x")]


def test_every_file_name_of_a_brain_is_spelled_in_layout_only() -> None:
    import brain_tui

    package = Path(brain_tui.__file__).parent
    spelled = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "layout.py":
            continue
        spelled += [f"{path.relative_to(package)}:{line} {value}"
                    for line, value in spelled_outside_layout(path.read_text(encoding="utf-8"))]
    assert spelled == []
    assert layout.HOOK_INDEX_FILE != layout.INDEX_FILE
