"""`--now` given empty (SPEC 3, 13): a bad date on the command line, not "no --now"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import clean_env, git, head, ok, run_bsi
from tests.conftest import tree_bytes


def test_empty_now_is_refused_not_replaced_by_the_clock(brain: Path) -> None:
    opened = run_bsi("claim", "open", "--scope", "a/", brain=brain)
    assert opened.code == 0, opened.err
    files = tree_bytes(brain)
    # Four hours later by $BRAIN_NOW: an ignored `--now ''` would let the watchdog mark the claim stale.
    run = run_bsi("--now", "", "watchdog", brain=brain, now=None, env=clean_env(BRAIN_NOW="2026-11-29T14:00:00Z"))
    assert run.code == 65 and run.out == "" and run.err.count("\n") == 1 and "--now" in run.err, run
    assert tree_bytes(brain) == files


def test_empty_brain_now_still_means_the_system_clock(brain: Path) -> None:
    run = run_bsi("claim", "list", brain=brain, now=None, env=clean_env(BRAIN_NOW=""))
    assert run.code == 0, run.err


def test_a_bad_brain_now_is_named_as_brain_now_not_as_the_flag(brain: Path) -> None:
    run = run_bsi("claim", "list", brain=brain, now=None, env=clean_env(BRAIN_NOW="tomorrow"))
    assert run.code == 65 and run.err.count("\n") == 1 and "BRAIN_NOW" in run.err and "--now" not in run.err, run


WRITES_AT = [(args, now) for args in (("claim", "open", "--scope", "b/"),
                                      ("signal", "send", "--to", "human:pilot", "--type", "INFO", "hi"))
             for now in ("2100-01-01T00:00:00Z", "2500-06-01T12:00:00+02:00", "1969-12-31T23:30:00-01:00",
                         "1900-01-01T00:00:00Z")] + [(("watchdog",), "2100-01-01T00:00:00Z")]  # it marks a/ stale


@pytest.mark.parametrize(("args", "now"), WRITES_AT, ids=[f"{' '.join(a[:2])} {n}" for a, n in WRITES_AT])
def test_a_write_at_a_time_git_cannot_date_is_a_bad_date_not_a_failed_commit(
        brain: Path, now: str, args: tuple[str, ...]) -> None:
    """SPEC 13: a bad date on the command line is 65, one line, nothing written. git dates a commit from 1970 to
    2099 only: a write at a `--now` outside (which reads accept, years 1900 to 8999) was 23 "git commit failed:
    invalid date format", after its files had been written and put back."""
    ok(run_bsi("claim", "open", "--scope", "a/", "--ttl", "1h", brain=brain))
    before, files = head(brain), tree_bytes(brain)
    run = run_bsi(*args, brain=brain, now=now)
    assert run.code == 65 and run.out == "" and run.err.count("\n") == 1, run
    assert "--now" in run.err and "1970" in run.err and "2099" in run.err, run.err
    assert head(brain) == before and tree_bytes(brain) == files and git(brain, "status", "--porcelain") == ""
    assert run_bsi("claim", "list", brain=brain, now=now).code == 0  # a read at that time is still answered


def test_a_write_at_a_time_git_cannot_date_is_kept_with_no_commit(brain: Path) -> None:
    """--no-commit makes no commit: git's dates do not limit it."""
    ok(run_bsi("--no-commit", "claim", "open", "--scope", "b/", brain=brain, now="2100-01-01T00:00:00Z"))


@pytest.mark.parametrize("now", ["2100-01-01T00:00:00Z", "1970-01-01T10:00:00Z"])  # the demo's history: 26 h
def test_a_demo_at_a_time_git_cannot_date_writes_nothing(tmp_path: Path, now: str) -> None:
    """The demo's commits span the 26 hours before `--now`: refused before the folder is made, not left half-built
    (a second `bsi demo` there said "already a brain")."""
    target = tmp_path / "demo"
    run = run_bsi("demo", str(target), now=now, cwd=tmp_path)
    assert run.code == 65 and run.err.count("\n") == 1 and "2099" in run.err, run
    assert not target.exists()
