"""What a gate asks to approve (issue 19): changed files and diff, the approved tree, refusal on a moved tree."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.gate_review import TreeChanged

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def make(brain_path: Path) -> tuple[Brain, str]:
    """A brain with a satellite on `src/` that committed one file and left one change uncommitted."""
    (brain_path / "src").mkdir()
    (brain_path / "src" / "old.py").write_text("x = 1\n")
    (brain_path / "other.md").write_text("outside\n")
    git(brain_path, "add", "-A")
    git(brain_path, "commit", "-qm", "base")
    b = Brain(brain_path, clock=lambda: T0 + timedelta(minutes=5), instance="t@test")
    sess = b.open_claim(OpenRequest(scope=parse_scope("src/"), ttl=timedelta(hours=2), instance="t@test"))
    (brain_path / "src" / "done.py").write_text("def f():\n    return 2\n")
    git(brain_path, "add", "src/done.py")
    git(brain_path, "commit", "-qm", f"add f ({sess})", "--date", (T0 + timedelta(minutes=10)).isoformat())
    (brain_path / "src" / "old.py").write_text("x = 3\n")
    (brain_path / "src" / "new.py").write_text("\x1b[31m[bold]red[/bold]\n")
    (brain_path / "other.md").write_text("outside, changed\n")
    b.gates.request(sess, "ready?")
    return b, sess


def test_show_lists_the_sessions_commits_and_uncommitted_changes_in_scope(brain: Path) -> None:
    b, sess = make(brain)
    shown = b.gates.show(sess)
    assert [f.path for f in shown.files] == ["src/done.py", "src/new.py", "src/old.py"]
    by_path = {f.path: f for f in shown.files}
    assert by_path["src/done.py"].committed and not by_path["src/old.py"].committed
    assert by_path["src/new.py"].how == "?"
    assert [s for _, s in shown.commits] == [f"add f ({sess})"]
    assert "+    return 2" in shown.diff and "-x = 1" in shown.diff and "+x = 3" in shown.diff
    assert "other.md" not in shown.diff and "claims/" not in shown.diff
    assert shown.status == "waiting_human" and shown.message == "ready?" and shown.tree
    assert shown.as_dict()["files"][0] == {"path": "src/done.py", "how": "A", "added": "2", "deleted": "0",
                                           "committed": True}  # a file the session's commit added
    assert by_path["src/old.py"].how == "M"


def test_a_rename_is_one_r_line_from_the_old_path_to_the_new(brain: Path) -> None:
    b, sess = make(brain)
    (brain / "src" / "keep.py").write_text("".join(f"line {n}\n" for n in range(20)))
    git(brain, "add", "src/keep.py")
    git(brain, "commit", "-qm", "base 2")
    git(brain, "mv", "src/keep.py", "src/kept.py")  # committed by the session, a line changed on the way
    (brain / "src" / "kept.py").write_text("".join(f"line {n}\n" for n in range(19)) + "line twenty\n")
    git(brain, "add", "src/kept.py")
    git(brain, "commit", "-qm", f"rename keep ({sess})")
    git(brain, "mv", "src/done.py", "src/finished.py")  # not committed yet
    shown = b.gates.show(sess)
    by_path = {f.path: f for f in shown.files}
    assert "src/keep.py" not in by_path and "src/done.py" not in by_path, sorted(by_path)
    assert (by_path["src/kept.py"].how, by_path["src/kept.py"].old_path) == ("R", "src/keep.py")
    assert (by_path["src/kept.py"].added, by_path["src/kept.py"].deleted) == ("1", "1")
    assert by_path["src/kept.py"].committed
    renamed = by_path["src/finished.py"]
    assert (renamed.how, renamed.old_path, renamed.committed) == ("R", "src/done.py", False)
    assert renamed.as_dict()["old_path"] == "src/done.py"
    assert "old_path" not in by_path["src/old.py"].as_dict()  # only a rename (or a copy) names one
    assert by_path["src/old.py"].how == "M"


def test_tree_moves_with_the_scope_only(brain: Path) -> None:
    b, sess = make(brain)
    first = b.gates.show(sess).tree
    (brain / "other.md").write_text("elsewhere again\n")
    assert b.gates.show(sess).tree == first
    (brain / "src" / "old.py").write_text("x = 4\n")
    assert b.gates.show(sess).tree != first
    assert git(brain, "status", "--porcelain", "--", "src/old.py").startswith(" M")  # user's index untouched


def test_approve_records_the_tree_it_approved(brain: Path) -> None:
    b, sess = make(brain)
    seen = b.gates.show(sess).tree
    out = b.gates.approve(sess, by="human:t", seen_tree=seen)
    assert out.as_dict()["approved_tree"] == seen
    doc = yaml.safe_load((brain / "claims" / f"{sess}.yml").read_text())
    assert doc["approved_tree"] == seen and doc["status"] == "open"


def test_approval_on_a_moved_tree_is_refused_naming_what_changed(brain: Path) -> None:
    b, sess = make(brain)
    seen = b.gates.show(sess).tree
    (brain / "src" / "late.py").write_text("y = 1\n")
    with pytest.raises(TreeChanged) as err:
        b.gates.approve(sess, by="human:t", seen_tree=seen)
    assert err.value.exit_code == 12 and "src/late.py" in str(err.value) and "review it again" in str(err.value)
    doc = yaml.safe_load((brain / "claims" / f"{sess}.yml").read_text())
    assert doc["status"] == "waiting_human" and "approved_tree" not in doc
    again = b.gates.show(sess).tree
    assert b.gates.approve(sess, by="human:t", seen_tree=again).status == "open"
