"""A claim opened offline whose scope another machine claimed first loses at sync, even paused by a human (SPEC 11,
22): the sync an agent runs settles it as a human's would, never stuck behind a refusal (exit 77).

The offline claim never held its scope in git (the remote is the only arbiter; an offline open is pending until the
sync's conflict check on the fetched tree): it ends `failed`, the derived "lost at sync" mark. That is not a pause
lifted: nothing of it goes live again, its pause stays recorded, and its history says it was lost while paused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import Run, clean_env, run_bsi

from .harness import claim_shown, git, make_remote, racer_env


def _bsi(clone: Path, now: str, *args: str, agent: bool = False) -> Run:
    env = clean_env(pin=False, identity=clone.name, CLAUDECODE="1") if agent else racer_env(clone.name)
    return run_bsi(*args, brain=clone, now=f"2026-11-29T{now}:00+00:00", env=env, timeout=None)



def _shown_at(clone: Path, sess: str) -> dict:
    return claim_shown(clone, sess, "2026-11-29T10:30:00+00:00")


@pytest.mark.parametrize("hold", ["pause", "gate"])
def test_an_agents_sync_marks_a_held_claim_lost_while_offline_failed(tmp_path: Path, hold: str) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    late = _bsi(a, "10:00", "--offline", "claim", "open", "--scope", "wiki/", "--slug", "late")
    assert late.code == 0, late.err
    lost = late.out.strip()
    if hold == "pause":
        assert _bsi(a, "10:01", "--offline", "gate", "pause", lost, "hold on").code == 0
    else:
        assert _bsi(a, "10:01", "--offline", "gate", "request", lost, "ok to go on?").code == 0
    other = _bsi(a, "10:01", "--offline", "claim", "open", "--scope", "docs/", "--slug", "other")
    assert other.code == 0, other.err
    first = _bsi(b, "10:02", "--sync", "claim", "open", "--scope", "wiki/page.md", "--slug", "first")
    assert first.code == 0, first.err
    winner = first.out.strip()

    synced = _bsi(a, "10:03", "sync", agent=True)
    assert synced.code != 77, synced.err
    assert "lost while offline" in synced.err and winner in synced.err and lost in synced.err
    shown = _shown_at(a, lost)
    assert shown["status"] == "failed"
    if hold == "pause":
        assert shown.get("paused_by") == lost, "the human's pause is forgotten"
    held = "paused" if hold == "pause" else "waiting_human"
    assert f"it was {held}: the hold ends with the claim" in shown["abort_reason"]
    subjects = git(remote, "log", "--format=%s", "main")
    assert f"bsi: sync lost {lost}" in subjects, "the agent's sync did not push what it settled"
    assert other.out.strip() in subjects, "the agent's other writes were not pushed"
    assert _shown_at(b, winner)["status"] == "open"
    assert _bsi(b, "10:04", "sync").code == 0
    assert _shown_at(b, lost)["status"] == "failed"


@pytest.mark.parametrize("agent", [False, True], ids=["human", "agent"])
def test_a_child_opened_offline_never_loses_to_its_own_pilot_paused_meanwhile(tmp_path: Path, agent: bool) -> None:
    """A pilot pushed, a child opened under it offline, then the human pauses the pilot (the cascade pauses the child
    too). At sync the paused pilot meets the child's scope by the chain rule alone: that is no loss (nobody else
    claimed the scope), so the child stays paused with its pilot, whoever syncs."""
    remote, (a, _b) = make_remote(tmp_path, 2)
    pilot = _bsi(a, "10:00", "--sync", "claim", "open", "--scope", "wiki/", "--type", "pilote", "--slug", "pilot")
    assert pilot.code == 0, pilot.err
    child = _bsi(a, "10:01", "--offline", "claim", "open", "--scope", "wiki/page.md", "--parent", pilot.out.strip(),
                 "--satellite-type", "code", "--slug", "child")
    assert child.code == 0, child.err
    assert _bsi(a, "10:02", "--offline", "gate", "pause", pilot.out.strip(), "hold the tree").code == 0

    synced = _bsi(a, "10:03", "sync", agent=agent)
    assert synced.code == 0, synced.err
    assert "lost" not in synced.err, synced.err
    assert _shown_at(a, child.out.strip())["status"] == "paused"
    assert _shown_at(a, pilot.out.strip())["status"] == "paused"
    assert child.out.strip() in git(remote, "log", "--format=%s", "main")
