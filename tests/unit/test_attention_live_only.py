"""`Brain.attention()` reads the live claims only: the closed history is never decoded, the queue unchanged.

In process, on a temporary brain without git; decoding is counted by wrapping the store's claim builder.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records import store
from brain_tui.core.rules import attention
from brain_tui.core.rules.claims import CloseRequest, OpenRequest

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


@pytest.fixture
def brain() -> Iterator[Brain]:
    root = Path(tempfile.mkdtemp(prefix="bsi-attention-live-"))
    for folder in ("claims", "signals", "locks", "breath"):
        (root / folder).mkdir()
    yield Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    shutil.rmtree(root, ignore_errors=True)


def _open(brain: Brain, slug: str, scope: str) -> str:
    req = OpenRequest(scope=parse_scope(scope, brain.root), ttl=parse_duration("2h"), instance="t@test",
                      story=f"story of {slug}", slug=slug)
    return brain.open_claim(req)


def _history(brain: Brain, n: int) -> list[str]:
    closed = []
    for number in range(n):
        sess = _open(brain, f"old{number}", f"hist/f{number}.py")
        brain.close_claim(sess, CloseRequest(status="ok"))
        closed.append(sess)
    return closed


def _decoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the claim files the store decodes from now on."""
    seen: list[str] = []
    real = store.claim_from_mapping

    def counting(data: Any, rel: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(rel)
        return real(data, rel, *args, **kwargs)

    monkeypatch.setattr(store, "claim_from_mapping", counting)
    return seen


def test_attention_decodes_no_closed_claim(brain: Brain, monkeypatch: pytest.MonkeyPatch) -> None:
    closed = _history(brain, 12)
    _open(brain, "live", "live/")
    expected = attention.attention(brain.snapshot(), {}, {})
    brain.store = store.BrainStore(brain.root, brain.store.tz, brain.config)  # a new process: nothing in memory
    decoded = _decoded(monkeypatch)
    got = brain.attention(liveness={}, runways={})
    assert [i.key for i in got] == [i.key for i in expected]
    assert not [rel for rel in decoded if Path(rel).stem in closed]


def test_a_pending_signal_from_a_closed_claim_still_finds_it(brain: Brain) -> None:
    closed = _history(brain, 3)
    brain.signals.send(closed[0], "human", "BLOCKED_ON", "waiting for the pilot")
    got = brain.attention(liveness={}, runways={})
    # The closed sender is read by name, so its BLOCKED_ON is known to block nothing any more; a sender the
    # live read did not find would leave the item listed, with no claim.
    assert [i for i in got if i.kind == "blocked"] == []


def test_a_claim_edited_in_place_from_closed_back_to_open_blocks(brain: Brain) -> None:
    closed = _history(brain, 3)
    brain.attention(liveness={}, runways={})  # the parse cache knows every file as closed
    for sess, status in ((closed[1], "open"), (closed[2], "stale")):
        path = brain.root / "claims" / f"{sess}.yml"
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("status: closed", f"status: {status}", 1), encoding="utf-8")
    assert [c.sess_id for c in brain.check_scope(parse_scope("hist/f1.py", brain.root))] == [closed[1]]
    assert closed[2] in [i.sess_id for i in brain.attention(liveness={}, runways={}) if i.kind == "stale"]
