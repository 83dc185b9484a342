"""A git step that fails while sync moves HEAD itself (a clashing ID renamed, an unpushed commit taken back):
the command says so and the next one brings the work tree to HEAD (SPEC 22: old or new state, then self-healing).
"""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.sync import gitops, remote_history
from tests.bsi import run_bsi

from .faults import Faults, run_faulty
from .harness import git, make_remote, racer_env, remote_claims

NOW = "2026-11-29T10:00:00+00:00"


@pytest.mark.parametrize("step", ["cat-file", "checkout"])
def test_a_failed_step_while_renaming_a_clashing_id_is_healed_by_the_next_command(tmp_path: Path, step: str) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    env = racer_env("racer1")
    good = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    offline = run_bsi("--offline", "claim", "open", "--scope", "notes/", "--slug", "pilot", brain=b, now=NOW, env=env)
    assert offline.code == 0, offline.err
    git(b, "remote", "set-url", "origin", good)
    first = run_bsi("--sync", "claim", "open", "--scope", "wiki/", "--slug", "pilot", brain=a, now=NOW,
                    env=racer_env("racer0"))
    assert first.out.strip() == offline.out.strip()
    faults = Faults.install(tmp_path)
    failed = run_faulty(faults, faults.env(env, on=step, do="fail"), "sync", brain=b, now=NOW)
    assert "Traceback" not in failed.err
    if failed.code == 0:  # a sync that says it is done leaves the work tree as HEAD holds it
        assert git(b, "status", "--porcelain").strip() == "", failed
    healed = run_bsi("sync", brain=b, now=NOW, env=env)
    assert healed.code == 0, healed.err
    assert git(b, "status", "--porcelain").strip() == ""
    claims = sorted(p.name for p in (b / "claims").glob("*.yml"))
    assert len(claims) == 2 and offline.out.strip() + ".yml" in claims


