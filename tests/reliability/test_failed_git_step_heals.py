"""A git step that fails while sync moves HEAD itself (a clashing ID renamed, an unpushed commit taken back):
the command says so and the next one brings the work tree to HEAD (SPEC 22: old or new state, then self-healing).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import run_bsi

from .faults import Faults, run_faulty
from .harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"


@pytest.mark.parametrize("step", ["cat-file", "checkout"])
def test_a_failed_step_while_renaming_a_clashing_id_is_healed_by_the_next_command(tmp_path: Path, step: str) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    env = racer_env("racer1")
    good = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    offline = run_bsi("--offline", "claim", "open", "--scope", "notes/", "--slug", "pilot", brain=b, now=NOW, env=env)
    assert offline.code == 0, offline.err
    git(b, "remote", "set-url", "origin", good)
    first = run_bsi("--sync", "claim", "open", "--scope", "wiki/", "--slug", "pilot", brain=a, now=NOW,
                    env=racer_env("racer0"))
    assert first.out.strip() == offline.out.strip()
    faults = Faults.install(tmp_path)
    failed = run_faulty(faults, faults.env(env, on=step, do="fail"), "sync", brain=b, now=NOW)
    assert "Traceback" not in failed.err
    if failed.code == 0:  # a sync that says it is done leaves the work tree as HEAD holds it
        assert git(b, "status", "--porcelain").strip() == "", failed
    healed = run_bsi("sync", brain=b, now=NOW, env=env)
    assert healed.code == 0, healed.err
    assert git(b, "status", "--porcelain").strip() == ""
    claims = sorted(p.name for p in (b / "claims").glob("*.yml"))
    assert len(claims) == 2 and offline.out.strip() + ".yml" in claims
