"""The context runway in the attention queue and the live sessions (issue 21), in process against `Brain`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.claims import OpenRequest
from brain_tui.core.sessions import agents

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def transcript_of(tmp: Path, used: list[int], model: str = "claude-opus-4") -> agents.Transcript:
    path = tmp / "session.jsonl"
    path.write_text("".join(json.dumps({"type": "assistant", "timestamp": "2026-11-29T09:59:00Z", "message": {
        "id": f"m{i}", "model": model, "content": [{"type": "text", "text": "working"}],
        "usage": {"input_tokens": 2, "cache_read_input_tokens": n - 12, "output_tokens": 10}}}) + "\n"
        for i, n in enumerate(used)), encoding="utf-8")
    found = agents.transcript_of(str(path), "claude")
    assert found is not None
    return found


def bound_claim(root: Path, slug: str, transcript: agents.Transcript) -> str:
    brain = Brain(root, clock=lambda: NOW)
    sess = brain.open_claim(OpenRequest(scope=parse_scope(f"{slug}/", root), ttl=parse_duration("2h"),
                                        instance="prod@desktop", slug=slug))
    agents.record_binding(root, sess, "agent-1", NOW, process="")
    agents.record_activity(root, sess, "agent-1", NOW, tool="Edit", transcript=transcript)
    return sess


def test_under_ten_percent_left_is_a_context_item(brain: Path, tmp_path: Path) -> None:
    sess = bound_claim(brain, "api-tests", transcript_of(tmp_path, [170_000, 176_000, 182_000]))
    b = Brain(brain, clock=lambda: NOW + timedelta(minutes=1))
    [item] = [i for i in b.attention() if i.sess_id == sess]
    assert item.kind == "context"
    assert item.summary == "api-tests: context nearly full (ctx 91% · ~3 turns) — close or hand off"
    assert item.as_dict()["runway"] == {"used": 182_000, "window": 200_000, "used_pct": 91,
                                        "growth_per_turn": 6000.0, "turns_left": 3, "low": True,
                                        "text": "ctx 91% · ~3 turns"}
    live = b.live_sessions()[sess]
    assert live.runway is not None and live.runway.describe() == "ctx 91% · ~3 turns"
    assert live.as_dict()["peek"]["text"] == ["working"]
    # once the session ended its runway is no risk: no item
    agents.record_state(brain, sess, "agent-1", "ended", NOW + timedelta(minutes=2))
    assert not [i for i in Brain(brain, clock=lambda: NOW + timedelta(minutes=3)).attention() if i.sess_id == sess]


def test_more_than_ten_percent_left_is_no_item_and_a_configured_window_counts(brain: Path, tmp_path: Path) -> None:
    sess = bound_claim(brain, "docs", transcript_of(tmp_path, [100_000, 150_000]))
    b = Brain(brain, clock=lambda: NOW)
    assert not [i for i in b.attention() if i.sess_id == sess]
    compose = brain / "brain-compose.yml"
    before = compose.read_text(encoding="utf-8") if compose.exists() else ""
    compose.write_text(before + "agents:\n  context_window: 160000\n", encoding="utf-8")
    [item] = [i for i in Brain(brain, clock=lambda: NOW).attention() if i.sess_id == sess]
    assert item.kind == "context" and "ctx 93% · <1 turn" in item.summary


def test_a_1m_model_has_room(brain: Path, tmp_path: Path) -> None:
    sess = bound_claim(brain, "big", transcript_of(tmp_path, [182_000, 190_000], model="claude-sonnet-4-5[1m]"))
    b = Brain(brain, clock=lambda: NOW)
    assert not [i for i in b.attention() if i.sess_id == sess]
    peek = b.peek(sess)
    assert peek is not None and peek.runway is not None and peek.runway.window == 1_000_000


def test_given_liveness_reads_no_transcript_unless_given_the_runways(brain: Path, tmp_path: Path) -> None:
    sess = bound_claim(brain, "api-tests", transcript_of(tmp_path, [170_000, 176_000, 182_000]))
    b = Brain(brain, clock=lambda: NOW)
    liveness = b.read_liveness()
    # the cockpit passes what it read: no transcript is read on its thread …
    assert [i.kind for i in b.attention(liveness=liveness) if i.sess_id == sess] == []
    # … and the runways of its live sessions (read in a worker) make the same item as `bsi attention`
    from brain_tui.core.sessions.live import runways_of

    runways = runways_of(b.live_sessions())
    [item] = [i for i in b.attention(liveness=liveness, runways=runways) if i.sess_id == sess]
    assert item.kind == "context" and item == next(i for i in b.attention() if i.sess_id == sess)


def test_an_absurd_configured_window_is_no_window_and_crashes_nothing(brain: Path, tmp_path: Path) -> None:
    """`agents.context_window: 10**400` (a typo, a forged compose file) once made `bsi attention`, `bsi agent peek`
    and the cockpit's live sessions fail with OverflowError; 10**30 gave a 28-digit turn count. Like a token
    figure past any real count, it is ignored: the model's own window counts."""
    sess = bound_claim(brain, "api-tests", transcript_of(tmp_path, [170_000, 176_000, 182_000]))
    compose = brain / "brain-compose.yml"
    before = compose.read_text(encoding="utf-8") if compose.exists() else ""
    for absurd in (10 ** 400, 10 ** 30):
        compose.write_text(before + f"agents:\n  context_window: {absurd}\n", encoding="utf-8")
        b = Brain(brain, clock=lambda: NOW)
        [item] = [i for i in b.attention() if i.sess_id == sess]
        assert item.kind == "context" and "ctx 91% · ~3 turns" in item.summary
        peek = b.peek(sess)
        assert peek is not None and peek.runway is not None and peek.runway.window == 200_000
        live = b.live_sessions()[sess]
        assert live.runway is not None and live.runway.describe() == "ctx 91% · ~3 turns"
