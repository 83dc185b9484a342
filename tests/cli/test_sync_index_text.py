"""A sync keeps the hand-written text of BRAIN-INDEX.md (SPEC 8: outside the markers is kept; the block is
regenerated, never merged)."""

from __future__ import annotations

from pathlib import Path

from tests.bsi import bsi_at
from tests.reliability.harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"

#: `bsi(clone, *args, now=NOW)`: `bsi --brain CLONE --now NOW ARGS…` as the tester.
bsi = bsi_at(NOW, env=racer_env("tester"), timeout=None)


def _edit_top(clone: Path, line: str) -> None:
    index = clone / "BRAIN-INDEX.md"
    index.write_text(f"{line}\n\n" + index.read_text(encoding="utf-8"), encoding="utf-8")
    git(clone, "commit", "--quiet", "-am", "notes in the index")


def test_a_committed_note_above_the_block_survives_a_sync_that_rebases_it(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    _edit_top(a, "Keep this note.")
    assert bsi(b, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "other").code == 0
    synced = bsi(a, "--json", "sync")
    assert synced.code == 0, synced.err
    assert "Keep this note." in (a / "BRAIN-INDEX.md").read_text(encoding="utf-8")
    on_remote = git(remote, "show", "main:BRAIN-INDEX.md")
    assert "Keep this note." in on_remote
    assert "sess-20261129-1000-other" in on_remote  # the block is the regenerated one


def test_notes_on_both_sides_in_different_places_both_survive(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    _edit_top(b, "Note from b.")
    assert bsi(b, "sync").code == 0
    index = a / "BRAIN-INDEX.md"
    index.write_text(index.read_text(encoding="utf-8") + "\nNote from a, below.\n", encoding="utf-8")
    git(a, "commit", "--quiet", "-am", "note below the block")
    synced = bsi(a, "sync")
    assert synced.code == 0, synced.err
    on_remote = git(remote, "show", "main:BRAIN-INDEX.md")
    assert "Note from b." in on_remote and "Note from a, below." in on_remote


def test_the_same_line_changed_on_both_sides_is_the_users_to_resolve(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    _edit_top(b, "Owner: bob.")
    assert bsi(b, "sync").code == 0
    _edit_top(a, "Owner: alice.")
    head = git(a, "rev-parse", "HEAD")
    synced = bsi(a, "sync")
    assert synced.code == 21, synced.err
    assert "BRAIN-INDEX.md" in synced.err and "Traceback" not in synced.err
    assert git(a, "rev-parse", "HEAD") == head  # the rebase was aborted, nothing lost
    assert "Owner: alice." in (a / "BRAIN-INDEX.md").read_text(encoding="utf-8")
    assert "Owner: bob." in git(remote, "show", "main:BRAIN-INDEX.md")
