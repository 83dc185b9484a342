"""bsi's own git runs no program the repository names (SPEC 21): `.git` is writable from an agent's sandboxed shell
(satellites commit), and bsi runs outside that sandbox (the MCP server, the hooks, the pilot's cockpit), so a hook,
an fsmonitor or a filter planted there would run with the power to rewrite the claim files."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.claims import OpenRequest
from tests.bsi import NOW, git, ok, run_bsi


def _plant(brain: Path, marks: Path) -> None:
    """Every way a repository names a program git runs on a commit, a status or a diff: each leaves a mark."""
    hooks = brain / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("reference-transaction", "post-commit", "post-index-change"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marks / name}\n")
        (hooks / name).chmod(0o755)
    git(brain, "config", "core.fsmonitor", f"touch {marks / 'fsmonitor'}; true")
    git(brain, "config", "filter.planted.clean", f"touch {marks / 'clean'}; cat")
    git(brain, "config", "filter.planted.smudge", f"touch {marks / 'smudge'}; cat")
    git(brain, "config", "diff.planted.textconv", f"touch {marks / 'textconv'}; cat")
    (brain / ".git" / "info").mkdir(exist_ok=True)
    (brain / ".git" / "info" / "attributes").write_text("* filter=planted diff=planted\n")


def test_a_write_a_status_and_a_gate_review_run_no_program_of_the_repository(brain: Path, tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    _plant(brain, marks)
    b = Brain(brain, now=NOW, instance="t@test")
    opened = b.open_claim(OpenRequest(parse_scope("src/", b.root), timedelta(hours=1), "t@test", story="s"))
    sess = opened
    (brain / "src").mkdir()
    (brain / "src" / "a.py").write_text("x = 1\n")
    ok(run_bsi("env", "--json", brain=brain))
    run_bsi("gate", "show", sess, brain=brain)
    assert sorted(p.name for p in marks.iterdir()) == []
    committed = git(brain, "show", f"HEAD:claims/{sess}.yml")
    assert committed == (brain / "claims" / f"{sess}.yml").read_text(encoding="utf-8")  # no filter on the way
