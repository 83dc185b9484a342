"""HEAD's commit read from the repository's files: git's answer, or None (then git is asked); and no git
process at all where no repository can be."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records import git_head
from brain_tui.core.records.closed_set import head_commit
from brain_tui.core.records.git_head import head_files, outside_git
from brain_tui.core.rules.claims import OpenRequest
from brain_tui.core.rules.write_request import WriteSession
from brain_tui.core.sync.gitops import GitError, run_git
from tests.bsi import clean_env

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, env=clean_env(identity="Test"), capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "brain" / "claims").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "brain" / "claims" / "a.yml").write_text("x: 1\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    return root


def test_loose_packed_and_detached_heads_read_as_git_reads_them(repo: Path) -> None:
    brain = repo / "brain"  # a brain in a subfolder of its repository
    assert head_commit(brain) == git(repo, "rev-parse", "HEAD")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert head_commit(brain) == git(repo, "rev-parse", "HEAD")
    (brain / "claims" / "b.yml").write_text("x: 2\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two")  # a loose ref again, newer than packed-refs
    assert head_commit(brain) == git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    assert head_commit(brain) == git(repo, "rev-parse", "HEAD")


def test_what_the_files_cannot_vouch_for_is_asked_of_git(repo: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A layout the files do not decide is git's to answer (SPEC 22: a "don't know" read as "HEAD holds nothing"
    let a lock HEAD holds go in a linked worktree); None is left for no commit, no repository, no answer."""
    assert head_commit(tmp_path / "nowhere") is None  # no repository above
    git(repo, "checkout", "-q", "-b", "empty-branch-to-be")
    git(repo, "checkout", "-q", "--orphan", "unborn")
    assert head_commit(repo) is None  # a branch with no commit yet
    git(repo, "checkout", "-q", "main")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "empty-branch-to-be")
    assert git_head.head_in_files(tmp_path / "wt") is None  # a linked worktree: the files do not say
    assert head_commit(tmp_path / "wt") == git(tmp_path / "wt", "rev-parse", "HEAD")  # git does
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    assert git_head.head_in_files(repo) is None
    assert head_commit(repo) == git(repo, "rev-parse", "HEAD")


