"""A git step that fails while sync moves HEAD itself (a clashing ID renamed, an unpushed commit taken back):
the command says so and the next one brings the work tree to HEAD (SPEC 22: old or new state, then self-healing).
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
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
ENV = racer_env("racer1")


@dataclass
class Race:
    """Clone `b` opened `late` while its remote was gone; then clone `a` opened `first` through the remote."""

    remote: Path
    a: Path
    b: Path
    late: str
    first: str


def race(tmp_path: Path, late: tuple[str, str], first: tuple[str, str], *, mode: str = "--offline") -> Race:
    """The race of `Race`: `late` and `first` are (scope, slug); `mode` how `b` opens (`--no-commit`: no remote
    is needed to stay behind)."""
    remote, (a, b) = make_remote(tmp_path, 2)
    good = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    opened = run_bsi(mode, "claim", "open", "--scope", late[0], "--slug", late[1], brain=b, now=NOW, env=ENV)
    assert opened.code == 0, opened.err
    git(b, "remote", "set-url", "origin", good)
    held = run_bsi("--sync", "claim", "open", "--scope", first[0], "--slug", first[1], brain=a, now=NOW,
                   env=racer_env("racer0"))
    return Race(remote, a, b, opened.out.strip(), held.out.strip())


def fail_git(monkeypatch: pytest.MonkeyPatch, fails: Callable[[tuple[str, ...]], bool], *, once: bool = False) -> None:
    """Run this process's git as clone `b`'s racer, with the calls `fails` picks failing (`once`: the first only)."""
    for name, value in ENV.items():
        if name.startswith("GIT_"):
            monkeypatch.setenv(name, value)
    real_run_git = gitops.run_git

    def run_git(root: str | Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        if not fails(args):
            return real_run_git(root, *args, **kwargs)
        if once:
            monkeypatch.setattr(gitops, "run_git", real_run_git)
        if kwargs.get("check", True):
            raise gitops.GitError(f"git {args[0]} failed: simulated")
        return subprocess.CompletedProcess(["git", *args], 128, "", "fatal: simulated\n")

    monkeypatch.setattr(gitops, "run_git", run_git)


def scopes(b: Path) -> list[str]:
    """The scopes of every claim clone `b` lists."""
    listed = run_bsi("--json", "claim", "list", "--all", brain=b, now=NOW, env=ENV).json()["claims"]
    return sorted(c["scope"] for c in listed)


@pytest.mark.parametrize("step", ["cat-file", "checkout"])
def test_a_failed_step_while_renaming_a_clashing_id_is_healed_by_the_next_command(tmp_path: Path, step: str) -> None:
    run = race(tmp_path, ("notes/", "pilot"), ("wiki/", "pilot"))
    assert run.first == run.late
    faults = Faults.install(tmp_path)
    failed = run_faulty(faults, faults.env(ENV, on=step, do="fail"), "sync", brain=run.b, now=NOW)
    assert "Traceback" not in failed.err
    if failed.code == 0:  # a sync that says it is done leaves the work tree as HEAD holds it
        assert git(run.b, "status", "--porcelain").strip() == "", failed
    healed = run_bsi("sync", brain=run.b, now=NOW, env=ENV)
    assert healed.code == 0, healed.err
    assert git(run.b, "status", "--porcelain").strip() == ""
    claims = sorted(p.name for p in (run.b / "claims").glob("*.yml"))
    assert len(claims) == 2 and run.late + ".yml" in claims


def test_a_failed_listing_of_the_local_commits_never_drops_the_clashing_claim(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without its rename, the local claim would meet the remote's file of the same name in the rebase, and the
    # remote's side (pushed first) would replace it: an acknowledged claim gone without a word.
    run = race(tmp_path, ("notes/", "pilot"), ("wiki/", "pilot"))
    fail_git(monkeypatch, lambda args: "rev-list" in args and "--reverse" in args, once=True)
    with contextlib.suppress(BsiError):
        Brain(run.b, now=NOW).remote.sync()
    monkeypatch.undo()
    run_bsi("sync", brain=run.b, now=NOW, env=ENV)
    assert scopes(run.b) == ["notes/", "wiki/"]


def test_a_clashing_claim_the_rename_missed_stops_the_rebase_instead_of_losing_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Whatever made the rename miss it (a git read that failed, a bug), the rebase never settles two different
    # claims of one file name by keeping the remote's: it stops, nothing lost, and the next sync renames.
    run = race(tmp_path, ("notes/", "pilot"), ("wiki/", "pilot"))
    fail_git(monkeypatch, lambda args: False)
    monkeypatch.setattr(remote_history, "local_added_claims", lambda root, branch: set())
    with pytest.raises(BsiError) as refused:
        Brain(run.b, now=NOW).remote.sync()
    assert run.late in refused.value.message
    monkeypatch.undo()
    assert git(run.b, "status", "--porcelain").strip() == ""
    assert run_bsi("sync", brain=run.b, now=NOW, env=ENV).code == 0
    assert scopes(run.b) == ["notes/", "wiki/"]


def test_a_failed_read_after_the_rebase_never_pushes_a_lost_claim_as_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # After the rebase, sync lists the claims this machine added to mark those that lost their scope. A listing
    # that fails must not read as "none": the offline claim would be pushed open beside the remote's holder.
    run = race(tmp_path, ("wiki/p.md", "late"), ("wiki/", "first"))
    calls: list[tuple[str, ...]] = []

    def second_listing(args: tuple[str, ...]) -> bool:  # the listing after the rebase
        if "--diff-filter=A" in args and any("...HEAD" in a for a in args):
            calls.append(args)
            return len(calls) == 2
        return False

    fail_git(monkeypatch, second_listing)
    with contextlib.suppress(BsiError):
        Brain(run.b, now=NOW).remote.sync()
    monkeypatch.undo()
    statuses = {c["sess_id"]: c["status"] for c in remote_claims(run.remote, tmp_path)}
    assert statuses.get(run.late) != "open", statuses
    run_bsi("sync", brain=run.b, now=NOW, env=ENV)
    statuses = {c["sess_id"]: c["status"] for c in remote_claims(run.remote, tmp_path)}
    assert statuses[run.late] == "failed", statuses


@pytest.mark.parametrize("listing", ["ls-files", "diff"])
def test_a_failed_listing_of_uncommitted_claims_never_reads_as_none(tmp_path: Path, listing: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # A `--no-commit` claim meets the remote's claims at sync like an offline one. A listing of the work tree's
    # new claim files that fails must stop the sync, not read as "none" and leave two holders of one scope.
    run = race(tmp_path, ("wiki/p.md", "late"), ("wiki/", "first"), mode="--no-commit")
    fail_git(monkeypatch, lambda args: args[0] == listing and "claims/" in args
             and ("--others" in args or "--cached" in args))
    with pytest.raises(BsiError):
        Brain(run.b, now=NOW).remote.sync()
    monkeypatch.undo()
    run_bsi("sync", brain=run.b, now=NOW, env=ENV)
    shown = run_bsi("--json", "claim", "show", run.late, brain=run.b, now=NOW, env=ENV).json()
    assert shown["status"] == "failed", shown
