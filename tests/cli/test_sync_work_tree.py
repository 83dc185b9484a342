"""A sync that must rebase local commits never leaves the user's uncommitted files half-merged (SPEC 11, 22).

A fast-forward already refuses when an uncommitted or untracked file is in the remote's way (exit 22, the files
named, nothing changed); a rebase of pending local commits does the same, rather than parking the change in git's
stash behind conflict lines or retrying a push that can never land.
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import bsi_at
from tests.reliability.harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"

#: `bsi(clone, *args, now=NOW)`: `bsi --brain CLONE --now NOW ARGS…` as the tester.
bsi = bsi_at(NOW, env=racer_env("tester"), timeout=None)


def _offline_claim(tmp: Path, clone: Path) -> None:
    good = git(clone, "remote", "get-url", "origin").strip()
    git(clone, "remote", "set-url", "origin", str(tmp / "gone.git"))
    assert bsi(clone, "--offline", "claim", "open", "--scope", "docs/", "--slug", "off").code == 0
    git(clone, "remote", "set-url", "origin", good)


def _remote_writes(clone: Path, name: str, text: str) -> None:
    (clone / name).write_text(text, encoding="utf-8")
    git(clone, "add", name)
    git(clone, "commit", "--quiet", "-m", f"edit {name}")
    git(clone, "push", "--quiet", "origin", "main")


def test_an_uncommitted_edit_the_remote_also_changed_stops_the_sync_untouched(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    _remote_writes(a, "notes.md", "base\n")
    assert bsi(b, "sync").code == 0
    _remote_writes(a, "notes.md", "remote change\n")
    _offline_claim(tmp_path, b)
    (b / "notes.md").write_text("my uncommitted change\n", encoding="utf-8")
    head = git(b, "rev-parse", "HEAD")
    res = bsi(b, "sync")
    assert res.code == 22, (res.code, res.out, res.err)
    assert "notes.md" in res.err and "Traceback" not in res.err
    assert (b / "notes.md").read_text(encoding="utf-8") == "my uncommitted change\n"
    assert git(b, "stash", "list").strip() == ""
    assert git(b, "rev-parse", "HEAD") == head
    assert git(b, "status", "--porcelain").strip() == "M notes.md"


def test_an_untracked_file_the_remote_adds_stops_the_sync_at_once(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    _remote_writes(a, "notes.md", "remote\n")
    _offline_claim(tmp_path, b)
    (b / "notes.md").write_text("mine\n", encoding="utf-8")
    res = bsi(b, "sync")
    assert res.code == 22, (res.code, res.out, res.err)
    assert "notes.md" in res.err
    assert (b / "notes.md").read_text(encoding="utf-8") == "mine\n"
    (b / "notes.md").unlink()
    assert bsi(b, "sync").code == 0


def test_uncommitted_files_the_remote_does_not_change_are_carried_over(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    _remote_writes(a, "notes.md", "remote\n")
    _offline_claim(tmp_path, b)
    (b / "mine.md").write_text("mine\n", encoding="utf-8")
    res = bsi(b, "sync")
    assert res.code == 0, res.err
    assert (b / "mine.md").read_text(encoding="utf-8") == "mine\n"
    assert "sess-20261129-1000-off" in git(remote, "log", "--format=%s", "main")


def test_a_claim_file_left_untracked_by_a_history_rewind_does_not_stop_the_sync(tmp_path: Path) -> None:
    # `git reset HEAD~1` (an agent rewinding history) leaves the claim file of the undone commit untracked, byte for
    # byte what the remote holds: nothing to merge, so no hand step either (SPEC 22).
    _, (a, b) = make_remote(tmp_path, 2)
    sess = bsi(a, "--sync", "claim", "open", "--scope", "docs/", "--slug", "held").out.strip()
    assert bsi(b, "sync").code == 0
    git(b, "reset", "--quiet", "HEAD~1")
    assert f"?? claims/{sess}.yml" in git(b, "status", "--porcelain")
    res = bsi(b, "sync")
    assert res.code == 0, res.err
    assert git(b, "status", "--porcelain").strip() == ""
    assert git(b, "rev-parse", "HEAD") == git(a, "rev-parse", "HEAD")
    refused = bsi(b, "--sync", "claim", "open", "--scope", "docs/x.md")
    assert refused.code == 10 and sess in refused.err


def test_a_rewound_claim_file_and_a_pending_commit_sync_too(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    sess = bsi(a, "--sync", "claim", "open", "--scope", "docs/", "--slug", "held").out.strip()
    assert bsi(b, "sync").code == 0
    git(b, "reset", "--quiet", "HEAD~1")
    _offline_claim_on(tmp_path, b, "notes/")
    res = bsi(b, "sync")
    assert res.code == 0, res.err
    assert git(b, "status", "--porcelain").strip() == ""
    pushed = git(remote, "log", "--format=%s", "main")
    assert f"bsi: open claim {sess}" in pushed and "sess-20261129-1000-off" in pushed


def _offline_claim_on(tmp: Path, clone: Path, scope: str) -> None:
    good = git(clone, "remote", "get-url", "origin").strip()
    git(clone, "remote", "set-url", "origin", str(tmp / "gone.git"))
    assert bsi(clone, "--offline", "claim", "open", "--scope", scope, "--slug", "off").code == 0
    git(clone, "remote", "set-url", "origin", good)
