"""A push never carries a claim that holds less than this clone's work tree and the remote both hold (SPEC 21, 22).

The push guard compared the claim's status only. A commit made in git alone (an agent's shell writes `.git`, never
the work tree's claim files) that narrowed a live claim's scope, reset its circuit breaker or renewed it kept the
status and went through a human's `bsi sync`: the other clones took it into their work trees, and the scope was
free there.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.bsi import Run, run_bsi

from .harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"


def _bsi(clone: Path, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=NOW, env=racer_env(clone.name), timeout=None)


def _commit_in_git_alone(clone: Path, rel: str, text: str) -> None:
    """The agent's step: a commit of `text` as `rel`, made with git's plumbing (the work tree is not touched)."""
    oid = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=clone, input=text, capture_output=True,
                         text=True, check=True).stdout.strip()
    git(clone, "update-index", "--cacheinfo", f"100644,{oid},{rel}")
    tree = git(clone, "write-tree").strip()
    commit = git(clone, "commit-tree", tree, "-p", "HEAD", "-m", "tidy").strip()
    git(clone, "update-ref", "HEAD", commit)


@pytest.mark.parametrize("how", ["scope", "breaker", "expiry"])
def test_a_push_never_frees_a_scope_the_work_tree_holds(tmp_path: Path, how: str) -> None:
    _, (mine, theirs) = make_remote(tmp_path, 2)
    sess = _bsi(mine, "--sync", "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    rel = f"claims/{sess}.yml"
    text = (mine / rel).read_text(encoding="utf-8")
    if how == "scope":
        assert "scope: proj/\n" in text
        loosened = text.replace("scope: proj/\n", "scope: elsewhere/\n")
    elif how == "expiry":
        assert "expires_at: '2026-11-29T12:00:00+00:00'" in text
        loosened = text.replace("2026-11-29T12:00", "2026-12-29T12:00")
    else:
        text += "circuit:\n  tripped: true\n  fails: 3\n"
        (mine / rel).write_text(text, encoding="utf-8")  # the human's write (as the breaker's trip commits it)
        git(mine, "commit", "--quiet", "-m", "trip", "--", rel)
        assert _bsi(mine, "sync").code == 0
        loosened = text.replace("tripped: true", "tripped: false").replace("fails: 3", "fails: 0")
    _commit_in_git_alone(mine, rel, loosened)
    synced = _bsi(mine, "sync")  # the human's sync
    assert synced.code == 65, (synced.code, synced.out, synced.err)
    assert _bsi(theirs, "sync").code == 0
    if how == "scope":
        second = _bsi(theirs, "claim", "open", "--scope", "proj/", "--slug", "x")
        assert second.code == 10, (second.code, second.out, second.err)
    elif how == "expiry":
        assert "2026-11-29T12:00" in (theirs / rel).read_text(encoding="utf-8")
    else:
        assert "tripped: true" in (theirs / rel).read_text(encoding="utf-8")


@pytest.mark.parametrize("how", ["file", "expiry"])
def test_a_push_never_frees_a_lock_the_work_tree_holds(tmp_path: Path, how: str) -> None:
    _, (mine, theirs) = make_remote(tmp_path, 2)
    sess = _bsi(mine, "--sync", "claim", "open", "--scope", "docs/", "--ttl", "4h", "--slug", "w").out.strip()
    assert _bsi(mine, "--sync", "lock", "acquire", "docs/a.md", sess).code == 0
    (rel,) = [f"locks/{p.name}" for p in (mine / "locks").iterdir() if p.suffix in (".yml", ".yaml")]
    text = (mine / rel).read_text(encoding="utf-8")
    if how == "file":
        assert "docs/a.md" in text
        loosened = text.replace("docs/a.md", "docs/b.md")
    else:
        stamp = next(line for line in text.splitlines() if line.startswith("expires_at:"))
        loosened = text.replace(stamp, "expires_at: '2026-11-29T10:00:01+00:00'")
    _commit_in_git_alone(mine, rel, loosened)
    synced = _bsi(mine, "sync")  # the human's sync
    assert synced.code == 65, (synced.code, synced.out, synced.err)
    assert _bsi(theirs, "sync").code == 0
    assert (theirs / rel).read_text(encoding="utf-8") == text


def test_a_pause_never_pushed_is_not_pushed_away_by_a_commit_in_git_alone(tmp_path: Path) -> None:
    """A claim opened and paused on this clone before any sync: the remote has no copy of its file. A commit made
    in git alone that puts it back to `open` held "more than the remote" (nothing), and a human's later sync
    pushed it: the other clones read the claim open, its pause lost."""
    _, (mine, theirs) = make_remote(tmp_path, 2)
    sess = _bsi(mine, "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    rel = f"claims/{sess}.yml"
    opened = (mine / rel).read_text(encoding="utf-8")
    assert _bsi(mine, "gate", "pause", sess, "hold").code == 0
    _commit_in_git_alone(mine, rel, opened)  # the agent's program: HEAD holds the claim open again
    synced = _bsi(mine, "sync")  # the human's sync
    assert synced.code == 65 and rel in synced.err, (synced.code, synced.out, synced.err)
    assert _bsi(theirs, "sync").code == 0
    assert not (theirs / rel).exists()
    git(mine, "commit", "--quiet", "-m", "the pause, as the work tree holds it", "--", rel)  # what the refusal says
    assert _bsi(mine, "sync").code == 0
    assert _bsi(theirs, "sync").code == 0
    assert "status: paused" in (theirs / rel).read_text(encoding="utf-8")


def test_a_push_never_widens_a_claim_into_another_claims_scope(tmp_path: Path) -> None:
    """A commit made in git alone that adds a scope entry to a live claim: no verb ever widens a claim, so no
    conflict check judged the new entry. Pushed, the remote held two open claims on one file (`wiki/x.md` by the
    other clone's claim and by the widened one), each then refused by preflight (4) on the other's account."""
    _, (mine, theirs) = make_remote(tmp_path, 2)
    sess = _bsi(mine, "--sync", "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    other = _bsi(theirs, "--sync", "claim", "open", "--scope", "wiki/x.md", "--slug", "o")
    assert other.code == 0, other.err
    rel = f"claims/{sess}.yml"
    text = (mine / rel).read_text(encoding="utf-8")
    assert "scope: proj/\n" in text
    _commit_in_git_alone(mine, rel, text.replace("scope: proj/\n", "scope:\n- proj/\n- wiki/\n"))
    synced = _bsi(mine, "sync")  # the human's sync
    assert synced.code == 65 and rel in synced.err, (synced.code, synced.out, synced.err)
    assert _bsi(theirs, "sync").code == 0
    assert (theirs / rel).read_text(encoding="utf-8") == text
