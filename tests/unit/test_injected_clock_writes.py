"""What a write dates reads the clock the command was given (SPEC 3): `--now` as `$BRAIN_NOW`, never the machine's.

`bsi --now T init` dates the brain's first commit at T, as `BRAIN_NOW=T bsi init` does (and refuses a T that does not
parse, as every command does); a synced write whose push
went unanswered records the local change as pending since T (`.brain/sync.json`, shown by `bsi env` and the
cockpit), as a sync records its time at T.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import RemoteUnreachable
from brain_tui.core.sync import remote
from tests.bsi import NOW, clean_env, git, ok, run_bsi
from tests.reliability.harness import make_remote

AT = "2026-11-29T10:00:00+00:00"  # NOW, as git prints it


@pytest.mark.parametrize("spelling", ["--now", "BRAIN_NOW"])
def test_init_dates_its_commit_at_the_clock_given(tmp_path: Path, spelling: str) -> None:
    root = tmp_path / "brain"
    env = clean_env(identity="Test", **({"BRAIN_NOW": NOW} if spelling == "BRAIN_NOW" else {}))
    ok(run_bsi("init", str(root), now=NOW if spelling == "--now" else None, env=env))
    assert git(root, "log", "-1", "--format=%aI %cI").split() == [AT, AT]


def test_init_refuses_a_now_that_does_not_parse(tmp_path: Path) -> None:
    """As every other command does: exit 65, and no repository is left behind."""
    root = tmp_path / "brain"
    proc = run_bsi("init", str(root), now="garbage", env=clean_env(identity="Test"))
    assert proc.code == 65 and "--now" in proc.err, proc
    assert not (root / ".git").exists() and not (root / "claims").exists()


def _unanswered(root: Path, branch: str) -> None:
    raise remote.PushUnanswered("git push: no answer within 30 s")


def test_an_unanswered_push_is_pending_since_the_brains_clock(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    _, (clone,) = make_remote(tmp_path, 1)
    sess = ok(run_bsi("--sync", "claim", "open", "--scope", "wiki/", "--story", "x", brain=clone, now=NOW))
    monkeypatch.setattr(remote, "push", _unanswered)
    monkeypatch.setattr(remote, "landed", lambda root, branch: None)
    with pytest.raises(RemoteUnreachable):
        Brain(clone, now=NOW, sync="sync").signals.send("human:me", sess, "INFO", "hello")
    state = json.loads((clone / ".brain" / "sync.json").read_text())
    assert state.get("pending_since") == AT, state
