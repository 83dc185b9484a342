"""Sync's precedence between two sides of one protocol record (SPEC 22): human, then owner, then derived."""

from __future__ import annotations

from brain_tui.core.sync.settle import DERIVED, HUMAN, NOTHING, OWNER, choose, keep_pause, rank

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


def _paused(sess: str, parent: str | None, by: str, ts: str) -> str:
    lines = [f"sess_id: {sess}", "scope: p/a.md", "status: paused", f"paused_by: {by}", "paused_from: open"]
    if parent:
        lines.append(f"parent_satellite: {parent}")
    event = "PAUSED" if by == sess else "PAUSED_CASCADE"
    lines += ["gate_history:", f"  - {{ts: '{ts}', event: {event}, by: alice, message: hold}}"]
    return "\n".join(lines) + "\n"


def test_of_two_pauses_the_nearer_pauser_is_kept_deep_in_the_tree() -> None:
    tree = {"sess-leaf": "sess-d2", "sess-d2": "sess-d1", "sess-d1": "sess-root"}
    base = "sess_id: sess-leaf\nscope: p/a.md\nstatus: open\nparent_satellite: sess-d2\n"
    far = _paused("sess-leaf", "sess-d2", "sess-root", "2026-11-29T10:02:00+00:00")
    near = _paused("sess-leaf", "sess-d2", "sess-d1", "2026-11-29T10:03:00+00:00")
    kept = keep_pause(base, far, near, tree.get)
    assert kept is not None and "paused_by: sess-d1" in kept and "PAUSED_CASCADE" in kept
    # The remote's nearer pause stays; without the tree, a grandparent is not known to be nearer.
    assert keep_pause(base, near, far, tree.get) == near
    assert keep_pause(base, far, near) == far
