"""A synced open decides on the remote's tree: a symlink the remote holds and this clone has not seen yet counts."""

from __future__ import annotations

import os
from pathlib import Path

from tests.bsi import Run, run_bsi

from .harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"


def _bsi(clone: Path, *args: str) -> Run:
    """`bsi --brain CLONE --now NOW --sync ARGS…` on the clone's own name."""
    return run_bsi("--sync", *args, brain=clone, now=NOW, env=racer_env(clone.name), timeout=None)


def test_a_clone_behind_a_symlink_cannot_claim_through_it_what_another_holds(tmp_path: Path) -> None:
    _, (ahead, behind) = make_remote(tmp_path, 2)
    (ahead / "notes").mkdir()
    (ahead / "notes" / "a.md").write_text("x\n", encoding="utf-8")
    os.symlink("notes", ahead / "alias")
    git(ahead, "add", "notes", "alias")
    git(ahead, "commit", "--quiet", "-m", "notes and a link to them")
    git(ahead, "push", "--quiet", "origin", "main")
    held = _bsi(ahead, "claim", "open", "--scope", "notes/", "--slug", "holder")
    assert held.code == 0, held.err
    # The other clone has not fetched the link yet: `alias/a.md` is notes/a.md on the tree it opens on.
    refused = _bsi(behind, "claim", "open", "--scope", "alias/a.md", "--slug", "through-link")
    assert refused.code == 10, f"a second holder of notes/a.md: {refused.out}{refused.err}"
    assert held.out.strip() in refused.err


def test_a_claim_opened_without_a_commit_loses_at_sync_to_the_one_the_remote_holds(tmp_path: Path) -> None:
    # `--no-commit` leaves the claim in the work tree only; it is decided on this clone's view, like an offline
    # open, so the sync that brings another machine's claim on the same scope marks it lost (never two holders).
    _, (first, late) = make_remote(tmp_path, 2)
    held = _bsi(first, "claim", "open", "--scope", "notes/a.md", "--slug", "first")
    assert held.code == 0, held.err
    opened = run_bsi("--no-commit", "claim", "open", "--scope", "notes/a.md#S", "--slug", "late", brain=late,
                     now=NOW, env=racer_env(late.name), timeout=None)
    assert opened.code == 0, opened.err  # this clone has not seen the first claim yet
    sess = opened.out.strip()
    synced = run_bsi("sync", brain=late, now=NOW, env=racer_env(late.name), timeout=None)
    assert synced.code == 10 and f"lost while offline: {sess}" in synced.err, synced.err  # as an offline open
    check = run_bsi("--json", "claim", "show", sess, brain=late, now=NOW, env=racer_env(late.name))
    assert check.json()["status"] == "failed", check.out
    go = run_bsi("preflight", "check", sess, "notes/a.md", brain=late, now=NOW, env=racer_env(late.name))
    assert go.code == 4, f"two sessions may write notes/a.md: {go.out}{go.err}"
