"""The expiry instant, one instant for every rule (SPEC 6.3, 6.4, 9): one second before it a claim or lock is live for
every verb, at it for none, whatever the verb.

A claim counts as expired at its deadline (SPEC 6.3: its expiry, never later than opening + 8 h), as a lock is at its
`expires_at`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import NOW, git, head, ok, run_bsi
from tests.conftest import load_claim, tree_bytes

#: The claims below open at NOW (10:00) for 2 h: deadline 12:00, expired for every rule from then (SPEC 6.3).
BEFORE, AT = "2026-11-29T11:59:59Z", "2026-11-29T12:00:00Z"


def opened(brain: Path, scope: str, ttl: str = "2h") -> str:
    return ok(run_bsi("claim", "open", "--scope", scope, "--ttl", ttl, brain=brain, now=NOW))


def unchanged(brain: Path, *args: str, now: str) -> int:
    """Run a `bsi` call that must refuse: its exit code, once it is seen to have written nothing."""
    before, files = head(brain), tree_bytes(brain)
    code = run_bsi(*args, brain=brain, now=now).code
    assert code != 0 and head(brain) == before and tree_bytes(brain) == files, (args, code)
    assert git(brain, "status", "--porcelain") == ""
    return code


@pytest.mark.parametrize("instant", [BEFORE, AT])
def test_every_verb_meets_the_same_expiry_instant(brain: Path, instant: str) -> None:
    live = instant == BEFORE
    renewed, written, gated, released = (opened(brain, f"{name}/") for name in ("r", "w", "g", "x"))
    if live:
        assert run_bsi("claim", "renew", renewed, brain=brain, now=instant).out.strip().endswith("13:59:59+00:00")
        assert run_bsi("preflight", "check", written, "w/a.md", brain=brain, now=instant).code == 0
        assert run_bsi("gate", "request", gated, "ok?", brain=brain, now=instant).code == 0
        assert unchanged(brain, "claim", "release", released, "--reason", "gone", now=instant) == 12
        assert run_bsi("--json", "watchdog", brain=brain, now=instant).json()["marked"] == []
        return
    assert unchanged(brain, "claim", "renew", renewed, now=instant) == 12
    assert unchanged(brain, "preflight", "check", written, "w/a.md", now=instant) == 4
    assert unchanged(brain, "gate", "request", gated, "ok?", now=instant) == 12
    assert run_bsi("claim", "release", released, "--reason", "gone", brain=brain, now=instant).code == 0
    marked = run_bsi("--json", "watchdog", brain=brain, now=instant).json()["marked"]
    assert sorted(marked) == sorted([renewed, written, gated])
    assert {load_claim(brain, sess)["stale_from"] for sess in marked} == {"open"}


@pytest.mark.parametrize(("instant", "live"), [("2026-11-29T17:59:59Z", True), ("2026-11-29T18:00:00Z", False)])
def test_eight_hours_after_opening_no_renewal_keeps_a_claim_live(brain: Path, instant: str, live: bool) -> None:
    sess = opened(brain, "r/", ttl="8h")
    assert ok(run_bsi("claim", "renew", sess, brain=brain, now="2026-11-29T17:00:00Z")).endswith("18:00:00+00:00")
    if live:  # still live, and a renewal moves nothing past opening + 8 h
        before = head(brain)
        assert ok(run_bsi("claim", "renew", sess, "--ttl", "2h", brain=brain, now=instant)).endswith("18:00:00+00:00")
        assert head(brain) == before
        assert run_bsi("preflight", "check", sess, "r/a.md", brain=brain, now=instant).code == 0
    else:
        assert unchanged(brain, "claim", "renew", sess, "--ttl", "2h", now=instant) == 12
        assert unchanged(brain, "preflight", "check", sess, "r/a.md", now=instant) == 4


@pytest.mark.parametrize(("instant", "code"), [("2026-11-29T10:59:59Z", 1), ("2026-11-29T11:00:00Z", 0)])
def test_a_lock_is_taken_over_from_its_expiry_instant_on(brain: Path, instant: str, code: int) -> None:
    holder, other = opened(brain, "l/", ttl="4h"), opened(brain, "m/", ttl="4h")
    ok(run_bsi("lock", "acquire", "l/a.md", holder, brain=brain, now=NOW))  # 60 min: until 11:00
    if code:
        assert unchanged(brain, "lock", "acquire", "l/a.md", other, now=instant) == code
        return
    run = run_bsi("--json", "lock", "acquire", "l/a.md", other, brain=brain, now=instant)
    assert run.code == 0 and run.json()["takeover"] is True and run.json()["generation"] == 2
    assert "takeover" in run.err
