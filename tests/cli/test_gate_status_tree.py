"""`bsi gate status ID`: the subtree reads as a tree, each claim under its own parent."""

from __future__ import annotations

from pathlib import Path

from tests.bsi import ok, run_bsi
from tests.conftest import load_claim

PILOT = "sess-20261129-0800-pilote-be7"


def test_each_child_is_printed_under_its_own_parent(demo_brain: Path) -> None:
    """The demo pilot has a domain with two leaves and a leaf of its own opened after it: the domain's
    leaves come right below the domain, never below a later sibling of it."""
    lines = ok(run_bsi("gate", "status", PILOT, brain=demo_brain)).splitlines()
    rows = [line for line in lines if "└ " in line]
    assert rows, lines
    stack: list[str] = [PILOT]
    for row in rows:
        indent, rest = row.split("└ ", 1)
        depth = len(indent) // 2
        sess_id = rest.split()[0]
        del stack[depth:]
        parent = load_claim(demo_brain, sess_id).get("parent_satellite")
        assert stack[-1] == parent, (sess_id, parent, lines)
        stack.append(sess_id)
