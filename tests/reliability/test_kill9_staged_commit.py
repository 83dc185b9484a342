"""kill -9 right after the commit a write makes while another session has something staged (SPEC 11, 22).

With something else staged, the write commits through `git commit` over a copy of the index and the real index
catches up afterwards. A kill between the two left HEAD holding the new claim and the index not: `git status` showed
the claim as a staged deletion (and the file as untracked) for good, and the other session's next `git commit` would
have deleted the claim. The next command must settle it: the claim's index entry is HEAD's, the other file still
staged.
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import git, ok, run_bsi

from .faults import Faults, run_faulty
from .harness import racer_env

NOW = "2026-11-29T09:00:00Z"


def test_a_kill_after_the_commit_leaves_the_index_on_head_at_the_next_command(tmp_path: Path) -> None:
    env = racer_env("tester")
    brain = tmp_path / "brain"
    ok(run_bsi("init", str(brain), now=None, env=env))
    (brain / "other.md").write_text("another session's work\n")
    git(brain, "add", "other.md", env=env)
    faults = Faults.install(tmp_path)
    killed = run_faulty(faults, faults.env(env, on="commit", do="kill-after"), "claim", "open", "--scope", "a/",
                        "--slug", "k", brain=brain, now=NOW)
    assert killed.code == -9, (killed.code, killed.err, faults.steps())
    assert git(brain, "log", "-1", "--format=%s", env=env).strip() == "bsi: open claim sess-20261129-0900-k"
    ok(run_bsi("claim", "list", brain=brain, now=NOW, env=env))  # the next command, a reader
    status = git(brain, "status", "--porcelain", "--untracked-files=all", env=env).splitlines()
    assert status == ["A  other.md"]
