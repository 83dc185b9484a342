"""The facade's remote: a snapshot never touches the remote; a pull is an explicit step."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import RemoteUnreachable
from tests.reliability.harness import BSI, env_for, git, make_remote

NOW = "2026-11-29T10:00:00+00:00"


def test_snapshot_under_sync_never_fetches_and_pull_is_explicit(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    opened = subprocess.run([*BSI, "--brain", str(a), "--now", NOW, "--sync", "claim", "open", "--scope", "wiki/"],
                            capture_output=True, text=True, env=env_for("a"), check=True).stdout.strip()
    brain = Brain(b, now=NOW, sync="sync")
    head = git(b, "rev-parse", "HEAD")
    assert brain.snapshot().claim(opened) is None
    assert git(b, "rev-parse", "HEAD") == head
    report = brain.pull()
    assert report.fetched and brain.snapshot().claim(opened) is not None
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    assert brain.snapshot().claim(opened) is not None  # still a pure read, remote gone or not
    with pytest.raises(RemoteUnreachable):
        brain.pull()


def test_reads_under_sync_pull_first_through_bsi(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    opened = subprocess.run([*BSI, "--brain", str(a), "--now", NOW, "--sync", "claim", "open", "--scope", "wiki/"],
                            capture_output=True, text=True, env=env_for("a"), check=True).stdout.strip()

    def listed(*flags: str) -> str:
        return subprocess.run([*BSI, "--brain", str(b), "--now", NOW, *flags, "claim", "list"],
                              capture_output=True, text=True, env=env_for("b"), check=True).stdout

    assert opened not in listed()
    assert opened in listed("--sync")
