"""The facade's remote: a snapshot never touches the remote; a pull is an explicit step."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import RemoteUnreachable
from tests.bsi import ok, run_bsi
from tests.reliability.harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"


def test_snapshot_under_sync_never_fetches_and_pull_is_explicit(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    opened = ok(run_bsi("--sync", "claim", "open", "--scope", "wiki/", brain=a, now=NOW, env=racer_env("a"),
                        timeout=None))
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
    opened = ok(run_bsi("--sync", "claim", "open", "--scope", "wiki/", brain=a, now=NOW, env=racer_env("a"),
                        timeout=None))

    def listed(*flags: str) -> str:
        return ok(run_bsi(*flags, "claim", "list", brain=b, now=NOW, env=racer_env("b"), timeout=None))

    assert opened not in listed()
    assert opened in listed("--sync")
