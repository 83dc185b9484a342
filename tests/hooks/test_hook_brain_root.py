"""A hook whose configured brain (`--brain`, `$BRAIN_ROOT`) is no brain still guards the brain a write lands in
(SPEC 20.2: a protocol file is denied; the brain is found from `--brain`, else `$BRAIN_ROOT`, …): it cannot decide
there, so a write into a brain fails closed, naming the folder to fix; a write outside every brain goes on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.bsi import clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import assert_allowed, assert_denied, event


def configured_hook(where: str, configured: Path, cwd: Path, payload: dict[str, object]
                    ) -> subprocess.CompletedProcess[str]:
    """`bsi hook pre-tool-use` with its brain named by `$BRAIN_ROOT` or by `--brain` after the event."""
    flags = ["--brain", str(configured)] if where == "--brain" else []
    env = clean_env(BRAIN_ROOT=str(configured)) if where == "BRAIN_ROOT" else clean_env()
    done = run_bsi("hook", "pre-tool-use", *flags, cwd=cwd, env=env, input=json.dumps(payload).encode())
    assert done.code in (0, 2) and "Traceback" not in done.err
    return subprocess.CompletedProcess(["bsi", "hook"], done.code, done.out, done.err)


@pytest.mark.parametrize("where", ["BRAIN_ROOT", "--brain"])
def test_a_write_into_a_brain_under_a_configured_brain_that_is_none_fails_closed(
        brain: Path, tmp_path: Path, where: str) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "theirs", brain=brain))
    gone = tmp_path / "moved-away"
    for target in (brain / "claims" / f"{holder}.yml", brain / "src" / "a.py"):
        payload = event(brain, "Write", str(target), session="unbound-1")
        assert_denied(configured_hook(where, gone, brain, payload), str(gone), "could not decide")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    payload = event(elsewhere, "Write", str(elsewhere / "notes.txt"), session="unbound-1")
    assert_allowed(configured_hook(where, gone, elsewhere, payload))
