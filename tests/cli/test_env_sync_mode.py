"""`bsi env` gives the sync mode, as the cockpit's environment pane does (README: "the same reading on the command
line"): the text has a `sync` line, `--json` a `sync` object with the mode, the remote and the pending changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import git, run_bsi


@pytest.mark.parametrize("mode", ["auto", "manual", "off"])
def test_env_names_the_sync_mode(brain: Path, mode: str) -> None:
    (brain / "brain-compose.yml").write_text(f"brain_name: b\nsync: {mode}\n", encoding="utf-8")
    git(brain, "add", "brain-compose.yml")
    git(brain, "commit", "-qm", "compose")
    run = run_bsi("env", "--timeout", "5", brain=brain)
    assert run.code == 0, run
    [line] = [row for row in run.out.splitlines() if row.startswith("sync ")]
    assert mode in line.split() and "no remote" in line, line
    doc = json.loads(run_bsi("--json", "env", "--timeout", "5", brain=brain).out)
    assert doc["sync"]["mode"] == mode and doc["sync"]["has_remote"] is False
    assert "pending_since" in doc["sync"] and "last_sync" in doc["sync"]


def test_env_says_the_fetch_interval_the_configuration_sets(brain: Path) -> None:
    (brain / "brain-compose.yml").write_text("brain_name: b\nsync: auto\nfetch_interval: 45\n", encoding="utf-8")
    git(brain, "add", "brain-compose.yml")
    git(brain, "commit", "-qm", "compose")
    run = run_bsi("env", "--timeout", "5", brain=brain)
    [line] = [row for row in run.out.splitlines() if row.startswith("sync ")]
    assert "(fetch every 45s)" in line, line
