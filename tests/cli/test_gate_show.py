"""`bsi gate show ID [--json]` and `bsi gate approve ID --tree`: what a gate asks to approve (issue 19)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bsi import run_bsi
from tests.conftest import load_claim

GATED = "sess-20261129-0830-api-tests"


def test_show_json_gives_the_changed_files_diff_tests_and_tree(demo_brain: Path) -> None:
    run = run_bsi("gate", "show", GATED, "--json", brain=demo_brain)
    assert run.code == 0, run
    data = json.loads(run.out)
    assert set(data) == {"sess_id", "status", "gate_message", "gate_origin", "scope", "tree", "approved_tree",
                         "commits", "files", "tests", "diff", "truncated"}
    assert data["status"] == "waiting_human" and data["gate_origin"] == "close"
    assert [f["path"] for f in data["files"]] == ["brain-engine/tests/test_pagination.py",
                                                   "brain-engine/tests/test_search.py"]
    assert data["tests"] == {"total": 24, "passed": 24, "failed": 0}
    assert len(data["tree"]) == 40 and data["approved_tree"] is None and not data["truncated"]
    assert GATED in data["commits"][0]["subject"] and "+def test_empty_query_returns_nothing" in data["diff"]


def test_show_text_makes_hostile_diff_text_inert(demo_brain: Path) -> None:
    (demo_brain / "brain-engine" / "tests" / "evil.py").write_text("x = '\x1b]0;owned\x07[red]hi[/red]'\n")
    run = run_bsi("gate", "show", GATED, brain=demo_brain)
    assert run.code == 0, run
    assert "\x1b" not in run.out and "\x07" not in run.out and "⟨ESC⟩" in run.out
    assert "? brain-engine/tests/evil.py (uncommitted)" in run.out


def test_show_text_gives_a_rename_as_one_r_line(demo_brain: Path) -> None:
    import subprocess

    subprocess.run(["git", "mv", "brain-engine/tests/test_search.py", "brain-engine/tests/test_find.py"],
                   cwd=demo_brain, check=True)
    run = run_bsi("gate", "show", GATED, brain=demo_brain)
    assert run.code == 0, run
    assert "R brain-engine/tests/test_search.py → brain-engine/tests/test_find.py" in run.out, run.out
    assert "D brain-engine/tests/test_search.py" not in run.out


def test_show_an_unknown_claim_exits_66(demo_brain: Path) -> None:
    run = run_bsi("gate", "show", "sess-20261129-0000-nope", brain=demo_brain)
    assert run.code == 66 and "not found" in run.err and "Traceback" not in run.err


def test_approve_on_a_moved_tree_exits_12_and_names_the_change(demo_brain: Path) -> None:
    seen = json.loads(run_bsi("gate", "show", GATED, "--json", brain=demo_brain).out)["tree"]
    (demo_brain / "brain-engine" / "tests" / "late.py").write_text("y = 2\n")
    run = run_bsi("gate", "approve", GATED, "--tree", seen, brain=demo_brain)
    assert run.code == 12 and "brain-engine/tests/late.py" in run.err and "review it again" in run.err, run
    assert load_claim(demo_brain, GATED)["status"] == "waiting_human"
    now = json.loads(run_bsi("gate", "show", GATED, "--json", brain=demo_brain).out)["tree"]
    run = run_bsi("gate", "approve", GATED, "--tree", now, "--json", brain=demo_brain)
    assert run.code == 0 and json.loads(run.out)["approved_tree"] == now, run
    doc = load_claim(demo_brain, GATED)
    assert doc["status"] == "closed" and doc["approved_tree"] == now


def test_approve_with_a_tree_that_is_no_hash_exits_65_and_decides_nothing(demo_brain: Path) -> None:
    """`--tree zzz` (or blank) is bad input, not a moved scope: 65, and the gate still waits."""
    for bad in ("zzz", "", "  ", "g" * 40):
        run = run_bsi("gate", "approve", GATED, "--tree", bad, brain=demo_brain)
        assert run.code == 65 and "--tree" in run.err and "Traceback" not in run.err, (bad, run)
    assert load_claim(demo_brain, GATED)["status"] == "waiting_human"
