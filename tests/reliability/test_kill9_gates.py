"""kill -9 at every git step of a synced human decision (gate approve, gate pause): the decision is in force
whole or not at all, on the clone and on the remote, and the next command recovers by itself (SPEC 6.3, 22).

After each kill, `bsi sync` on the clone must exit 0, leave no uncommitted protocol file and the clone at the
remote's tip; the gated claim is either still `waiting_human` or `open` with the human's APPROVED recorded; a
pause is either on the whole tree (pilot and satellite) or on none of it; preflight agrees with the status.
CI profile: the steps around the commit and the push; `--long-profile`: every git step, before and after.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import Run, git, ok, run_bsi

from .faults import Faults, run_faulty
from .harness import claim_shown, make_remote, racer_env

NOW = "2026-11-29T09:00:00Z"
SHORT_STEPS: list[int | str] = ["update-index", "update-ref", "push"]


def _bsi(clone: Path, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=NOW, env=racer_env(clone.name), timeout=120)


def _tree(clone: Path, n: int, gated: bool) -> tuple[str, str]:
    pilot = ok(_bsi(clone, "--sync", "claim", "open", "--scope", f"p{n}/", "--type", "pilote", "--slug", f"p{n}"))
    sat = ok(_bsi(clone, "--sync", "claim", "open", "--scope", f"p{n}/a.md", "--parent", pilot,
                  "--satellite-type", "code", "--slug", f"s{n}"))
    if gated:
        ok(_bsi(clone, "--sync", "gate", "request", sat, "deploy ok?"))
    return pilot, sat



def _check(clone: Path, remote: Path, label: str) -> None:
    synced = _bsi(clone, "sync")
    assert synced.code == 0, f"{label}: the next command did not recover by itself: {synced}"
    dirty = git(clone, "status", "--porcelain", "--untracked-files=all", "--", "claims", "signals", "BRAIN-INDEX.md",
                env=racer_env("checker"))
    assert dirty == "", f"{label}: uncommitted protocol files after recovery:\n{dirty}"
    assert git(clone, "rev-parse", "HEAD", env=racer_env("checker")) == git(
        remote, "rev-parse", "main", env=racer_env("checker")), f"{label}: clone and remote differ"


def _steps(faults: Faults, clone: Path, verb: str, long_profile: bool) -> list[int | str]:
    if not long_profile:
        return SHORT_STEPS
    pilot, sat = _tree(clone, 999 if verb == "approve" else 998, verb == "approve")
    args = ["gate", "approve", sat, "go"] if verb == "approve" else ["gate", "pause", pilot, "hold"]
    run_faulty(faults, faults.env(racer_env(clone.name)), "--sync", *args, brain=clone, now=NOW)
    return list(range(1, len(faults.steps()) + 1))


def _shown_at(clone: Path, sess: str) -> dict:
    return claim_shown(clone, sess, NOW)


@pytest.mark.parametrize("verb", ["approve", "pause"])
def test_kill9_during_a_synced_human_decision_leaves_it_whole_or_absent(
        tmp_path: Path, long_profile: bool, verb: str) -> None:
    remote, (clone, other) = make_remote(tmp_path, 2)
    faults = Faults.install(tmp_path)
    kills = 0
    for n, at in enumerate(_steps(faults, clone, verb, long_profile)):
        for do in ("kill-before", "kill-after"):
            case = n * 2 + (do == "kill-after")
            pilot, sat = _tree(clone, case, verb == "approve")
            args = ["gate", "approve", sat, "go"] if verb == "approve" else ["gate", "pause", pilot, "hold"]
            env = faults.env(racer_env(clone.name), at=at if isinstance(at, int) else None,
                             on=at if isinstance(at, str) else None, do=do)
            run = run_faulty(faults, env, "--sync", *args, brain=clone, now=NOW)
            assert run.code in (0, -9), f"{verb} {do} {at}: {run}"
            kills += run.code == -9
            label = f"{verb} {do} step {at}"
            _check(clone, remote, label)
            assert _bsi(other, "sync").code == 0
            for seen in (clone, other):
                sat_doc, pilot_doc = _shown_at(seen, sat), _shown_at(seen, pilot)
                events = [e["event"] for e in sat_doc.get("gate_history") or []]
                if verb == "approve":
                    assert sat_doc["status"] in ("waiting_human", "open"), label
                    assert (sat_doc["status"] == "open") == ("APPROVED" in events), f"{label}: {sat_doc}"
                else:
                    assert (pilot_doc["status"], sat_doc["status"]) in (("open", "open"), ("paused", "paused")), \
                        f"{label}: half a cascade: {pilot_doc['status']} / {sat_doc['status']}"
                check = _bsi(seen, "preflight", "check", sat, f"p{case}/a.md").code
                assert (check == 0) == (sat_doc["status"] == "open"), f"{label}: preflight {check} for {sat_doc}"
    assert kills, "no case was killed: the plan did not reach any git step"
