"""The brains of the lock and breaker tests, built once per module and copied for each test.

`fixtures(slugs, then)` gives a test module its `base_brain` (module scope: `bsi init`, one 8 h claim on
`SLUG/` for each slug, then `then(root)`) and `brain` (a private copy of it, git history included). The
module-level pair is the lock brain: alfa holds the lock of a file in bravo's scope for an hour, committed
(tests/cli/test_locks_in_force.py, tests/cli/test_locks_of_ended_claims.py, tests/cli/test_lock_cleanup.py).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests import bsi as runner
from tests.bsi import INHERITED_ENV, bsi_at, run_bsi

NOW = "2026-11-29T10:00:00Z"
A = "sess-20261129-1000-alfa"
B = "sess-20261129-1000-bravo"
FILE = "bravo/x.md"

bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)
git = partial(runner.git, env=INHERITED_ENV)


def build(root: Path, slugs: Sequence[str], then: Callable[[Path], None] | None = None) -> Path:
    """`bsi init ROOT`, a claim on `SLUG/` (8 h, opened at NOW) for each slug, then `then(root)`."""
    proc = run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None)
    assert proc.code == 0, proc.err
    for slug in slugs:
        proc = bsi(root, "claim", "open", "--scope", f"{slug}/", "--ttl", "8h", "--slug", slug)
        assert proc.code == 0, proc.err
    if then is not None:
        then(root)
    return root


def fixtures(slugs: Sequence[str] = ("alfa", "bravo"),
             then: Callable[[Path], None] | None = None) -> tuple[Any, Any]:
    """The `base_brain` (built once per module) and `brain` (its private copy per test) fixtures of a test module;
    assign them to those names there."""

    @pytest.fixture(scope="module", name="base_brain")
    def base_brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return build(tmp_path_factory.mktemp("base") / "brain", slugs, then)

    @pytest.fixture(name="brain")
    def brain(base_brain: Path, tmp_path: Path) -> Path:
        target = tmp_path / "brain"
        shutil.copytree(base_brain, target, symlinks=True)
        return target

    return base_brain, brain


def _alfa_locks_bravos_file(root: Path) -> None:
    proc = bsi(root, "lock", "acquire", FILE, A, "60")
    assert proc.code == 0, proc.err


#: alfa holds the lock of a file in bravo's scope for an hour, committed.
base_brain, brain = fixtures(then=_alfa_locks_bravos_file)


def assert_still_held(brain: Path) -> None:
    """alfa's lock still holds the file against bravo: preflight 2, `lock check` 1, `lock acquire` 1."""
    proc = bsi(brain, "preflight", "check", B, FILE)
    assert proc.code == 2 and A in proc.err, proc
    assert bsi(brain, "lock", "check", FILE).code == 1
    proc = bsi(brain, "lock", "acquire", FILE, B)
    assert proc.code == 1 and A in proc.err, proc
