"""`reconcile.lost_claims` after a sync: a claim file of the remote that does not read is never a winner.

It may hold the scope (it blocks new claims, SPEC 22), but nothing says it was claimed first: the local
claim is not failed for it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import reconcile
from brain_tui.core.rules.claims import OpenRequest

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
CORRUPT = ("<<<<<<< HEAD\nsess_id: sess-20261129-0855-bbbb\nscope: docs/\nstatus: open\n=======\n"
           "sess_id: sess-20261129-0855-bbbb\nscope: docs/\nstatus: paused\n>>>>>>> laptop\n")


def _brain(root: Path) -> Brain:
    for folder in ("claims", "signals", "locks", "breath"):
        (root / folder).mkdir(exist_ok=True)
    return Brain(root, clock=lambda: T0, commit=False, instance="t@test")


def _open(brain: Brain, slug: str, scope: str) -> str:
    return brain.open_claim(OpenRequest(scope=parse_scope(scope, brain.root), ttl=parse_duration("2h"),
                                        instance="t@test", story="x", slug=slug))


def test_a_corrupt_remote_row_does_not_make_a_local_claim_lost(tmp_path: Path) -> None:
    brain = _brain(tmp_path)
    mine = _open(brain, "mine", "docs/")
    (tmp_path / "claims" / "sess-20261129-0855-bbbb.yml").write_text(CORRUPT)
    snapshot = brain.store.snapshot(T0)
    assert snapshot.unreadable_claims  # it holds docs/ for every new claim
    assert reconcile.lost_claims(snapshot, {mine}) == []


def test_a_readable_remote_claim_still_wins(tmp_path: Path) -> None:
    brain = _brain(tmp_path)
    mine = _open(brain, "mine", "docs/a.md")
    theirs = (tmp_path / "claims" / f"{mine}.yml").read_text().replace(mine, "sess-20261129-0855-bbbb")
    (tmp_path / "claims" / "sess-20261129-0855-bbbb.yml").write_text(theirs)
    lost = reconcile.lost_claims(brain.store.snapshot(T0), {mine})
    assert [w.sess_id for item in lost for w in item.winners] == ["sess-20261129-0855-bbbb"]
