"""Sync's precedence between two sides of one protocol record (SPEC 22): human, then owner, then derived."""

from __future__ import annotations

from brain_tui.core.sync.settle import DERIVED, HUMAN, NOTHING, OWNER, choose, rank

BASE = """sess_id: sess-1
status: open
expires_at: '2026-11-29T10:00:00Z'
gate_history: []
"""
RENEWED = BASE.replace("10:00:00Z", "14:00:00Z")
STALE = """sess_id: sess-1
status: stale
stale_from: open
expires_at: '2026-11-29T10:00:00Z'
gate_history:
- {ts: '2026-11-29T10:30:00Z', event: STALE, by: watchdog, message: expired}
"""
RELEASED = """sess_id: sess-1
status: released
expires_at: '2026-11-29T10:00:00Z'
gate_history:
- {ts: '2026-11-29T10:40:00Z', event: RELEASED, by: Ada <ada@example.org>, message: gone}
"""
LOST = """sess_id: sess-1
status: failed
expires_at: '2026-11-29T10:00:00Z'
gate_history:
- {ts: '2026-11-29T10:40:00Z', event: ABORTED, by: sync, message: lost while offline}
"""


def test_ranks_follow_who_acted() -> None:
    assert rank(BASE, BASE) == NOTHING
    assert rank(BASE, STALE) == DERIVED
    assert rank(BASE, LOST) == DERIVED
    assert rank(BASE, RENEWED) == OWNER
    assert rank(BASE, RELEASED) == HUMAN
    assert rank(BASE, "status: [unclosed\n") == NOTHING  # a side that does not parse never wins


def test_the_owners_renew_beats_a_stale_mark_from_either_side() -> None:
    assert choose("claims/sess-1.yml", BASE, RENEWED, STALE) == RENEWED
    assert choose("claims/sess-1.yml", BASE, STALE, RENEWED) == RENEWED


def test_a_humans_decision_beats_the_owner_and_the_remote_wins_a_tie() -> None:
    assert choose("claims/sess-1.yml", BASE, RENEWED, RELEASED) == RELEASED
    assert choose("claims/sess-1.yml", BASE, RELEASED, RENEWED) == RELEASED
    assert choose("claims/sess-1.yml", BASE, RENEWED, RENEWED.replace("14:", "15:")) == RENEWED
    assert choose("signals/sig-1.yml", "state: pending\n", "state: delivered\n", "state: archived\n") == (
        "state: delivered\n")
    assert choose("claims/sess-1.yml", BASE, None, RENEWED) is None  # deleted there first: a tie, the remote's
