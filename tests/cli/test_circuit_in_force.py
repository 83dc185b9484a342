"""A tripped circuit breaker is lifted only as committed (SPEC 9, SPEC 22).

`bsi preflight reset` clears it with a commit; an uncommitted hand edit of the claim's `circuit:` field
(zeroed, or removed) lifts nothing: preflight still exits 3 and `preflight status` still says tripped.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.bsi import INHERITED_ENV, bsi_at, run_bsi

NOW = "2026-11-29T10:00:00Z"
S = "sess-20261129-1000-kilo"

bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)


@pytest.fixture(scope="module")
def base_brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A brain whose claim tripped its breaker (3 failures, committed)."""
    root = tmp_path_factory.mktemp("base") / "brain"
    proc = run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None)
    assert proc.code == 0, proc.err
    proc = bsi(root, "claim", "open", "--scope", "kilo/", "--ttl", "8h", "--slug", "kilo")
    assert proc.code == 0, proc.err
    for _ in range(3):
        assert bsi(root, "preflight", "fail", S).code == 0
    assert bsi(root, "preflight", "check", S, "kilo/a.md").code == 3
    return root


@pytest.fixture
def brain(base_brain: Path, tmp_path: Path) -> Path:
    target = tmp_path / "brain"
    shutil.copytree(base_brain, target, symlinks=True)
    return target


@pytest.mark.parametrize("replacement", ["circuit: {fails: 0, last_fail_at: null}\n", ""])
def test_an_uncommitted_hand_reset_lifts_nothing(brain: Path, replacement: str) -> None:
    path = brain / "claims" / f"{S}.yml"
    text = path.read_text(encoding="utf-8")
    edited = re.sub(r"^circuit:.*\n", replacement, text, flags=re.M)
    assert edited != text
    path.write_text(edited, encoding="utf-8")
    proc = bsi(brain, "preflight", "check", S, "kilo/a.md")
    assert proc.code == 3, (proc.code, proc.out, proc.err)
    state = json.loads(bsi(brain, "--json", "preflight", "status", S).out)
    assert state["tripped"] is True and state["fails"] == 3


def test_a_reset_through_bsi_lifts_it(brain: Path) -> None:
    assert bsi(brain, "preflight", "reset", S).code == 0
    assert bsi(brain, "preflight", "check", S, "kilo/a.md").code == 0
