"""A kill during a fast-forward never leaves the user's uncommitted changes in git's stash.

With `git merge --autostash`, a kill after the stash and before it is applied again (here: a
`post-merge` hook that kills git, the instant between the two) left the changes only in
`MERGE_AUTOSTASH`: the work tree showed the remote's version. The fast-forward now carries the
changes as they are (a file the remote also changed is refused, exit 22, nothing changed).
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import run_bsi

from .harness import git, make_remote, racer_env

KILL_GIT = "#!/bin/sh\nkill -9 $PPID\n"


def test_a_kill_inside_the_fast_forward_keeps_the_users_changes_in_the_work_tree(tmp_path: Path) -> None:
    _remote, (ahead, behind) = make_remote(tmp_path, 2)
    (ahead / "notes.md").write_text("first\n")
    git(ahead, "add", "notes.md")
    git(ahead, "commit", "-qm", "notes")
    git(ahead, "push", "--quiet", "origin", "main")
    git(behind, "pull", "--quiet", "--ff-only")
    (ahead / "wiki").mkdir(exist_ok=True)
    (ahead / "wiki" / "a.md").write_text("# a\n")
    git(ahead, "add", "wiki/a.md")
    git(ahead, "commit", "-qm", "wiki")
    git(ahead, "push", "--quiet", "origin", "main")
    (behind / "notes.md").write_text("first\nmy unsaved line\n")  # the user's change, not committed
    hook = behind / ".git" / "hooks" / "post-merge"
    hook.write_text(KILL_GIT)
    hook.chmod(0o755)
    run_bsi("sync", brain=behind, now=None, env=racer_env("b"), timeout=120)  # git is killed mid-way
    hook.unlink()
    run_bsi("sync", brain=behind, now=None, env=racer_env("b"), timeout=120)  # the next command recovers
    assert (behind / "notes.md").read_text() == "first\nmy unsaved line\n"
    assert (behind / "wiki" / "a.md").is_file()
    assert git(behind, "stash", "list").strip() == ""
    assert not (behind / ".git" / "MERGE_AUTOSTASH").exists()
