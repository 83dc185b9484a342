"""All or nothing (SPEC 22): a killed or failing write leaves the committed state, and the next command recovers.

One test per defect of issue 18: a kill between a close and its commit, a git
step that fails after the claim file was written, a push whose answer comes
after the time limit, an offline watchdog's STALE mark against a renew pushed
from another machine.
"""

from __future__ import annotations

import errno
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core import bootstrap
from brain_tui.core.brain import Brain, init_brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records import index_file
from brain_tui.core.rules.claims import OpenRequest
from tests.bsi import git, ok, run_bsi

from .faults import Faults, run_faulty
from .harness import make_remote, racer_env, remote_claims

T0 = "2026-11-29T09:00:00Z"


def _protocol_diff(clone: Path) -> str:
    """Uncommitted changes to protocol files (nothing should be left by a killed or failed write)."""
    return git(clone, "status", "--porcelain", "--untracked-files=all", "--", "claims", "signals", "locks",
               "breath", "BRAIN-INDEX.md", env=racer_env("check"))


def _statuses(claims: list[dict[str, Any]], scope: str) -> list[str]:
    return [c["status"] for c in claims if c["scope"] == scope]


def test_kill_between_close_and_its_commit_leaves_one_holder(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    env = racer_env("racer0")
    sess = ok(run_bsi("--sync", "claim", "open", "--scope", "other/", brain=a, now=T0, env=env))
    faults = Faults.install(tmp_path)
    killed = run_faulty(faults, faults.env(env, on="update-index", do="kill-before"), "--sync", "claim", "close", sess,
                        "--status", "ok", brain=a, now=T0)
    assert killed.code == -9, killed
    ok(run_bsi("--sync", "sync", brain=a, now=T0, env=env))
    assert _protocol_diff(a) == "", "the killed close was carried along uncommitted"
    listed = json.loads(ok(run_bsi("--json", "claim", "list", brain=a, now=T0, env=env)))["claims"]
    assert [c["status"] for c in listed if c["sess_id"] == sess] == ["open"], "this clone must see what git holds"
    refused = run_bsi("--sync", "claim", "open", "--scope", "other/", brain=a, now=T0, env=env)
    assert refused.code == 10, refused
    assert _statuses(remote_claims(remote, tmp_path), "other/") == ["open"]
    # The close, run again, lands once.
    ok(run_bsi("--sync", "claim", "close", sess, "--status", "ok", brain=a, now=T0, env=env))
    ok(run_bsi("--sync", "claim", "open", "--scope", "other/", brain=b, now=T0, env=racer_env("racer1")))
    assert sorted(_statuses(remote_claims(remote, tmp_path), "other/")) == ["closed", "open"]


@pytest.mark.parametrize("staged", [False, True], ids=["plumbing", "porcelain"])
def test_failed_git_step_leaves_no_phantom_claim(tmp_path: Path, staged: bool) -> None:
    """Every step of the commit fails in turn: the plumbing's, and the porcelain's (something else is staged)."""
    _remote, (a,) = make_remote(tmp_path, 1)
    env = racer_env("racer0")
    faults = Faults.install(tmp_path)
    before = git(a, "rev-parse", "HEAD", env=env)
    steps = ("hash-object", "update-index", "write-tree", "commit-tree", "update-ref")
    if staged:
        (a / "notes.md").write_text("staged by hand\n", encoding="utf-8")
        git(a, "add", "notes.md", env=env)
        steps = ("read-tree", "hash-object", "update-index", "diff", "commit")
    for step in steps:
        failed = run_faulty(faults, faults.env(env, on=step, do="fail"), "claim", "open", "--scope", "other/",
                            brain=a, now=T0)
        assert failed.code not in (0, -9), failed
        assert "Traceback" not in failed.err
        assert not list((a / "claims").glob("*.yml")), f"a failed {step} left a claim file"
        assert _protocol_diff(a) == "", f"a failed {step} left the work tree changed"
        listed = json.loads(ok(run_bsi("--json", "claim", "list", brain=a, now=T0, env=env)))
        assert listed["claims"] == [], f"a failed {step} left a phantom claim"
    assert git(a, "rev-parse", "HEAD", env=env) == before
    ok(run_bsi("claim", "open", "--scope", "other/", brain=a, now=T0, env=env))


def test_full_disk_while_writing_the_index_puts_the_claim_back(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root = init_brain(tmp_path / "brain")
    brain = Brain(root, now=T0)

    def full(path: object, text: str, errors: str = "strict") -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(index_file, "atomic_write_text", full)
    with pytest.raises(OSError):
        brain.open_claim(OpenRequest(scope=parse_scope("other/"), ttl=parse_duration("1h"), instance="i@h"))
    monkeypatch.undo()
    assert not list((root / "claims").glob("*.yml")), "the claim file survived a failed write"
    assert list(brain.snapshot().claims) == []
    assert not (root / ".brain" / "journal" / "manifest.json").exists()


def test_late_push_answer_is_reconciled_not_undone(tmp_path: Path) -> None:
    remote, (a,) = make_remote(tmp_path, 1)
    hook = remote / "hooks" / "post-receive"
    hook.write_text("#!/bin/sh\nexec sleep 60\n", encoding="utf-8")  # the ref is updated; the answer never comes
    hook.chmod(0o755)
    env = {**racer_env("racer0"), "BSI_NETWORK_TIMEOUT": "1"}
    run = run_bsi("--sync", "claim", "open", "--scope", "other/", brain=a, now=T0, env=env)
    hook.unlink()
    assert run.code == 0, run
    sess = run.out.strip()
    assert [c["sess_id"] for c in remote_claims(remote, tmp_path)] == [sess]
    assert (a / "claims" / f"{sess}.yml").exists(), "the local commit was undone though the push landed"
    assert git(a, "rev-parse", "HEAD", env=env) == git(remote, "rev-parse", "main", env=env)
    again = run_bsi("--sync", "claim", "renew", sess, brain=a, now=T0, env=env)
    assert again.code == 0, again


def test_offline_stale_mark_loses_to_the_owners_pushed_renew(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    env_a, env_b = racer_env("racer0"), racer_env("racer1")
    sess = ok(run_bsi("--sync", "claim", "open", "--scope", "other/", "--ttl", "1h", brain=b, now=T0, env=env_b))
    ok(run_bsi("--sync", "sync", brain=a, now=T0, env=env_a))
    marked = json.loads(ok(run_bsi("--offline", "--json", "watchdog", brain=a, now="2026-11-29T10:30:00Z",
                                   env=env_a)))
    assert marked["marked"] == [sess]
    ok(run_bsi("--sync", "claim", "renew", sess, "--ttl", "4h", brain=b, now="2026-11-29T09:50:00Z", env=env_b))
    synced = run_bsi("--sync", "sync", brain=a, now="2026-11-29T10:30:00Z", env=env_a)
    assert synced.code == 0, synced
    for clone in (a, b):
        ok(run_bsi("--sync", "sync", brain=clone, now="2026-11-29T10:30:00Z", env=env_a))
        listed = json.loads(ok(run_bsi("--sync", "--json", "claim", "list", brain=clone,
                                       now="2026-11-29T10:30:00Z", env=env_a)))["claims"]
        assert [c["status"] for c in listed if c["sess_id"] == sess] == ["open"], clone
    held = [c for c in remote_claims(remote, tmp_path) if c["sess_id"] == sess]
    assert held[0]["status"] == "open" and held[0]["expires_at"].startswith("2026-11-29T13:50")
    assert _protocol_diff(a) == ""


def test_a_humans_release_beats_the_owners_renew(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    env_a, env_b = racer_env("racer0"), racer_env("racer1")
    sess = ok(run_bsi("--sync", "claim", "open", "--scope", "other/", "--ttl", "1h", brain=b, now=T0, env=env_b))
    ok(run_bsi("--sync", "sync", brain=a, now=T0, env=env_a))
    late = "2026-11-29T10:30:00Z"
    ok(run_bsi("--offline", "watchdog", brain=a, now=late, env=env_a))
    ok(run_bsi("--offline", "claim", "release", sess, "--reason", "gone", brain=a, now=late, env=env_a))
    ok(run_bsi("--sync", "claim", "renew", sess, "--ttl", "4h", brain=b, now="2026-11-29T09:50:00Z", env=env_b))
    ok(run_bsi("--sync", "sync", brain=a, now=late, env=env_a))
    held = [c for c in remote_claims(remote, tmp_path) if c["sess_id"] == sess]
    assert held[0]["status"] == "released"


def test_broken_branch_ref_leaves_no_phantom_claim_and_the_index_as_it_was(tmp_path: Path) -> None:
    _remote, (a,) = make_remote(tmp_path, 1)
    env = racer_env("racer0")
    staged = git(a, "ls-files", "-s", env=env)
    (a / ".git" / "refs" / "heads" / "main").write_text("junk\n", encoding="utf-8")
    failed = run_bsi("claim", "open", "--scope", "other/", brain=a, now=T0, env=env)
    assert failed.code in (23, 25), failed
    assert not list((a / "claims").glob("*.yml")), "a failed write left a claim file"
    assert git(a, "ls-files", "-s", env=env) == staged, "the git index was changed by a failed write"


def test_a_failed_init_leaves_the_folder_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "brain"
    root.mkdir()
    (root / "notes.md").write_text("mine\n", encoding="utf-8")

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(bootstrap.gitops, "commit_paths", full)
    with pytest.raises(OSError):
        init_brain(root)
    monkeypatch.undo()
    left = sorted(p.name for p in root.iterdir())
    assert left == ["notes.md"], f"a failed init left {left}"  # not even the repository it made
    init_brain(root)  # and it can be run again
    assert (root / "claims" / ".gitkeep").is_file()


def test_a_failed_init_in_a_repository_keeps_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "brain"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "claims").mkdir()
    (root / "claims" / "mine.txt").write_text("mine\n", encoding="utf-8")

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(bootstrap.gitops, "commit_paths", full)
    with pytest.raises(OSError):
        init_brain(root)
    assert sorted(p.name for p in root.iterdir()) == [".git", "claims"]  # what was there before stays
    assert sorted(p.name for p in (root / "claims").iterdir()) == ["mine.txt"]
