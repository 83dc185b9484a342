"""A lock whose holder's claim has ended, as git holds it (SPEC 22), holds nothing (SPEC 9, 10).

A closed, failed or released claim never writes again (SPEC 6.3: no way out of a terminal status), so its
unexpired locks no longer block another session: `lock acquire` takes them over (generation + 1, the takeover
printed), `preflight check` does not answer 2 for them and `lock check` calls the file free. An uncommitted
edit of the holder to a terminal status frees nothing (README: an uncommitted release frees nothing).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import lock_brain
from tests.cli.lock_brain import FILE, A, B, assert_still_held, bsi, git

base_brain, brain = lock_brain.base_brain, lock_brain.brain  # the fixtures, by their names


@pytest.mark.parametrize("end", [
    ("claim", "close", A, "--status", "ok"),
    ("gate", "abort", A, "stopped by hand"),
])
def test_a_lock_of_an_ended_claim_no_longer_blocks(brain: Path, end: tuple[str, ...]) -> None:
    proc = bsi(brain, *end)
    assert proc.code == 0, proc.err
    proc = bsi(brain, "preflight", "check", B, FILE)
    assert proc.code == 0, proc
    assert bsi(brain, "lock", "check", FILE).code == 0
    proc = bsi(brain, "--json", "lock", "acquire", FILE, B)
    assert proc.code == 0, proc
    out = json.loads(proc.out)
    assert out["action"] == "taken_over" and out["takeover"] is True
    assert out["previous_holder"] == A and out["generation"] == 2 and out["holder"] == B
    assert "takeover" in proc.err and A in proc.err


def test_a_lock_of_a_released_claim_no_longer_blocks(brain: Path) -> None:
    later = "2026-11-29T18:30:00Z"  # both claims past 8 h: stale; a human releases alfa, bravo opens anew
    assert bsi(brain, "watchdog", now=later).code == 0
    assert bsi(brain, "claim", "release", A, "--reason", "gone", now=later).code == 0
    assert bsi(brain, "claim", "release", B, "--reason", "gone", now=later).code == 0
    fresh = bsi(brain, "claim", "open", "--scope", "bravo/", "--slug", "charlie", now=later)
    assert fresh.code == 0, fresh.err
    lock = (brain / "locks").glob("*.yml")
    assert len(list(lock)) == 1
    # the released holder's lock, still unexpired, is rewritten to reach past the release
    path = next((brain / "locks").glob("*.yml"))
    text = path.read_text(encoding="utf-8")
    path.write_text("\n".join(line if not line.startswith("expires_at") else "expires_at: '2026-11-29T20:00:00Z'"
                              for line in text.splitlines()) + "\n", encoding="utf-8")
    git(brain, "commit", "-qam", "a long lock")
    sess = fresh.out.strip()
    assert bsi(brain, "preflight", "check", sess, FILE, now=later).code == 0
    proc = bsi(brain, "lock", "acquire", FILE, sess, now=later)
    assert proc.code == 0 and "takeover" in proc.err, proc


def test_an_uncommitted_close_of_the_holder_frees_nothing(brain: Path) -> None:
    proc = bsi(brain, "--no-commit", "claim", "close", A, "--status", "ok")
    assert proc.code == 0, proc.err
    assert_still_held(brain)


def test_a_hand_edit_of_the_holder_to_closed_frees_nothing(brain: Path) -> None:
    path = brain / "claims" / f"{A}.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("status: open", "status: closed"), encoding="utf-8")
    assert_still_held(brain)


def test_a_close_made_in_git_alone_frees_nothing(brain: Path) -> None:
    path = brain / "claims" / f"{A}.yml"
    live = path.read_text(encoding="utf-8")
    path.write_text(live.replace("status: open", "status: closed"), encoding="utf-8")
    git(brain, "commit", "-qam", "closed behind bsi's back")
    path.write_text(live, encoding="utf-8")  # the work tree still holds it open: it reads as stale
    assert_still_held(brain)


def test_check_and_list_say_a_lock_of_an_ended_claim_holds_nothing(brain: Path) -> None:
    """`lock check` exits 0 (free) for it, so its line says free, never "locked"; `lock list` shows it as holding
    nothing (the claim's status), not as held; `--json` gives that status as `holder_ended`."""
    assert bsi(brain, "claim", "close", A, "--status", "ok").code == 0
    proc = bsi(brain, "lock", "check", FILE)
    assert proc.code == 0 and "free" in proc.out and "locked" not in proc.out and A in proc.out, proc
    row = next(line for line in bsi(brain, "lock", "list").out.splitlines() if A in line)
    assert "held" not in row and "closed" in row, row
    (lock,) = json.loads(bsi(brain, "--json", "lock", "list").out)["locks"]
    assert lock["holder_ended"] == "closed", lock


def test_a_live_lock_reads_held(brain: Path) -> None:
    row = next(line for line in bsi(brain, "lock", "list").out.splitlines() if A in line)
    assert "held" in row, row
    assert json.loads(bsi(brain, "--json", "lock", "list").out)["locks"][0]["holder_ended"] is None
    proc = bsi(brain, "lock", "check", FILE)
    assert proc.code == 1 and "locked" in proc.out, proc
