"""Claim commits moved by hand with git (pull, merge, revert) never give one scope two writers (SPEC 5.3, 22).

A human's terminal can bring into the history two blocking claims that the
protocol would never have let both open: a `git pull` merging a claim opened
on another machine, a `git revert` of a close. What git holds is in force, so
both claims are there; neither may write until a human settles which one goes.
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import Run, run_bsi

from .harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"
AA, BB = "sess-20261129-1000-aa", "sess-20261129-1000-bb"


def _bsi(clone: Path, *args: str) -> Run:
    """`bsi --brain CLONE --now NOW ARGS…` on the clone's own name."""
    return run_bsi(*args, brain=clone, now=NOW, env=racer_env(clone.name), timeout=None)


def _writers(clones: list[Path], file: str) -> list[str]:
    """The sessions whose preflight lets them write `file`, asked on every clone."""
    return sorted({sess for clone in clones for sess in (AA, BB)
                   if _bsi(clone, "preflight", "check", sess, file).code == 0})


def test_a_hand_merge_of_two_claims_on_one_scope_lets_neither_write(tmp_path: Path) -> None:
    _, (first, second) = make_remote(tmp_path, 2)
    assert _bsi(first, "--sync", "claim", "open", "--scope", "notes/", "--slug", "aa").code == 0
    assert _bsi(second, "claim", "open", "--scope", "notes/a.md", "--slug", "bb").code == 0  # not synced yet
    # A human merges and pushes by hand: git sees no conflict between two new claim files.
    git(second, "pull", "--quiet", "--no-rebase", "--no-edit", "-X", "ours", "origin", "main")
    git(second, "push", "--quiet", "origin", "main")
    assert _bsi(first, "sync").code == 0
    assert _writers([first, second], "notes/a.md") == []
    refused = _bsi(second, "preflight", "check", BB, "notes/a.md")
    assert refused.code == 4 and AA in refused.err, refused.err


def test_a_hand_revert_of_a_close_does_not_give_the_scope_back_to_its_old_holder(tmp_path: Path) -> None:
    _, (clone,) = make_remote(tmp_path, 1)
    assert _bsi(clone, "--sync", "claim", "open", "--scope", "notes/", "--slug", "aa").code == 0
    assert _bsi(clone, "--sync", "claim", "close", AA, "--status", "ok").code == 0
    close = git(clone, "rev-parse", "HEAD").strip()
    assert _bsi(clone, "--sync", "claim", "open", "--scope", "notes/", "--slug", "bb").code == 0
    git(clone, "revert", "--no-edit", "--strategy-option", "ours", close)  # the index keeps this clone's rows
    assert _writers([clone], "notes/a.md") == []
    # A human settles it: the resurrected claim is aborted, and the scope is the new holder's again.
    assert _bsi(clone, "gate", "abort", AA, "revived by hand").code == 0
    assert _writers([clone], "notes/a.md") == [BB]
