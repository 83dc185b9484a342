"""A kill during a fast-forward never leaves the user's uncommitted changes in git's stash.

With `git merge --autostash`, a kill after the stash and before it is applied again (here: git
killed once its merge is done, as a `post-merge` hook killing it would; bsi's git runs no hook of the
repository, so a `git` first on PATH does it) left the changes only in
`MERGE_AUTOSTASH`: the work tree showed the remote's version. The fast-forward now carries the
changes as they are (a file the remote also changed is refused, exit 22, nothing changed).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.bsi import run_bsi

from .harness import git, make_remote, racer_env

#: `git` that dies by SIGKILL once a fast-forward's merge is done (any other git command runs as it is).
KILL_GIT = """#!/bin/sh
case " $* " in
  *" merge "*--ff-only*) "$REAL_GIT" "$@"; kill -9 $$ ;;
  *) exec "$REAL_GIT" "$@" ;;
esac
"""


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
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(KILL_GIT)
    wrapper.chmod(0o755)
    env = racer_env("b")
    killing = {**env, "PATH": f"{wrapper.parent}{os.pathsep}{env['PATH']}", "REAL_GIT": shutil.which("git") or "git"}
    killed = run_bsi("sync", brain=behind, now=None, env=killing, timeout=120)  # git is killed mid-way
    assert killed.code != 0, killed  # the kill happened
    run_bsi("sync", brain=behind, now=None, env=env, timeout=120)  # the next command recovers
    assert (behind / "notes.md").read_text() == "first\nmy unsaved line\n"
    assert (behind / "wiki" / "a.md").is_file()
    assert git(behind, "stash", "list").strip() == ""
    assert not (behind / ".git" / "MERGE_AUTOSTASH").exists()
