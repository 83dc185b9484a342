"""A folder named like a lock or claim file is one corrupt row in the cockpit, as a file that does not read is
(SPEC 13): before, the cockpit showed nothing of it while `bsi lock acquire` of its file was refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.corrupt import corrupt_line

from .conftest import settle

pytestmark = pytest.mark.anyio

LOCK = "locks/brain-engine%2Fapi%2Froutes.py.yml"
CLAIM = "claims/sess-20261129-0901-folder.yml"


async def test_folders_named_like_brain_files_are_corrupt_rows(make_app, demo_root: Path) -> None:  # noqa: ANN001
    for rel in (LOCK, CLAIM):
        (demo_root / rel).mkdir()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#stale")
        keys = sorted(key for key in table.row_keys if key.startswith("corrupt:"))
        assert keys == [f"corrupt:{CLAIM}", f"corrupt:{LOCK}"]
        line = corrupt_line(app.snapshot, f"corrupt:{LOCK}")
        assert line is not None and "a folder, not a file" in line.plain and LOCK in line.plain
        assert app.is_running


async def test_a_lock_file_corrupt_in_head_and_in_the_work_tree_is_one_row(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """HEAD's copy and the work tree's copy of one lock file both corrupt: two corrupt entries of one path, one row
    (two would be one row key twice, which a table refuses)."""
    import subprocess

    (demo_root / LOCK).write_text("holder: [unclosed\n")
    subprocess.run(["git", "-C", str(demo_root), "add", LOCK], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(demo_root), "commit", "-qm", "a corrupt lock"], check=True, capture_output=True)
    (demo_root / LOCK).write_text("holder: {also: [bad\n")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#stale")
        keys = [key for key in table.row_keys if key.startswith("corrupt:")]
        assert keys == [f"corrupt:{LOCK}"], keys
        assert app.is_running
