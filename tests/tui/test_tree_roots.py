"""The satellite tree's roots: the trees that still hold live work, found in one walk up from the live claims."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import Status
from brain_tui.tui.widgets.satellite_tree import tree_roots

from .conftest import fresh


def by_walking_down(snapshot: BrainSnapshot) -> list[str]:
    """The rule as SPEC says it: a root with satellites (or a pilot / domain) that is live or has a live descendant."""
    known = {c.sess_id for c in snapshot.claims}
    return [c.sess_id for c in snapshot.claims
            if not (c.parent and c.parent in known)
            and (snapshot.children(c.sess_id) or c.level in ("pilote", "domain"))
            and (not c.is_terminal or any(not d.is_terminal for d in snapshot.descendants(c.sess_id)))]


def all_closed_but(snapshot: BrainSnapshot, live: str = "") -> BrainSnapshot:
    claims = tuple(replace(c, status=Status.OPEN if c.sess_id == live else Status.CLOSED) for c in snapshot.claims)
    return replace(snapshot, claims=claims)


def deepest(snapshot: BrainSnapshot) -> Claim:
    return max((c for c in snapshot.claims if c.parent), key=lambda c: len(snapshot.ancestors(c.sess_id)))


def test_roots_match_the_walk_down(demo_root: Path) -> None:
    snapshot = fresh(demo_root).snapshot()
    roots = [c.sess_id for c in tree_roots(snapshot)]
    assert roots and roots == by_walking_down(snapshot)


def test_a_finished_tree_is_no_root_until_a_claim_deep_below_is_live(demo_root: Path) -> None:
    snapshot = fresh(demo_root).snapshot()
    leaf = deepest(snapshot)
    assert len(snapshot.ancestors(leaf.sess_id)) >= 2, "the demo brain has a tree two levels deep"
    finished = all_closed_but(snapshot)
    assert tree_roots(finished) == [] == by_walking_down(finished)
    one_live = all_closed_but(snapshot, live=leaf.sess_id)
    top = snapshot.ancestors(leaf.sess_id)[-1].sess_id
    assert [c.sess_id for c in tree_roots(one_live)] == [top] == by_walking_down(one_live)
