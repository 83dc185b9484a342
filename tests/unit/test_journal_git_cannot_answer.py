"""A write killed after its commit landed is kept, never rolled back, even when git cannot answer at the next
command (`records.journal.Journal.landed`): a git that cannot run must not read as "the commit did not land"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from brain_tui.core.records.journal import begin, recover
from brain_tui.core.sync.gitops import GitError
from tests.bsi import clean_env, git

ENV = clean_env(identity="Ada")


def test_a_landed_write_is_not_rolled_back_while_git_cannot_run(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(key)
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    (tmp_path / "claims").mkdir()
    claim = tmp_path / "claims" / "a.yml"
    claim.write_text("status: open\n")
    git(tmp_path, "init", "-q", "-b", "main", env=ENV)
    git(tmp_path, "add", "-A", env=ENV)
    git(tmp_path, "commit", "-q", "-m", "seed", env=ENV)

    begin(tmp_path, ["claims/a.yml"], "bsi: gate PAUSED a", True)  # the write's journal entry
    claim.write_text("status: paused\n")
    git(tmp_path, "commit", "-q", "-am", "bsi: gate PAUSED a", env=ENV)  # its commit lands; a kill comes next

    config = tmp_path / ".git" / "config"
    good = config.read_text()
    config.write_text(good + "[broken\n")  # git cannot run at the next command
    with pytest.raises(GitError):
        recover(tmp_path)
    assert claim.read_text() == "status: paused\n"  # what HEAD holds stays in the work tree

    config.write_text(good)
    assert recover(tmp_path) == "kept"
    assert claim.read_text() == "status: paused\n"
    assert git(tmp_path, "status", "--porcelain", env=ENV) == ""
