"""A brain where alfa holds the lock of a file in bravo's scope for an hour, committed: the setup of the tests of
which lock is in force (tests/cli/test_locks_in_force.py, tests/cli/test_locks_of_ended_claims.py)."""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

import pytest

from tests import bsi as runner
from tests.bsi import INHERITED_ENV, bsi_at, run_bsi

NOW = "2026-11-29T10:00:00Z"
A = "sess-20261129-1000-alfa"
B = "sess-20261129-1000-bravo"
FILE = "bravo/x.md"

bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)
git = partial(runner.git, env=INHERITED_ENV)


@pytest.fixture(scope="module")
def base_brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A brain where alfa holds the lock of a file in bravo's scope for an hour, committed."""
    root = tmp_path_factory.mktemp("base") / "brain"
    proc = run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None)
    assert proc.code == 0, proc.err
    for slug in ("alfa", "bravo"):
        proc = bsi(root, "claim", "open", "--scope", f"{slug}/", "--ttl", "8h", "--slug", slug)
        assert proc.code == 0, proc.err
    proc = bsi(root, "lock", "acquire", FILE, A, "60")
    assert proc.code == 0, proc.err
    return root


@pytest.fixture
def brain(base_brain: Path, tmp_path: Path) -> Path:
    """A private copy of `base_brain` for one test."""
    target = tmp_path / "brain"
    shutil.copytree(base_brain, target, symlinks=True)
    return target


def assert_still_held(brain: Path) -> None:
    """alfa's lock still holds the file against bravo: preflight 2, `lock check` 1, `lock acquire` 1."""
    proc = bsi(brain, "preflight", "check", B, FILE)
    assert proc.code == 2 and A in proc.err, proc
    assert bsi(brain, "lock", "check", FILE).code == 1
    proc = bsi(brain, "lock", "acquire", FILE, B)
    assert proc.code == 1 and A in proc.err, proc
