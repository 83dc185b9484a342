"""A tripped circuit breaker is lifted only as committed (SPEC 9, SPEC 22).

`bsi preflight reset` clears it with a commit; an uncommitted hand edit of the claim's `circuit:` field
(zeroed, or removed) lifts nothing: preflight still exits 3 and `preflight status` still says tripped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli import lock_brain
from tests.cli.lock_brain import bsi

S = "sess-20261129-1000-kilo"


def _trip(root: Path) -> None:
    """kilo's breaker tripped: 3 failures, committed."""
    for _ in range(3):
        assert bsi(root, "preflight", "fail", S).code == 0
    assert bsi(root, "preflight", "check", S, "kilo/a.md").code == 3


#: a brain whose claim tripped its breaker (3 failures, committed).
base_brain, brain = lock_brain.fixtures(("kilo",), _trip)


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
