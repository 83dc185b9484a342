"""Shared pieces of the reliability harness: clones of a local bare remote and `bsi` runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BSI = [sys.executable, "-m", "brain_tui.cli.main"]


def git(cwd: Path, *args: str) -> str:
    """Run git and return stdout (raises on failure)."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def env_for(name: str) -> dict[str, str]:
    """Environment of one racer: its own git identity, no inherited brain settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BRAIN_", "GIT_"))}
    env.update({
        "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": f"{name}@example.org",
        "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": f"{name}@example.org",
    })
    return env


def make_remote(tmp: Path, clones: int) -> tuple[Path, list[Path]]:
    """A bare remote seeded by `bsi init`, and `clones` clones of it."""
    remote = tmp / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch", "main", str(remote)], check=True)
    seed = tmp / "seed"
    subprocess.run([*BSI, "init", str(seed)], check=True, capture_output=True, env=env_for("seed"))
    git(seed, "branch", "-M", "main")
    git(seed, "remote", "add", "origin", str(remote))
    git(seed, "push", "--quiet", "origin", "main")
    paths = []
    for i in range(clones):
        clone = tmp / f"clone{i}"
        git(tmp, "clone", "--quiet", str(remote), str(clone))
        git(clone, "config", "user.name", f"racer{i}")
        git(clone, "config", "user.email", f"racer{i}@example.org")
        paths.append(clone)
    return remote, paths


def remote_claims(remote: Path, tmp: Path) -> list[dict]:
    """Every claim in a fresh clone of the remote, as `bsi claim list --all --json` sees it."""
    import json
    import shutil

    fresh = tmp / "fresh-check"
    shutil.rmtree(fresh, ignore_errors=True)
    git(tmp, "clone", "--quiet", str(remote), str(fresh))
    out = subprocess.run([*BSI, "--brain", str(fresh), "--json", "claim", "list", "--all"], check=True,
                         capture_output=True, text=True, env=env_for("checker")).stdout
    return json.loads(out)["claims"]
