"""Which claims take a lock (SPEC 9, 10): only one that may write now, as preflight's code 4 reads it.

README: a claim waiting at a gate, paused (or under a paused ancestor) or finished takes no lock (exit 12). A
stale claim may not write (preflight 4), so it takes no lock either, new or extended; nor does a claim whose
parent failed (preflight 4 refuses its writes).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.errors import TransitionRefused
from brain_tui.core.paths.scope import parse_scope

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def world(tmp_path: Path) -> tuple[Brain, Clock]:
    for folder in ("claims", "signals", "locks", "breath"):
        (tmp_path / folder).mkdir()
    clock = Clock()
    return Brain(tmp_path, clock=clock, commit=False, instance="t@test"), clock


def request(scope: str, parent: str | None = None, **extra: str) -> OpenRequest:
    return OpenRequest(scope=parse_scope(scope), ttl=timedelta(hours=2), instance="t@test", parent=parent,
                       **extra)  # type: ignore[arg-type]


def lock_files(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "locks").iterdir())


def test_a_stale_claim_takes_no_new_lock(world: tuple[Brain, Clock]) -> None:
    brain, clock = world
    sess = brain.open_claim(request("a/"))
    clock.now = T0 + timedelta(hours=3)  # past its 2 h: stale for every rule, marked or not
    with pytest.raises(TransitionRefused, match="stale") as refused:
        brain.locks.acquire("a/x.md", sess)
    assert refused.value.exit_code == 12
    brain.watchdog()
    with pytest.raises(TransitionRefused, match="stale"):
        brain.locks.acquire("a/x.md", sess)
    assert lock_files(brain.root) == []


def test_a_stale_claim_does_not_extend_the_lock_it_holds(world: tuple[Brain, Clock]) -> None:
    brain, clock = world
    sess = brain.open_claim(request("a/"))
    clock.now = T0 + timedelta(minutes=110)
    brain.locks.acquire("a/x.md", sess, 60)
    before = (brain.root / "locks").joinpath(lock_files(brain.root)[0]).read_bytes()
    clock.now = T0 + timedelta(minutes=125)  # the claim is stale, its lock still unexpired
    with pytest.raises(TransitionRefused, match="stale"):
        brain.locks.acquire("a/x.md", sess, 60)
    assert (brain.root / "locks").joinpath(lock_files(brain.root)[0]).read_bytes() == before


def test_a_claim_whose_parent_failed_takes_no_lock(world: tuple[Brain, Clock]) -> None:
    brain, _clock = world
    pilot = brain.open_claim(request("a/", type="pilote"))
    child = brain.open_claim(request("a/x.md", parent=pilot))
    brain.gates.request(pilot, "?")
    brain.gates.reject(pilot, "no")
    assert brain.snapshot().claim(child).status == "open"  # type: ignore[union-attr]
    with pytest.raises(TransitionRefused, match=f"{pilot} failed") as refused:
        brain.locks.acquire("a/x.md", child)
    assert refused.value.exit_code == 12
    assert lock_files(brain.root) == []