def test_a_branch_with_no_commit_yet_is_read_without_git(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(repo, "checkout", "-q", "--orphan", "unborn")
    monkeypatch.setattr(git_head, "git_output", lambda *args, **kwargs: pytest.fail("git was asked"))
    assert head_commit(repo) is None
    git(repo, "pack-refs", "--all")  # packed-refs there, without the branch
    assert head_commit(repo) is None


def test_no_answer_from_git_is_none(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    monkeypatch.setattr(git_head, "git_output", lambda *args, **kwargs: None)
    assert head_commit(tmp_path / "wt") is None


def test_head_files_name_what_decides_head(repo: Path, tmp_path: Path) -> None:
    """The files `head_files` names are those git reads for HEAD: a change of HEAD moves one of them."""
    brain = repo / "brain"
    dot = repo / ".git"
    assert head_files(brain) == (str(brain / ".git"), str(dot / "HEAD"), str(dot / "refs" / "heads" / "main"))
    git(repo, "pack-refs", "--all")  # no loose ref: packed-refs decides (and a loose ref made later)
    assert head_files(brain) == (str(brain / ".git"), str(dot / "HEAD"), str(dot / "refs" / "heads" / "main"),
                                 str(dot / "packed-refs"))
    git(repo, "checkout", "-q", "--detach")
    assert head_files(repo) == (str(dot / "HEAD"),)
    git(repo, "checkout", "-q", "main")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    own = dot / "worktrees" / "linked"
    assert head_files(linked) == (str(linked / ".git"), str(own / "HEAD"), str(dot / "refs" / "heads" / "side"))
    assert head_files(tmp_path / "nowhere") == (str((tmp_path / "nowhere").resolve() / ".git"),)


def test_no_git_runs_where_a_commondir_file_names_another_repository(repo: Path, tmp_path: Path) -> None:
    """A `commondir` file in a `.git` folder (an agent's program may write one) makes git read another folder's
    refs, objects and config: bsi runs no git there (git is asked nothing, a write is refused)."""
    brain, dot = repo / "brain", repo / ".git"
    assert git_head.foreign_common_dir(brain) is None
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    assert git_head.foreign_common_dir(linked) is None  # a linked worktree's commondir is git's own
    assert git_head.git_output(linked, "rev-parse", "HEAD") is not None
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", "-b", "main", str(other))
    (dot / "commondir").write_text(f"{other / '.git'}\n", encoding="utf-8")
    assert git_head.foreign_common_dir(brain) == dot.resolve() / "commondir"
    assert head_files(brain) == (str(brain / ".git"), str(dot / "HEAD"), str(dot / "refs" / "heads" / "main"))
    assert git_head.git_dirs(brain) == (str(dot.resolve()),)
    assert git_head.git_output(brain, "rev-parse", "HEAD") is None
    with pytest.raises(GitError, match="commondir"):
        run_git(brain, "rev-parse", "HEAD", check=False)


def test_head_files_none_when_unsure(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / ".git" / "HEAD").write_text("ref: refs/remotes/origin/main\n", encoding="utf-8")
    assert head_files(repo) is None  # a symbolic ref that is not a branch
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (repo / ".git" / "reftable").mkdir()
    assert head_files(repo) is None
    (repo / ".git" / "reftable").rmdir()
    assert head_files(repo) is not None
    monkeypatch.setenv("GIT_COMMON_DIR", str(repo / ".git"))
    assert head_files(repo) is None


def _git_finds_a_repository(folder: Path) -> bool:
    done = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=folder, env=clean_env(drop=("GIT_*",)),
                          capture_output=True, check=False)
    return done.returncode == 0


def test_outside_git_says_what_git_says(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "plain" / "brain"
    plain.mkdir(parents=True)
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], env=clean_env(), check=True)
    (bare / "claims").mkdir()
    monkeypatch.delenv("GIT_COMMON_DIR", raising=False)
    for folder in (repo / "brain" / "claims", plain, bare / "claims"):
        assert outside_git(folder) is not _git_finds_a_repository(folder), folder
    assert [outside_git(folder) for folder in (repo / "brain", bare)] == [False, False]
    monkeypatch.setenv("GIT_COMMON_DIR", str(repo / ".git"))
    assert outside_git(plain) is False  # a variable git would follow: unsure, git is asked
def test_outside_git_only_where_git_would_find_none(repo: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "plain" / "brain"
    plain.mkdir(parents=True)
    assert git_head.outside_git(plain)
    assert subprocess.run(["git", "rev-parse", "--git-dir"], cwd=plain, env=clean_env(),
                          capture_output=True, check=False).returncode != 0  # git agrees
    assert not git_head.outside_git(repo / "brain")  # a subfolder of a work tree
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    (bare / "brain").mkdir()
    assert not git_head.outside_git(bare)  # a git directory itself
    assert not git_head.outside_git(bare / "brain")  # and below one (git's search stops there)
    (tmp_path / "plain" / ".git").write_text("gitdir: elsewhere\n", encoding="utf-8")
    assert not git_head.outside_git(plain)  # a `.git` file: git decides
    (tmp_path / "plain" / ".git").unlink()
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    assert not git_head.outside_git(plain)  # a variable names a repository


def test_a_brain_without_git_reads_and_writes_without_a_git_process(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Every snapshot of a brain outside a repository asked git for HEAD's claims/ and every write asked
    git whether a rebase was under way: a failing git process each time."""
    root = tmp_path / "brain"
    for folder in ("claims", "signals", "locks"):
        (root / folder).mkdir(parents=True)
    brain = Brain(root, clock=lambda: NOW, commit=False, instance="t@test")
    started: list[list[str]] = []
    real_init = subprocess.Popen.__init__

    def counting(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        started.append(list(args) if isinstance(args, (list, tuple)) else [str(args)])
        real_init(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", counting)
    sess = brain.open_claim(OpenRequest(scope=parse_scope("a/"), ttl=parse_duration("1h"), instance="t@test"))
    assert brain.snapshot().claim(sess) is not None
    assert brain.decide_write("a/x.md", WriteSession(claims=(sess,))).allowed
    assert [args for args in started if args and Path(args[0]).name == "git"] == []
