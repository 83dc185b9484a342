"""Shared pieces of the reliability harness: clones of a local bare remote, each racer with its own name."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import partial
from pathlib import Path

from tests import bsi as runner
from tests.bsi import clean_env, ok, run_bsi

#: git as the harness runs it: in the environment it inherits (each clone carries its own identity).
git = partial(runner.git, env=os.environ)


def racer_env(name: str) -> dict[str, str]:
    """Environment of one racer: its own git identity, no inherited brain or git settings."""
    return clean_env(pin=False, identity=name)


def claim_shown(clone: Path, sess: str, now: str) -> dict:
    """`bsi --json claim show SESS` on the clone, as its racer, at `now` (the claim's record as that clone holds it)."""
    return json.loads(ok(run_bsi("--json", "claim", "show", sess, brain=clone, now=now, env=racer_env(clone.name),
                                 timeout=120)))


def make_remote(tmp: Path, clones: int) -> tuple[Path, list[Path]]:
    """A bare remote seeded by `bsi init`, and `clones` clones of it."""
    remote = tmp / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch", "main", str(remote)], check=True)
    seed = tmp / "seed"
    ok(run_bsi("init", str(seed), now=None, env=racer_env("seed"), timeout=None))
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
    fresh = tmp / "fresh-check"
    shutil.rmtree(fresh, ignore_errors=True)
    git(tmp, "clone", "--quiet", str(remote), str(fresh))
    listed = run_bsi("--json", "claim", "list", "--all", brain=fresh, now=None, env=racer_env("checker"),
                     timeout=None)
    return json.loads(ok(listed))["claims"]
