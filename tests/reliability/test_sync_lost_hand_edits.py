"""A claim opened offline whose file a human hand-edited before the sync still loses to the claim another machine
pushed first (SPEC 11, 22): an odd value in the file never makes two claims hold one scope in the remote.

A `parent_satellite` naming a session the brain has no claim for (no file, and no claim file that does not read
which could be it) hides no ancestor: nothing lies past that link, so the other machine's claim is no ancestor of
the offline one, and the offline one lost at a human's sync. An agent's sync never ends a claim on that reading (the
claim's real pilot would count as "another" claim there): it is refused and pushes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import Run, clean_env, run_bsi

from .harness import claim_shown, git, make_remote, racer_env

ABSENT = "sess-20261129-0700-gone"


def _bsi(clone: Path, now: str, *args: str, agent: bool = False) -> Run:
    env = clean_env(pin=False, identity=clone.name, CLAUDECODE="1") if agent else racer_env(clone.name)
    return run_bsi(*args, brain=clone, now=f"2026-11-29T{now}:00+00:00", env=env, timeout=None)


def _remote_status(clone: Path, sess: str) -> str:
    git(clone, "fetch", "--quiet")
    text = git(clone, "show", f"origin/main:claims/{sess}.yml")
    return next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("status:"))


@pytest.mark.parametrize("hold", ["open", "pause"])
@pytest.mark.parametrize("agent", [False, True], ids=["human", "agent"])
def test_a_hand_edited_parent_the_brain_lacks_never_keeps_a_lost_claim_in_force(
        tmp_path: Path, hold: str, agent: bool) -> None:
    _remote, (a, b) = make_remote(tmp_path, 2)
    first = _bsi(b, "10:00", "--sync", "claim", "open", "--scope", "area/x.md", "--slug", "first")
    assert first.code == 0, first.err
    winner = first.out.strip()
    late = _bsi(a, "10:01", "--offline", "claim", "open", "--scope", "area/", "--slug", "late")
    assert late.code == 0, late.err
    lost = late.out.strip()
    if hold == "pause":
        assert _bsi(a, "10:02", "--offline", "gate", "pause", lost, "hold on").code == 0
    path = a / "claims" / f"{lost}.yml"
    path.write_text(path.read_text(encoding="utf-8") + f"parent_satellite: {ABSENT}\n", encoding="utf-8")
    git(a, "commit", "--quiet", "-m", "hand edit: parent", "--", f"claims/{lost}.yml")

    if agent:  # past a parent no claim has, the claim's real pilot would count as "another" claim: an agent's sync
        # never ends a claim on that reading (`human_lifts.derived_move`); it pushes nothing and a human's sync decides
        refused = _bsi(a, "10:03", "sync", agent=True)
        assert refused.code == 77, refused.err
        git(a, "fetch", "--quiet")
        assert f"claims/{lost}.yml" not in git(a, "ls-tree", "-r", "--name-only", "origin/main")
    synced = _bsi(a, "10:03", "sync")
    assert "lost while offline" in synced.err and winner in synced.err, synced.err
    assert claim_shown(a, lost, "2026-11-29T10:30:00+00:00")["status"] == "failed"
    assert _remote_status(a, lost) == "failed", "two claims hold area/x.md in the remote"
    assert _remote_status(a, winner) == "open"
