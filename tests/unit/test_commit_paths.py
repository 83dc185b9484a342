"""The commit of a write (issue 18): git's plumbing over a copy of the index, the same commit `git commit --only` made.

Cost: no git step lstats the whole work tree (a write's cost follows the paths it commits, not the
files git tracks); the git index ends up matching HEAD (`git status` clean). Sameness: the commit's
hash — tree, parent, author, committer, dates, message — and its reflog line are the porcelain's;
what else is staged stays staged and out of the commit; no hook of the repository runs.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.paths.layout import STATE_DIR
from brain_tui.core.records import yamlio
from brain_tui.core.records.journal import begin
from brain_tui.core.sync import commits
from tests.bsi import clean_env, git, ok, run_bsi

WHEN = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
ENV = clean_env(identity="Ada")


def _repo(root: Path, files: int = 3) -> Path:
    """A repository with `files` tracked notes, a claim and BRAIN-INDEX.md, in a subfolder `brain/`."""
    brain = root / "brain"
    (brain / "claims").mkdir(parents=True)
    (brain / "notes").mkdir()
    for n in range(files):
        (brain / "notes" / f"n{n}.md").write_text(f"{n}\n")
    (brain / "claims" / "old.yml").write_text("status: open\n")
    (brain / "BRAIN-INDEX.md").write_text("index\n")
    git(root, "init", "-q", "-b", "main", env=ENV)
    git(root, "add", "-A", env=ENV)
    git(root, "commit", "-q", "-m", "seed", env=ENV)
    return brain


def _change(brain: Path) -> list[str]:
    (brain / "claims" / "new.yml").write_text("status: open\n")
    (brain / "BRAIN-INDEX.md").write_text("index 2\n")
    (brain / "claims" / "old.yml").unlink()
    return ["claims/new.yml", "BRAIN-INDEX.md", "claims/old.yml", "claims/never-there.yml"]


def _commit(monkeypatch: pytest.MonkeyPatch, brain: Path, paths: list[str], message: str,
            how: Any = commits.commit_paths) -> str | None:
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(key)
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    return how(brain, paths, message, WHEN)


def test_the_plumbing_commit_is_the_porcelains_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _repo(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b", symlinks=True)
    slow = tmp_path / "b" / "brain"
    message = "bsi: open claim new  \n\n\n  body line\t\n\n"
    short = _commit(monkeypatch, fast, _change(fast), message)
    _commit(monkeypatch, slow, _change(slow), message, how=commits.commit_porcelain)
    assert git(fast, "rev-parse", "HEAD") == git(slow, "rev-parse", "HEAD"), git(fast, "cat-file", "-p", "HEAD")
    assert short == git(fast, "rev-parse", "--short", "HEAD").strip()
    assert git(fast, "reflog", "-1", "--format=%gs") == git(slow, "reflog", "-1", "--format=%gs")
    assert git(fast, "status", "--porcelain") == "" == git(slow, "status", "--porcelain")


def test_a_folder_or_a_name_beyond_ascii_is_committed_by_the_porcelain(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    brain = _repo(tmp_path)
    (brain / "locks").mkdir()
    (brain / "locks" / "caf\u00e9.md.lock").write_text("held\n")
    (brain / "notes" / "n0.md").write_text("changed\n")
    _commit(monkeypatch, brain, ["locks/caf\u00e9.md.lock", "notes"], "bsi: lock acquire caf\u00e9.md")
    assert git(brain, "-c", "core.quotepath=off", "show", "--name-only", "--format=%s", "HEAD").split("\n")[:4] == [
        "bsi: lock acquire caf\u00e9.md", "", "brain/locks/caf\u00e9.md.lock", "brain/notes/n0.md"]
    assert git(brain, "status", "--porcelain") == ""


def test_nothing_to_commit_makes_no_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    brain = _repo(tmp_path)
    before = git(brain, "rev-parse", "HEAD")
    (brain / "BRAIN-INDEX.md").write_text("index\n")  # rewritten, same bytes
    assert _commit(monkeypatch, brain, ["BRAIN-INDEX.md", "claims/gone.yml"], "bsi: update") is None
    assert git(brain, "rev-parse", "HEAD") == before
    assert not [p for p in Path(git(brain, "rev-parse", "--absolute-git-dir").strip()).iterdir()
                if p.name.startswith("bsi-index-")]


def test_what_else_is_staged_stays_staged_and_out_of_the_commit(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    brain = _repo(tmp_path)
    (brain / "notes" / "n0.md").write_text("staged by someone else\n")
    git(brain, "add", "notes/n0.md", env=ENV)
    _commit(monkeypatch, brain, _change(brain), "bsi: open claim new")
    assert sorted(git(brain, "show", "--name-only", "--no-renames", "--format=", "HEAD").split()) == [
        "brain/BRAIN-INDEX.md", "brain/claims/new.yml", "brain/claims/old.yml"]
    assert git(brain, "status", "--porcelain").splitlines() == ["M  brain/notes/n0.md"]


def test_an_index_changed_while_the_commit_is_built_keeps_that_change(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Another git writes the index after it was copied: the copy is not installed over it."""
    brain = _repo(tmp_path)
    real_tree = commits._tree

    def tree_then_someone_stages(repo: Any, env: dict[str, str], why: str) -> str:
        found = real_tree(repo, env, why)
        if why == "commit":
            (brain / "notes" / "n1.md").write_text("staged meanwhile\n")
            git(brain, "add", "notes/n1.md", env=ENV)
        return found

    monkeypatch.setattr(commits, "_tree", tree_then_someone_stages)
    _commit(monkeypatch, brain, _change(brain), "bsi: open claim new")
    assert "brain/notes/n1.md" not in git(brain, "show", "--name-only", "--no-renames", "--format=", "HEAD")
    assert git(brain, "status", "--porcelain").splitlines() == ["M  brain/notes/n1.md"]


