"""`bsi launch` starts an agent only for a claim that may work now (SPEC 20.5, 6.4): effectively open.

A claim whose TTL ran out is stale for every rule before the watchdog writes it down, and a claim under a paused
ancestor is held by that pause: neither gets an agent, from a human's terminal or an agent's, dry run included.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi
from tests.cli.test_launch import opened, write_config
from tests.tmux import no_tmux_env

LATER = "2026-11-29T12:30:00Z"  # past the default 2 h TTL of a claim opened at tests.bsi.NOW


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_claim_whose_ttl_ran_out_is_not_launched(brain: Path, dry_run: bool) -> None:
    write_config(brain, ["echo", "launched {sess_id}"], tmux=False)
    sess = opened(brain, "--scope", "wiki/")
    run = run_bsi("launch", sess, *(["--dry-run"] if dry_run else []), brain=brain, now=LATER, env=no_tmux_env(),
                  process=not dry_run)  # a launch that goes ahead replaces the process
    assert run.code == 12, run
    assert "stale" in run.err and "launched" not in run.out
    assert run.err.count("\n") == 1 and "Traceback" not in run.err


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_claim_under_a_paused_ancestor_is_not_launched(brain: Path, dry_run: bool) -> None:
    write_config(brain, ["echo", "launched {sess_id}"], tmux=False)
    pilot = opened(brain, "--scope", "wiki/", "--type", "pilote")
    sat = opened(brain, "--scope", "wiki/a.md", "--parent", pilot, "--satellite-type", "code")
    ok(run_bsi("gate", "pause", pilot, "hold", brain=brain))
    run = run_bsi("launch", sat, *(["--dry-run"] if dry_run else []), brain=brain, env=no_tmux_env(),
                  process=not dry_run)
    assert run.code == 12, run
    assert "paused" in run.err and "launched" not in run.out
    assert run.err.count("\n") == 1 and "Traceback" not in run.err
