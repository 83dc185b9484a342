"""`--now` given empty (SPEC 3, 13): a bad date on the command line, not "no --now"."""

from __future__ import annotations

from pathlib import Path

from tests.bsi import clean_env, run_bsi
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