@pytest.mark.parametrize("how", ["plumbing", "porcelain"])
def test_no_hook_of_the_repository_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    # `.git` is writable from an agent's sandboxed shell and bsi runs outside the sandbox: a hook planted there
    # would run as whoever runs bsi (the MCP server, the pilot's cockpit) and could rewrite the claim files
    brain = _repo(tmp_path / "repo")
    for name in ("post-commit", "reference-transaction", "pre-commit", "prepare-commit-msg"):
        hook = tmp_path / "repo" / ".git" / "hooks" / name
        hook.write_text(f"#!/bin/sh\necho {name} >> {tmp_path / 'hook-ran'}\n")
        hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    _commit(monkeypatch, brain, _change(brain), "bsi: open claim new",
            **({} if how == "plumbing" else {"how": commits.commit_porcelain}))
    assert not (tmp_path / "hook-ran").exists()
    assert "claims/new.yml" in git(brain, "show", "--name-only", "--format=", "HEAD")


def test_an_index_copy_left_by_a_killed_write_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    brain = _repo(tmp_path)
    gdir = tmp_path / ".git"
    dead = os.fork()
    if dead == 0:  # a process that ends at once: its pid names a copy nobody writes
        os._exit(0)
    os.waitpid(dead, 0)
    shutil.copyfile(gdir / "index", gdir / f"bsi-index-{dead}")
    _commit(monkeypatch, brain, _change(brain), "bsi: open claim new")
    assert not [p.name for p in gdir.iterdir() if p.name.startswith("bsi-index-")]


def _lstats(trace: Path) -> int:
    """The files git lstat'ed to refresh an index, summed over every git process of the trace."""
    total = 0
    for line in trace.read_text().splitlines():
        if "refresh/sum_lstat:" in line:
            total += int(line.rsplit("refresh/sum_lstat:", 1)[1].strip())
    return total


def test_a_write_never_refreshes_the_whole_index(brain: Path, tmp_path: Path) -> None:
    """Failed on the old commit (`git commit --only` lstats every tracked file: 300 here)."""
    (brain / "notes").mkdir()
    for n in range(300):
        (brain / "notes" / f"n{n}.md").write_text(f"{n}\n")
    git(brain, "add", "notes")
    git(brain, "commit", "-q", "-m", "notes")
    trace = tmp_path / "trace"
    env = clean_env(GIT_TRACE2_PERF=str(trace))
    sess = ok(run_bsi("claim", "open", "--scope", "notes/", "--story", "x", brain=brain, env=env))
    ok(run_bsi("claim", "close", sess, "--status", "ok", brain=brain, env=env))
    assert _lstats(trace) <= 8, f"git lstat'ed {_lstats(trace)} files for two writes of two files each"
    assert git(brain, "status", "--porcelain") == ""
    changed = git(brain, "diff-tree", "-r", "--name-only", "--no-commit-id", "HEAD~1", "HEAD").split()
    assert changed == ["BRAIN-INDEX.md", f"claims/{sess}.yml"]


