"""A branch moved back under bsi by a program the hook cannot read (SPEC 21.3, 22).

An agent's shell may run `python3 -c 'subprocess.run(["git", "update-ref", "HEAD", OLD])'`: the sandbox leaves
`.git` writable, and the hook does not read a program's own git calls. HEAD then lacks the human's pause while the
fenced work tree (and the index) still hold it. The pause stays in force (a lift needs both: `records/in_force.py`),
and the human's next decision must still go through, committed on the branch as it is: nothing is left for a
hand repair (SPEC 22: the next command recovers by itself).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.bsi import git, ok, run_bsi

NOW = "2026-11-29T10:00:00+00:00"


def _status_in_head(brain: Path, sess: str) -> str:
    doc = yaml.safe_load(git(brain, "show", f"HEAD:claims/{sess}.yml"))
    return str(doc["status"])


def test_a_pause_moved_out_of_head_holds_and_the_humans_resume_still_commits(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "notes/", "--story", "x", brain=brain, now=NOW)).strip()
    before = git(brain, "rev-parse", "HEAD").strip()
    ok(run_bsi("gate", "pause", sess, "hold", brain=brain, now=NOW))
    git(brain, "update-ref", "HEAD", before)  # the agent's program: HEAD no longer holds the pause
    assert _status_in_head(brain, sess) == "open"

    held = run_bsi("preflight", "check", sess, "notes/a.md", brain=brain, now=NOW)
    assert held.code == 4 and "paused" in held.err, held

    ok(run_bsi("gate", "resume", sess, brain=brain, now=NOW))  # the human decides; bsi commits it on HEAD
    assert _status_in_head(brain, sess) == "open"
    assert git(brain, "log", "-1", "--format=%s").strip() == f"bsi: gate RESUMED {sess}"
    assert ok(run_bsi("preflight", "check", sess, "notes/a.md", brain=brain, now=NOW)) is not None
    assert git(brain, "status", "--porcelain", "--", "claims", "BRAIN-INDEX.md").strip() == ""


def test_the_next_human_pause_commits_over_a_branch_moved_back(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "notes/", "--story", "x", brain=brain, now=NOW)).strip()
    child = ok(run_bsi("claim", "open", "--scope", "notes/a/", "--parent", sess, "--story", "y", brain=brain,
                       now=NOW)).strip()
    before = git(brain, "rev-parse", "HEAD").strip()
    ok(run_bsi("gate", "pause", child, "hold", brain=brain, now=NOW))
    git(brain, "update-ref", "HEAD", before)
    ok(run_bsi("gate", "pause", sess, "hold the tree", brain=brain, now=NOW))  # committed over the moved branch
    assert _status_in_head(brain, sess) == "paused"
    held = run_bsi("preflight", "check", child, "notes/a/b.md", brain=brain, now=NOW)
    assert held.code == 4 and "paused" in held.err, held
