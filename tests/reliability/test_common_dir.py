"""The repository bsi runs git in is the one whose git directory holds the brain, never one a file there names.

A `commondir` file in the git directory makes git take the refs, the objects and the repository's config from the
folder it names: an agent's shell may write that file and that folder (the sandbox fences `.git/config`, not the
rest of `.git`). Through it, the config an agent wrote named the remote: a human's `bsi sync` fetched a commit
that lifted a pause and took it into the work tree: the pause was lifted in HEAD and in the work tree alike. bsi
runs no git in a `.git` folder that holds such a file: the sync is refused until a human removes it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.bsi import Run, run_bsi

from .harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"


def _bsi(clone: Path, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=NOW, env=racer_env(clone.name), timeout=None)


def _agent_git(git_dir: Path, *args: str, text: str | None = None) -> str:
    env = {**os.environ, "GIT_DIR": str(git_dir)}
    return subprocess.run(["git", *args], env=env, input=text, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_common_dir_file_never_names_the_remote_a_sync_takes_a_lift_from(tmp_path: Path) -> None:
    _, (clone,) = make_remote(tmp_path, 1)
    sess = _bsi(clone, "--sync", "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    assert _bsi(clone, "--sync", "gate", "pause", sess, "stop").code == 0
    rel = f"claims/{sess}.yml"
    # the agent: a copy of the repository inside `.git`, whose config names a remote of its own ...
    gdir = clone / ".git"
    evil = gdir / "evil"
    shutil.copytree(gdir, evil, ignore=shutil.ignore_patterns("evil", "hooks"))
    lifted = (clone / rel).read_text(encoding="utf-8").replace("status: paused", "status: open")
    blob = _agent_git(evil, "hash-object", "-w", "--stdin", text=lifted)
    _agent_git(evil, "read-tree", "HEAD")
    _agent_git(evil, "update-index", "--cacheinfo", f"100644,{blob},{rel}")
    commit = _agent_git(evil, "commit-tree", _agent_git(evil, "write-tree"), "-p", "HEAD", "-m", "resume",
                        text="resume\n")
    fake = gdir / "fake.git"
    git(tmp_path, "init", "--quiet", "--bare", str(fake))
    _agent_git(evil, "push", "--quiet", str(fake), f"{commit}:refs/heads/main")
    _agent_git(evil, "config", "remote.origin.url", str(fake))
    (gdir / "commondir").write_text("evil\n", encoding="utf-8")  # ... and the file that makes it the repository
    synced = _bsi(clone, "sync")  # the human's sync
    assert synced.code != 0 and "commondir" in synced.err, (synced.code, synced.out, synced.err)
    assert "status: paused" in (clone / rel).read_text(encoding="utf-8")
    listed = json.loads(_bsi(clone, "--json", "claim", "list").out)["claims"]
    assert [c["status"] for c in listed if c["sess_id"] == sess] == ["paused"]
