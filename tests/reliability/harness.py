"""Shared pieces of the reliability harness: clones of a local bare remote, each racer with its own name."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
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


def _build_remote(tmp: Path, clones: int) -> None:
    """Make `tmp`/remote.git (bare, seeded by `bsi init` in `tmp`/seed) and its clones `tmp`/clone0…"""
    remote = tmp / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch", "main", str(remote)], check=True)
    seed = tmp / "seed"
    ok(run_bsi("init", str(seed), now=None, env=racer_env("seed"), timeout=None))
    git(seed, "branch", "-M", "main")
    git(seed, "remote", "add", "origin", str(remote))
    git(seed, "push", "--quiet", "origin", "main")
    for i in range(clones):
        clone = tmp / f"clone{i}"
        git(tmp, "clone", "--quiet", str(remote), str(clone))
        git(clone, "config", "user.name", f"racer{i}")
        git(clone, "config", "user.email", f"racer{i}@example.org")


#: The remotes built so far in this process, by (clones, the environment's git settings): a folder holding them.
_BUILT: dict[tuple[int, tuple[tuple[str, str], ...]], Path] = {}


def _git_settings() -> tuple[tuple[str, str], ...]:
    """What of the environment the remote's making reads besides the harness's own choices."""
    return tuple(sorted((k, v) for k, v in os.environ.items()
                        if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME", "TZ")))


def _repoint(folder: Path, old: str, new: str) -> None:
    """Rewrite `old` (the folder the repositories were made in) to `new` in git's own text files under `folder`.

    The remote's absolute path is in each clone's ``config`` (origin's URL), ``FETCH_HEAD`` and reflogs; the
    objects, refs and the index name no absolute path.
    """
    before, after = old.encode(), new.encode()
    for git_dir in (folder / ".git", folder):
        for name in ("config", "FETCH_HEAD"):
            path = git_dir / name
            if path.is_file() and before in (data := path.read_bytes()):
                path.write_bytes(data.replace(before, after))
        logs = git_dir / "logs"
        if logs.is_dir():
            for path in logs.rglob("*"):
                if path.is_file() and before in (data := path.read_bytes()):
                    path.write_bytes(data.replace(before, after))


def copy_repositories(made: Path, tmp: Path, names: list[str] | None = None) -> None:
    """Copy the repositories `names` (default: all) of folder `made` into `tmp`, as if they had been made there.

    The folder's path is rewritten in git's text files (`_repoint`): each clone's origin is the copied remote.
    What the product keeps in ``.brain/`` names no absolute path, and what it keys on a file's identity is
    checked again against the copy, as git checks its index.
    """
    for name in names if names is not None else sorted(path.name for path in made.iterdir()):
        shutil.copytree(made / name, tmp / name, symlinks=True)
        _repoint(tmp / name, str(made), str(tmp))


def make_remote(tmp: Path, clones: int) -> tuple[Path, list[Path]]:
    """A bare remote seeded by `bsi init`, and `clones` clones of it.

    Built once per process for each number of clones (and git environment), then copied into `tmp` with the
    remote's path rewritten in git's files: each copy is the repositories a fresh build would give, byte for
    byte but for the moment of the seed's commit (the harness's commits carry `--now` or racer clocks).
    """
    names = ["remote.git", "seed", *(f"clone{i}" for i in range(clones))]
    if any((tmp / name).exists() for name in names):
        _build_remote(tmp, clones)
    else:
        key = (clones, _git_settings())
        made = _BUILT.get(key)
        if made is None or not made.is_dir():
            made = _BUILT[key] = Path(tempfile.mkdtemp(prefix=f"bsi-remote-{clones}-"))
            atexit.register(shutil.rmtree, made, True)
            _build_remote(made, clones)
        copy_repositories(made, tmp, names)
    return tmp / "remote.git", [tmp / f"clone{i}" for i in range(clones)]


def remote_claims(remote: Path, tmp: Path) -> list[dict]:
    """Every claim in a fresh clone of the remote, as `bsi claim list --all --json` sees it."""
    fresh = tmp / "fresh-check"
    shutil.rmtree(fresh, ignore_errors=True)
    git(tmp, "clone", "--quiet", str(remote), str(fresh))
    listed = run_bsi("--json", "claim", "list", "--all", brain=fresh, now=None, env=racer_env("checker"),
                     timeout=None)
    return json.loads(ok(listed))["claims"]
