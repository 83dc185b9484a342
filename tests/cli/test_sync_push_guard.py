"""A push never carries a protocol record looser than the work tree holds (SPEC 21, 22): a claim ended or a pause
lifted by a commit made in git alone (an agent's shell can write `.git`, never the fenced claim files) stays on
this clone, for a human; the other clones keep the claim as the remote holds it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.bsi import bsi_at
from tests.reliability.harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"
bsi = bsi_at(NOW, env=racer_env("tester"), timeout=None)


def _commit_in_git_only(clone: Path, rel: str, old: str, new: str, drop: tuple[str, ...] = (),
                        also: tuple[str, str] = ("", "")) -> None:
    """Commit `rel` with `old` (and `also[0]`) replaced by `new` (and `also[1]`) and the lines starting with `drop`
    removed, in git alone."""
    text = (clone / rel).read_text(encoding="utf-8")
    assert old in text and also[0] in text
    text = text.replace(old, new).replace(*also) if also[0] else text.replace(old, new)
    text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(drop))
    oid = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=clone, input=text,
                         capture_output=True, text=True, check=True).stdout.strip()
    git(clone, "update-index", "--cacheinfo", f"100644,{oid},{rel}")
    git(clone, "commit", "-qm", "made in git alone")


@pytest.mark.parametrize("how", ["ended", "ended-without-status", "lifted", "deleted"])
def test_a_loosening_made_in_git_alone_is_never_pushed(tmp_path: Path, how: str) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    opened = bsi(a, "--sync", "claim", "open", "--scope", "agents/", "--slug", "victim")
    assert opened.code == 0, opened.err
    sess = opened.out.strip()
    rel = f"claims/{sess}.yml"
    if how == "lifted":
        assert bsi(a, "--sync", "gate", "pause", sess).code == 0
        # the whole of a resume, its marks and event too (the status line alone lifts nothing: `held_status`)
        _commit_in_git_only(a, rel, "status: paused", "status: open", drop=("paused_by:", "paused_from:"),
                            also=("event: PAUSED,", "event: RESUMED,"))
    elif how == "ended":
        _commit_in_git_only(a, rel, "status: open", "status: closed")
    elif how == "ended-without-status":  # the v1 spelling of a close: no status, a closing time (SPEC 6.2)
        _commit_in_git_only(a, rel, "status: open", "closed_at: '2026-11-29T10:00:00+00:00'")
    else:
        git(a, "rm", "-q", "--cached", rel)
        git(a, "commit", "-qm", "removed in git alone")
    tip = git(remote, "rev-parse", "main")
    synced = bsi(a, "sync")
    assert synced.code == 65, synced.err
    assert rel in synced.err and "Traceback" not in synced.err
    assert git(remote, "rev-parse", "main") == tip  # nothing pushed
    other = bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "other")  # a write's push too
    assert other.code == 65, other.err
    assert git(remote, "rev-parse", "main") == tip
    assert not [p.name for p in (a / "claims").iterdir() if "other" in p.name]  # its commit taken back
    assert bsi(b, "--sync", "claim", "open", "--scope", "agents/x.md").code == 10  # the remote still holds it
    git(a, "add", rel)  # a human commits the work tree's copy: nothing looser is left to push
    git(a, "commit", "-qm", "the work tree's copy")
    assert bsi(a, "sync").code == 0


def test_a_record_committed_from_the_work_tree_is_pushed(tmp_path: Path) -> None:
    remote, (a, _b) = make_remote(tmp_path, 2)
    opened = bsi(a, "--sync", "claim", "open", "--scope", "agents/", "--slug", "mine")
    sess = opened.out.strip()
    rel = a / "claims" / f"{sess}.yml"
    rel.write_text(rel.read_text(encoding="utf-8").replace("status: open", "status: closed"), encoding="utf-8")
    git(a, "commit", "-qam", "closed by hand, committed")  # a human's hand close, the work tree's own
    synced = bsi(a, "sync")
    assert synced.code == 0, synced.err
    assert git(remote, "rev-parse", "main") == git(a, "rev-parse", "HEAD")


def test_a_lock_removed_in_git_alone_is_never_pushed(tmp_path: Path) -> None:
    remote, (a, _b) = make_remote(tmp_path, 2)
    holder = bsi(a, "--sync", "claim", "open", "--scope", "agents/", "--slug", "holder").out.strip()
    assert bsi(a, "--sync", "lock", "acquire", "agents/x.md", holder).code == 0
    (lock,) = [p.relative_to(a).as_posix() for p in (a / "locks").iterdir() if p.suffix in (".yml", ".yaml")]
    git(a, "rm", "-q", "--cached", lock)
    git(a, "commit", "-qm", "lock removed in git alone")
    tip = git(remote, "rev-parse", "main")
    synced = bsi(a, "sync")
    assert synced.code == 65 and lock in synced.err, synced.err
    assert git(remote, "rev-parse", "main") == tip
