"""A lock one machine holds and another deleted: sync keeps the lock (SPEC 9, 22).

Removing an expired lock (`bsi lock cleanup`) is a derived mark; acquiring it again is its holder's action, which
ranks higher (SPEC 22). Either way a mutex kept fails closed (it expires by itself), a mutex dropped lets two
sessions write one file, each told it holds it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import Run, run_bsi

from .harness import git, make_remote, racer_env


def _bsi(clone: Path, now: str, *args: str) -> Run:
    """`bsi --brain CLONE --now 2026-11-29T<now>Z ARGS…` on the clone's own name."""
    return run_bsi(*args, brain=clone, now=f"2026-11-29T{now}:00+00:00", env=racer_env(clone.name), timeout=None)


def _locks(clone: Path, now: str) -> list[dict]:
    listed = _bsi(clone, now, "--json", "lock", "list")
    assert listed.code == 0, listed.err
    doc = json.loads(listed.out)
    return list(doc["locks"] if isinstance(doc, dict) else doc)


@pytest.mark.parametrize("pushed_first", ["cleanup", "reacquire"])
def test_a_cleanup_racing_the_holders_reacquire_keeps_the_lock(tmp_path: Path, pushed_first: str) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    holder = _bsi(b, "10:00", "--sync", "claim", "open", "--scope", "docs/", "--ttl", "4h", "--slug", "x").out.strip()
    assert _bsi(b, "10:00", "--sync", "lock", "acquire", "docs/a.md", holder).code == 0
    assert _bsi(a, "10:00", "sync").code == 0
    good = git(b, "remote", "get-url", "origin").strip()

    def cleanup() -> None:
        assert _bsi(a, "11:10", "--sync", "lock", "cleanup").code == 0

    def reacquire() -> None:
        git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
        assert _bsi(b, "11:10", "--offline", "lock", "acquire", "docs/a.md", holder).code == 0
        git(b, "remote", "set-url", "origin", good)

    if pushed_first == "cleanup":
        cleanup()
        reacquire()
        synced = _bsi(b, "11:11", "sync")
    else:
        git(a, "fetch", "--quiet")
        reacquire()
        assert _bsi(b, "11:11", "sync").code == 0
        git(a, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
        assert _bsi(a, "11:10", "--offline", "lock", "cleanup").code == 0
        git(a, "remote", "set-url", "origin", good)
        synced = _bsi(a, "11:11", "sync")
    assert synced.code == 0, synced.err
    for clone in (a, b):
        assert _bsi(clone, "11:12", "sync").code == 0
        held = [(lock["file"], lock["holder"]) for lock in _locks(clone, "11:12")]
        assert held == [("docs/a.md", holder)], clone.name
    assert git(remote, "ls-tree", "--name-only", "main", "locks/").strip() != ""
