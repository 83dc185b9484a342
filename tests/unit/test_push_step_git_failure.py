"""A git failure between a synced write's local commit and its push (`remote.write_through`: the push guard's own
git reading) takes the local commit back, as a declined or unreachable push does: a write the caller is told failed
is never committed here to go out with the next sync. A human's pause then goes on as past any other git failure on
the remote's way: committed here, pending, said (`write_path.mutate`), never refused as "already paused"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.sync import gitops, push_guard
from tests.bsi import ok, run_bsi
from tests.reliability.harness import git, make_remote


def _fails(root: Path, tip: str | None) -> None:
    raise gitops.GitError("git diff failed: the objects could not be read")


def test_a_git_failure_after_the_local_commit_takes_it_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, (clone,) = make_remote(tmp_path, 1)
    sess = ok(run_bsi("--sync", "claim", "open", "--scope", "wiki/", "--story", "x", brain=clone, now=None))
    monkeypatch.setattr(push_guard, "check", _fails)
    before = git(clone, "rev-parse", "HEAD").strip()
    with pytest.raises(gitops.GitError):
        Brain(clone, sync="sync").signals.send("human:me", sess, "INFO", "hello")
    assert git(clone, "rev-parse", "HEAD").strip() == before, "a write said to have failed was committed"
    assert all("hello" not in path.read_text() for path in (clone / "signals").rglob("*") if path.is_file())

    brain = Brain(clone, sync="sync")
    brain.gates.pause(sess, "stop")
    assert git(clone, "log", "--format=%s", f"{before}..HEAD").split("\n")[:-1] == [f"bsi: gate PAUSED {sess}"]
    applied = brain.last_applied
    assert applied is not None and any("not pushed" in w for w in applied.warnings), applied
    assert json.loads((clone / ".brain" / "sync.json").read_text()).get("pending_since")
