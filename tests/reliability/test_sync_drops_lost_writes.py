"""A write that loses at sync leaves nothing of itself on the remote (SPEC 22: all or nothing).

A satellite closed offline while a human paused it on another machine: the human's pause wins the claim file
(settle), so the close did not happen, and the CHECKPOINT it sent its parent must not reach the remote either
(a signal saying "done" for a claim that is paused).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import Run, run_bsi

from .harness import git, make_remote, racer_env


def _bsi(clone: Path, now: str, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=f"2026-11-29T{now}:00+00:00", env=racer_env(clone.name), timeout=None)


def _signals_on_the_remote(clone: Path) -> list[str]:
    git(clone, "fetch", "--quiet", "origin")
    return [p for p in git(clone, "ls-tree", "-r", "--name-only", "origin/main", "--", "signals/").split() if p]


@pytest.mark.parametrize("paused", ["satellite", "pilot"])
def test_a_close_that_loses_to_a_pause_sends_no_signal(tmp_path: Path, paused: str) -> None:
    _, (pilot_clone, sat_clone) = make_remote(tmp_path, 2)
    pilot = _bsi(pilot_clone, "10:00", "--sync", "claim", "open", "--scope", "proj/", "--type", "pilote",
                 "--slug", "pilot").out.strip()
    opened = _bsi(sat_clone, "10:00", "--sync", "claim", "open", "--scope", "proj/a.md", "--parent", pilot,
                  "--satellite-type", "brain-write", "--slug", "sat")
    assert opened.code == 0, opened.err
    sat = opened.out.strip()
    assert _bsi(pilot_clone, "10:01", "sync").code == 0
    closed = _bsi(sat_clone, "10:05", "--offline", "claim", "close", sat, "--status", "ok")
    assert closed.code == 0, closed.err
    assert _bsi(pilot_clone, "10:06", "--sync", "gate", "pause", pilot if paused == "pilot" else sat,
                "hold").code == 0
    before = _signals_on_the_remote(sat_clone)  # the pause's own signal among them
    _bsi(sat_clone, "10:07", "sync")
    shown = json.loads(_bsi(sat_clone, "10:08", "--json", "claim", "show", sat).out)
    assert shown["status"] == "paused", "the human's pause lost to the offline close"
    after = _signals_on_the_remote(sat_clone)
    assert after == before, f"the lost close still pushed {sorted(set(after) - set(before))}"
    assert not [p for p in git(sat_clone, "status", "--porcelain", "--", "signals/").splitlines() if p]
    log = git(sat_clone, "log", "--format=%s", "origin/main")
    assert f"bsi: close satellite {sat}" not in log


def test_a_hand_commit_that_also_holds_work_is_never_dropped(tmp_path: Path) -> None:
    """A commit made by hand that closes the claim and carries the satellite's work: the pause still wins the
    claim file (settle), but the work in the same commit reaches the remote (nothing is lost)."""
    _, (pilot_clone, sat_clone) = make_remote(tmp_path, 2)
    opened = _bsi(sat_clone, "10:00", "--sync", "claim", "open", "--scope", "proj/a.md", "--slug", "sat")
    assert opened.code == 0, opened.err
    sat = opened.out.strip()
    assert _bsi(pilot_clone, "10:01", "sync").code == 0
    closed = _bsi(sat_clone, "10:05", "--no-commit", "claim", "close", sat, "--status", "ok")
    assert closed.code == 0, closed.err
    (sat_clone / "proj").mkdir(exist_ok=True)
    (sat_clone / "proj" / "a.md").write_text("the work\n", encoding="utf-8")
    git(sat_clone, "add", "-A")
    git(sat_clone, "commit", "--quiet", "-m", "close and work, by hand")
    assert _bsi(pilot_clone, "10:06", "--sync", "gate", "pause", sat, "hold").code == 0
    _bsi(sat_clone, "10:07", "sync")
    git(sat_clone, "fetch", "--quiet", "origin")
    assert git(sat_clone, "show", "origin/main:proj/a.md") == "the work\n"
    assert (sat_clone / "proj" / "a.md").read_text(encoding="utf-8") == "the work\n"


def test_a_dropped_write_is_told_at_sync_and_with_the_next_synced_write(tmp_path: Path) -> None:
    """The offline close that lost to a pause did not happen: `bsi sync` says so (stderr and `--json`'s
    `dropped`), and so does a synced write whose own sync dropped one, never an "up to date" alone."""
    _, (pilot_clone, sat_clone) = make_remote(tmp_path, 2)
    opened = _bsi(sat_clone, "10:00", "--sync", "claim", "open", "--scope", "proj/a.md", "--slug", "sat")
    assert opened.code == 0, opened.err
    sat = opened.out.strip()
    other = _bsi(sat_clone, "10:00", "--sync", "claim", "open", "--scope", "proj/b.md", "--slug", "other")
    assert other.code == 0, other.err
    assert _bsi(pilot_clone, "10:01", "sync").code == 0
    assert _bsi(sat_clone, "10:05", "--offline", "claim", "close", sat, "--status", "ok").code == 0
    assert _bsi(pilot_clone, "10:06", "--sync", "gate", "pause", sat, "hold").code == 0

    synced = _bsi(sat_clone, "10:07", "--json", "sync")
    assert synced.code == 0, synced.err
    assert json.loads(synced.out)["dropped"] == [f"bsi: close claim {sat}"]
    assert f"not kept: `bsi: close claim {sat}`" in synced.err and "did not happen" in synced.err

    # the same loss met by a synced write (sync: on the command) is told with that write
    assert _bsi(sat_clone, "10:08", "--offline", "claim", "renew", other.out.strip()).code == 0
    assert _bsi(pilot_clone, "10:09", "--sync", "gate", "pause", other.out.strip(), "hold").code == 0
    written = _bsi(sat_clone, "10:10", "--sync", "claim", "open", "--scope", "proj/c.md", "--slug", "third")
    assert written.code == 0, written.err
    assert f"not kept: `bsi: renew claim {other.out.strip()}`" in written.err, written.err
