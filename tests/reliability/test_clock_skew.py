"""One clone's clock hours off: nothing goes stale early, future timestamps are flagged (SPEC 3)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bsi import Run, run_bsi

from .harness import make_remote, racer_env


def _bsi(clone: Path, now: str, *args: str) -> Run:
    """`bsi --brain CLONE --now NOW --sync ARGS…` on the skewed machine's name."""
    return run_bsi("--sync", *args, brain=clone, now=now, env=racer_env("skew"), timeout=None)


def test_skewed_clock_never_shortens_a_ttl(tmp_path: Path) -> None:
    _, (honest, skewed) = make_remote(tmp_path, 2)
    # The skewed machine believes it is 5 hours later than it is.
    opened = _bsi(skewed, "2026-11-29T15:00:00+00:00", "claim", "open", "--scope", "notes/", "--slug", "ahead")
    assert opened.code == 0, opened.err
    sess = opened.out.strip()
    # The honest machine, at 10:00 and then past a normal 2 h TTL, sees the claim as future-dated.
    listed = _bsi(honest, "2026-11-29T10:00:00+00:00", "--json", "claim", "list")
    claim = next(c for c in json.loads(listed.out)["claims"] if c["sess_id"] == sess)
    assert "clock-skew" in claim["flags"]
    wd = _bsi(honest, "2026-11-29T12:30:00+00:00", "--json", "watchdog")
    assert wd.code == 0, wd.err
    assert sess not in json.loads(wd.out)["marked"], "a future-dated claim went stale early"
    # Its expiry is the skewed opening + TTL: never shortened; it still blocks its scope.
    check = _bsi(honest, "2026-11-29T12:30:00+00:00", "check-scope", "notes/a.md")
    assert check.code == 10
    # Once past opened_at + TTL, the watchdog marks it.
    late = _bsi(honest, "2026-11-29T17:00:00+00:00", "--json", "watchdog")
    assert sess in json.loads(late.out)["marked"]


def test_the_watchdog_marks_at_expiry_and_a_clock_ahead_minutes_only_lets_the_owner_renew(tmp_path: Path) -> None:
    """SPEC 6.3: a claim is stale once its TTL expired, at its deadline. A machine whose clock runs a few minutes
    ahead marks it that much early (no `clock-skew` flag: SPEC 3's limit is 5 minutes); the owner, whose clock says
    the claim is still live, renews it back."""
    _, (owner, other) = make_remote(tmp_path, 2)
    opened = _bsi(owner, "2026-11-29T10:00:00+00:00", "claim", "open", "--scope", "wiki/", "--ttl", "1h")
    sess = opened.out.strip()
    assert json.loads(_bsi(owner, "2026-11-29T10:59:00+00:00", "--json", "watchdog").out)["marked"] == []
    # the other machine's clock runs 4 minutes ahead: at its 11:00 (10:56 by the owner's) the TTL has run out
    near = _bsi(other, "2026-11-29T11:00:00+00:00", "--json", "watchdog")
    assert near.code == 0, near.err
    assert json.loads(near.out)["marked"] == [sess]
    listed = json.loads(_bsi(owner, "2026-11-29T10:57:00+00:00", "--json", "claim", "list").out)["claims"]
    assert next(c for c in listed if c["sess_id"] == sess)["flags"] == []
    renewed = _bsi(owner, "2026-11-29T10:57:00+00:00", "claim", "renew", sess)
    assert renewed.code == 0, renewed.err
    shown = json.loads(_bsi(owner, "2026-11-29T10:58:00+00:00", "--json", "claim", "show", sess).out)
    assert shown["status"] == "open" and shown["gate_history"][-1]["event"] == "REVIVED"
    # once the deadline passed by the owner's clock too, a mark stands: only a human lifts it
    past = _bsi(other, "2026-11-29T13:06:00+00:00", "--json", "watchdog")
    assert json.loads(past.out)["marked"] == [sess]
    assert _bsi(owner, "2026-11-29T13:02:00+00:00", "claim", "renew", sess).code == 12


def test_a_stale_mark_from_a_clock_ahead_lets_the_owner_renew_in_a_quiet_brain(tmp_path: Path) -> None:
    """Evidence of skew that needs no recent commit: a STALE mark dated in the reader's own future."""
    _, (owner, ahead) = make_remote(tmp_path, 2)
    sess = _bsi(owner, "2026-11-29T10:00:00+00:00", "claim", "open", "--scope", "wiki/").out.strip()
    # Hours of silence; then a machine whose clock runs 5 h ahead (real time 10:30) runs its watchdog.
    wd = _bsi(ahead, "2026-11-29T15:30:00+00:00", "--json", "watchdog")
    assert json.loads(wd.out)["marked"] == [sess]
    listed = json.loads(_bsi(owner, "2026-11-29T10:31:00+00:00", "--json", "claim", "list").out)["claims"]
    claim = next(c for c in listed if c["sess_id"] == sess)
    assert claim["status"] == "stale" and "clock-skew" in claim["flags"]
    renewed = _bsi(owner, "2026-11-29T10:31:00+00:00", "claim", "renew", sess)
    assert renewed.code == 0, renewed.err
    shown = json.loads(_bsi(ahead, "2026-11-29T15:32:00+00:00", "--json", "claim", "show", sess).out)
    assert shown["status"] == "open"
    assert shown["skew_revived"].startswith("2026-11-29T15:30")
    assert shown["gate_history"][-1]["event"] == "REVIVED"
    # A stale mark in the reader's past is not suspect: the owner's renew is refused as before.
    _bsi(ahead, "2026-11-29T20:00:00+00:00", "watchdog")
    assert _bsi(owner, "2026-11-29T20:10:00+00:00", "claim", "renew", sess).code == 12
