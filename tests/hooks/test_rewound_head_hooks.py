"""A brain whose HEAD is moved back by git (a rebase stopped at an old commit, a detached HEAD) holds what its branch
holds: the hook never lets a write through on the old commit's claims.

A stopped `git rebase -i` (or `git checkout --detach <old>`) puts the work tree and HEAD at a commit from before a
claim was opened or a human paused it: read from there, the file another session holds was free, and the paused
claim could write. bsi's own writes already refuse such a state (exit 20 and 25); a write decision refuses it too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import git, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_denied, event, hook

STRANGER = "5a1c9e0d-2b3f-4c6d-8e7f-9a0b1c2d3e4f"


def _rewind(brain: Path, to: str, how: str) -> None:
    if how == "rebase":  # a rebase stopped at its first step: HEAD detached at `to`, .git/rebase-merge present
        git(brain, "-c", "sequence.editor=sed -i 1ibreak", "rebase", "-i", to)
        assert (brain / ".git" / "rebase-merge").is_dir()
    else:
        git(brain, "checkout", "-q", "--detach", to)


@pytest.mark.parametrize("how", ["rebase", "detached"])
def test_a_file_held_on_the_branch_is_not_free_at_an_older_head(brain: Path, how: str) -> None:
    before = git(brain, "rev-parse", "HEAD").strip()
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--slug", "held", brain=brain))
    _rewind(brain, before, how)
    for _ in range(2):  # the core's answer, then the hook index's
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"), STRANGER)))
    assert holder


@pytest.mark.parametrize("how", ["rebase", "detached"])
def test_a_paused_claim_cannot_write_at_a_head_from_before_its_pause(brain: Path, how: str) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", AGENT, brain=brain))
    before = git(brain, "rev-parse", "HEAD").strip()
    ok(run_bsi("gate", "pause", sess, "stop writing", brain=brain))
    _rewind(brain, before, how)
    for _ in range(2):
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"))))