def test_a_failed_listing_of_the_local_commits_never_drops_the_clashing_claim(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without its rename, the local claim would meet the remote's file of the same name in the rebase, and the
    # remote's side (pushed first) would replace it: an acknowledged claim gone without a word.
    _, (a, b) = make_remote(tmp_path, 2)
    env = racer_env("racer1")
    good = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    offline = run_bsi("--offline", "claim", "open", "--scope", "notes/", "--slug", "pilot", brain=b, now=NOW, env=env)
    assert offline.code == 0, offline.err
    git(b, "remote", "set-url", "origin", good)
    run_bsi("--sync", "claim", "open", "--scope", "wiki/", "--slug", "pilot", brain=a, now=NOW, env=racer_env("racer0"))
    for name, value in env.items():
        if name.startswith("GIT_"):
            monkeypatch.setenv(name, value)
    real_run_git = gitops.run_git

    def rev_list_fails(root: str | Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        if "rev-list" in args and "--reverse" in args:  # the listing of the local commits, once
            monkeypatch.setattr(gitops, "run_git", real_run_git)
            if kwargs.get("check", True):
                raise gitops.GitError("git rev-list failed: simulated")
            return subprocess.CompletedProcess(["git", *args], 128, "", "fatal: simulated\n")
        return real_run_git(root, *args, **kwargs)

    monkeypatch.setattr(gitops, "run_git", rev_list_fails)
    with contextlib.suppress(BsiError):
        Brain(b, now=NOW).remote.sync()
    monkeypatch.setattr(gitops, "run_git", real_run_git)
    run_bsi("sync", brain=b, now=NOW, env=env)
    listed = run_bsi("--json", "claim", "list", "--all", brain=b, now=NOW, env=env).json()["claims"]
    assert sorted(c["scope"] for c in listed) == ["notes/", "wiki/"]


def test_a_clashing_claim_the_rename_missed_stops_the_rebase_instead_of_losing_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Whatever made the rename miss it (a git read that failed, a bug), the rebase never settles two different
    # claims of one file name by keeping the remote's: it stops, nothing lost, and the next sync renames.
    _, (a, b) = make_remote(tmp_path, 2)
    env = racer_env("racer1")
    good = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    offline = run_bsi("--offline", "claim", "open", "--scope", "notes/", "--slug", "pilot", brain=b, now=NOW, env=env)
    git(b, "remote", "set-url", "origin", good)
    run_bsi("--sync", "claim", "open", "--scope", "wiki/", "--slug", "pilot", brain=a, now=NOW, env=racer_env("racer0"))
    for name, value in env.items():
        if name.startswith("GIT_"):
            monkeypatch.setenv(name, value)
    monkeypatch.setattr(remote_history, "local_added_claims", lambda root, branch: set())
    with pytest.raises(BsiError) as refused:
        Brain(b, now=NOW).remote.sync()
    assert offline.out.strip() in refused.value.message
    monkeypatch.undo()
    assert git(b, "status", "--porcelain").strip() == ""
    assert run_bsi("sync", brain=b, now=NOW, env=env).code == 0
    listed = run_bsi("--json", "claim", "list", "--all", brain=b, now=NOW, env=env).json()["claims"]
    assert sorted(c["scope"] for c in listed) == ["notes/", "wiki/"]


def test_a_failed_read_after_the_rebase_never_pushes_a_lost_claim_as_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # After the rebase, sync lists the claims this machine added to mark those that lost their scope. A listing
    # that fails must not read as "none": the offline claim would be pushed open beside the remote's holder.
    remote, (a, b) = make_remote(tmp_path, 2)
    env = racer_env("racer1")
    good = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    late = run_bsi("--offline", "claim", "open", "--scope", "wiki/p.md", "--slug", "late", brain=b, now=NOW, env=env)
    git(b, "remote", "set-url", "origin", good)
    run_bsi("--sync", "claim", "open", "--scope", "wiki/", "--slug", "first", brain=a, now=NOW, env=racer_env("racer0"))
    for name, value in env.items():
        if name.startswith("GIT_"):
            monkeypatch.setenv(name, value)
    real_run_git, calls = gitops.run_git, []

    def second_listing_fails(root: str | Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        if "--diff-filter=A" in args and any("...HEAD" in a for a in args):
            calls.append(args)
            if len(calls) == 2:  # the listing after the rebase
                if kwargs.get("check", True):
                    raise gitops.GitError("git diff failed: simulated")
                return subprocess.CompletedProcess(["git", *args], 128, "", "fatal: simulated\n")
        return real_run_git(root, *args, **kwargs)

    monkeypatch.setattr(gitops, "run_git", second_listing_fails)
    with contextlib.suppress(BsiError):
        Brain(b, now=NOW).remote.sync()
    monkeypatch.setattr(gitops, "run_git", real_run_git)
    statuses = {c["sess_id"]: c["status"] for c in remote_claims(remote, tmp_path)}
    assert statuses.get(late.out.strip()) != "open", statuses
    run_bsi("sync", brain=b, now=NOW, env=env)
    statuses = {c["sess_id"]: c["status"] for c in remote_claims(remote, tmp_path)}
    assert statuses[late.out.strip()] == "failed", statuses


@pytest.mark.parametrize("listing", ["ls-files", "diff"])
def test_a_failed_listing_of_uncommitted_claims_never_reads_as_none(tmp_path: Path, listing: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # A `--no-commit` claim meets the remote's claims at sync like an offline one. A listing of the work tree's
    # new claim files that fails must stop the sync, not read as "none" and leave two holders of one scope.
    _, (a, b) = make_remote(tmp_path, 2)
    env = racer_env("racer1")
    run_bsi("--sync", "claim", "open", "--scope", "wiki/", "--slug", "first", brain=a, now=NOW, env=racer_env("racer0"))
    late = run_bsi("--no-commit", "claim", "open", "--scope", "wiki/p.md", "--slug", "late", brain=b, now=NOW,
                   env=env).out.strip()
    for name, value in env.items():
        if name.startswith("GIT_"):
            monkeypatch.setenv(name, value)
    real_run_git = gitops.run_git

    def listing_fails(root: str | Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        if args[0] == listing and "claims/" in args and ("--others" in args or "--cached" in args):
            if kwargs.get("check", True):
                raise gitops.GitError(f"git {listing} failed: simulated")
            return subprocess.CompletedProcess(["git", *args], 128, "", "fatal: simulated\n")
        return real_run_git(root, *args, **kwargs)

    monkeypatch.setattr(gitops, "run_git", listing_fails)
    with pytest.raises(BsiError):
        Brain(b, now=NOW).remote.sync()
    monkeypatch.setattr(gitops, "run_git", real_run_git)
    run_bsi("sync", brain=b, now=NOW, env=env)
    shown = run_bsi("--json", "claim", "show", late, brain=b, now=NOW, env=env).json()
    assert shown["status"] == "failed", shown
