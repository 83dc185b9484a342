"""One clone's clock hours off: nothing goes stale early, future timestamps are flagged (SPEC 3)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .harness import BSI, env_for, make_remote


def _bsi(clone: Path, now: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BSI, "--brain", str(clone), "--now", now, "--sync", *args], capture_output=True,
                          text=True, env=env_for("skew"))


def test_skewed_clock_never_shortens_a_ttl(tmp_path: Path) -> None:
    _, (honest, skewed) = make_remote(tmp_path, 2)
    # The skewed machine believes it is 5 hours later than it is.
    opened = _bsi(skewed, "2026-11-29T15:00:00+00:00", "claim", "open", "--scope", "notes/", "--slug", "ahead")
    assert opened.returncode == 0, opened.stderr
    sess = opened.stdout.strip()
    # The honest machine, at 10:00 and then past a normal 2 h TTL, sees the claim as future-dated.
    listed = _bsi(honest, "2026-11-29T10:00:00+00:00", "--json", "claim", "list")
    claim = next(c for c in json.loads(listed.stdout)["claims"] if c["sess_id"] == sess)
    assert "clock-skew" in claim["flags"]
    wd = _bsi(honest, "2026-11-29T12:30:00+00:00", "--json", "watchdog")
    assert wd.returncode == 0, wd.stderr
    assert sess not in json.loads(wd.stdout)["marked"], "a future-dated claim went stale early"
    # Its expiry is the skewed opening + TTL: never shortened; it still blocks its scope.
    check = _bsi(honest, "2026-11-29T12:30:00+00:00", "check-scope", "notes/a.md")
    assert check.returncode == 10
    # Once really past opened_at + TTL, the watchdog marks it.
    late = _bsi(honest, "2026-11-29T17:01:00+00:00", "--json", "watchdog")
    assert sess in json.loads(late.stdout)["marked"]