def test_a_plain_write_does_not_list_the_claims_folder(brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The temp-file sweep lists the data folders only after a killed write (failed on the old write path)."""
    swept: list[list[str]] = []
    real = yamlio.sweep_temp_files

    def recorded(folders: list[Path], older_than: float = 0.0) -> list[Path]:
        swept.append([folder.name for folder in folders])
        return real(folders, older_than)

    monkeypatch.setattr(yamlio, "sweep_temp_files", recorded)
    ok(run_bsi("claim", "open", "--scope", "a/", brain=brain))
    assert swept and all("claims" not in names for names in swept), swept
    swept.clear()
    begin(brain, ["claims/killed.yml"], "bsi: open claim killed", git=True)  # a write killed mid-way
    (brain / "claims" / f"{yamlio.TEMP_MARK}killed.yml.1.ab").write_text("half")
    ok(run_bsi("claim", "open", "--scope", "b/", brain=brain))
    assert any("claims" in names for names in swept), swept
    assert not list((brain / "claims").glob(f"{yamlio.TEMP_MARK}*"))
    assert not (brain / STATE_DIR / "journal" / "manifest.json").exists()
    assert Brain(brain).snapshot().claims


def test_a_brain_at_the_top_of_its_repository_commits_with_the_plumbing(brain: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The porcelain is the exception: a plain write runs neither `git add` nor `git commit`."""
    ran: list[str] = []
    real = commits.run_git

    def recorded(root: Any, *args: str, **kwargs: Any) -> Any:
        ran.append(next(a for a in args if not a.startswith("-") and "=" not in a))
        return real(root, *args, **kwargs)

    monkeypatch.setattr(commits, "run_git", recorded)
    ok(run_bsi("claim", "open", "--scope", "a/", brain=brain))
    assert "commit-tree" in ran and "update-ref" in ran
    assert not {"add", "commit", "diff", "status"} & set(ran), ran


def test_a_write_removes_the_temp_files_a_killed_reader_left_in_the_state_folder(brain: Path) -> None:
    """A read killed while it stored the closed set leaves `.brain/.bsi-tmp-…<pid>`: the next write removes it
    (failed before: only the data folders and the top were swept, and the kill -9 harness found one), and a
    temp file whose writer still runs is left alone."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()
    state = brain / STATE_DIR
    state.mkdir(exist_ok=True)
    stray = [state / f"{yamlio.TEMP_MARK}closed-set-claims.json.{dead}",
             state / f"{yamlio.TEMP_MARK}hook-index.json.{dead}.0123abcd"]
    live = state / f"{yamlio.TEMP_MARK}closed-set-claims.json.{os.getppid()}"
    for path in [*stray, live]:
        path.write_text("half")
    ok(run_bsi("claim", "open", "--scope", "a/", brain=brain))
    assert not [path for path in stray if path.exists()]
    assert live.exists()


def test_an_edit_racily_clean_against_the_index_stays_visible_after_a_plumbing_commit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git trusts an entry's stat only when it is older than the index file: the copy must keep that age."""
    brain = _repo(tmp_path)
    note = brain / "notes" / "n0.md"
    index = tmp_path / ".git" / "index"
    moment = (os.stat(index).st_mtime_ns // 10**9 - 3) * 10**9  # a whole second, before the copy's own
    os.utime(note, ns=(moment, moment))
    git(tmp_path, "update-index", "--add", "brain/notes/n0.md", env=ENV)  # the entry now carries `moment`
    os.utime(index, ns=(moment, moment))  # ... and is racily clean: as old as the index file
    note.write_text("9\n")  # same size, same second: only the content tells
    os.utime(note, ns=(moment, moment))
    (brain / "claims" / "new.yml").write_text("status: open\n")
    _commit(monkeypatch, brain, ["claims/new.yml"], "bsi: open claim new")
    assert "brain/notes/n0.md" in git(tmp_path, "diff", "HEAD", "--name-only", env=ENV)


def test_a_write_whose_index_git_cannot_read_begins_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal notes each path's index entry before a write, to put it back on a roll-back. A git that cannot
    run then (a bad line in its config) must refuse the write, never read as "the index holds none of them": the
    roll-back would then remove the brain's claims from the index, and a human's next `git commit -a` from HEAD."""
    from brain_tui.core.sync.gitops import GitError

    brain = _repo(tmp_path)
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(key)
    config = tmp_path / ".git" / "config"
    good = config.read_text()
    config.write_text(good + "[broken\n")
    with pytest.raises(GitError):
        begin(brain, ["claims/old.yml", "BRAIN-INDEX.md"], "bsi: update", True)
    assert not (brain / STATE_DIR / "journal").exists()
    config.write_text(good)
    assert git(tmp_path, "status", "--porcelain", env=ENV) == ""
