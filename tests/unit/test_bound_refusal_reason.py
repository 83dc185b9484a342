"""A bound session's refusal names what blocks it, even when a binding names a claim git never held (SPEC 20.2, 21.4).

A session's local binding can list a claim that is not in the brain (opened with
`--no-commit`, then thrown away with `git checkout`). The write is still decided
on every claim the session holds; the refusal told is that of a claim the brain
holds, which names the holder and what unblocks it, not "claim … unknown".
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.write_request import WriteSession

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
PHANTOM = "sess-20261129-0905-gone"


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    for folder in ("claims", "signals", "locks", "breath"):
        (tmp_path / folder).mkdir()
    return Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")


def opened(brain: Brain, scope: str) -> str:
    return brain.open_claim(OpenRequest(scope=parse_scope(scope), ttl=timedelta(hours=2), instance="t@test"))


def test_the_refusal_is_told_from_a_claim_the_brain_holds(brain: Brain) -> None:
    holder = opened(brain, "src/")
    mine = opened(brain, "lib/")
    session = WriteSession(claims=(PHANTOM, mine), cwd=str(brain.root))  # newest first: the phantom
    decision = brain.decide_write([str(brain.root / "src" / "a.py")], session)
    assert not decision.allowed and decision.code == 1, decision
    assert decision.sess_id == mine and holder in decision.reason and "unknown" not in decision.reason
    assert brain.decide_write([str(brain.root / "lib" / "a.py")], session).allowed
    alone = brain.decide_write([str(brain.root / "lib" / "a.py")], WriteSession(claims=(PHANTOM,),
                                                                                  cwd=str(brain.root)))
    assert not alone.allowed and alone.code == 4 and PHANTOM in alone.reason  # nothing else: it fails closed
