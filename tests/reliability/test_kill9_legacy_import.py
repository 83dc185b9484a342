"""kill -9 during the one-time import of a legacy BRAIN-INDEX.md: no signal lost or doubled, nothing half-committed.

On a git copy of the legacy fixture, the first write imports the old index's signal rows as files
(`core/records/index_file.py`) and commits them with its own change. Each case kills that first write
(`bsi watchdog`, `bsi signal ack` of a legacy row, `bsi claim open`) before or after one git step, or at
a random instant, then runs the next command (`bsi index`) and checks:

- every protocol file and BRAIN-INDEX.md is what HEAD holds, nothing staged (`git status` clean);
- each legacy signal is read once, from one file (none lost, none imported twice);
- an acknowledged signal stays delivered, a claim whose open exited 0 is in HEAD;
- BRAIN-INDEX.md holds one generated block listing every signal.

CI profile: the instants that matter (right after the import wrote its files, before the commit, after it)
and one random instant.
`--long-profile`: every git step of each command, before and after, and 30 random instants each.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

from tests.bsi import BSI, Run, bsi_command, clean_env, git, ok, run_bsi
from tests.paths import LEGACY

from . import forked
from .faults import Faults, run_faulty

NOW = "2026-03-16T22:00:00Z"
ACKED = "sig-20260316-001"
LEGACY_SIGNALS = {ACKED, "sig-20260316-002", "sig-20260316-003", "sig-20261129-155844-human_gate",
                  "sig-20261129-155845-paused", "sig-20261129-155848-human_gate"}
PROTOCOL = ("claims", "signals", "locks", "BRAIN-INDEX.md")
ENV = clean_env(identity="killer")
COMMANDS: dict[str, tuple[str, ...]] = {
    "watchdog": ("watchdog",),
    "ack": ("signal", "ack", ACKED),
    "open": ("claim", "open", "--scope", "fresh/", "--instance", "k@test", "--slug", "fresh"),
}


def _template(tmp: Path) -> Path:
    """The legacy fixture as a git repository, everything committed (copied for each case)."""
    root = tmp / "template"
    shutil.copytree(LEGACY, root)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    git(root, "init", "--quiet", env=ENV)
    (root / ".gitignore").write_text(".brain/\n", encoding="utf-8")
    git(root, "add", "-A", env=ENV)
    git(root, "commit", "--quiet", "-m", "legacy brain", env=ENV)
    return root


def _fresh(tmp: Path, template: Path, label: str) -> Path:
    root = tmp / "cases" / label
    shutil.copytree(template, root)
    return root


def _check(root: Path, label: str, kind: str, run: Run) -> None:
    """The invariants once the next command ran after `run` (killed or not)."""
    recovered = run_bsi("index", brain=root, now=NOW, env=ENV)
    assert recovered.code == 0, f"{label}: the next command did not recover: {recovered}"
    dirty = git(root, "status", "--porcelain", "--untracked-files=all", "--", *PROTOCOL, env=ENV)
    assert dirty == "", f"{label}: not what HEAD holds after the next command:\n{dirty}"
    listed = json.loads(ok(run_bsi("--json", "signal", "list", "--all", brain=root, now=NOW, env=ENV)))["signals"]
    ids = [s["sig_id"] for s in listed]
    assert sorted(ids) == sorted(set(ids)) and set(ids) >= LEGACY_SIGNALS, f"{label}: signals {ids}"
    files = [p.stem for p in (root / "signals").glob("*.y*ml")] if (root / "signals").is_dir() else []
    assert len(files) == len(set(files)), f"{label}: a signal with two files: {sorted(files)}"
    state = {s["sig_id"]: s["state"] for s in listed}
    if kind == "ack" and run.code == 0:
        assert state[ACKED] == "delivered", f"{label}: an acknowledged signal is {state[ACKED]}"
    if kind == "open" and run.code == 0:
        held = git(root, "ls-tree", "--name-only", "HEAD", "--", f"claims/{run.out.strip()}.yml", env=ENV)
        assert held.strip(), f"{label}: the claim opened is not in HEAD"
    index = (root / "BRAIN-INDEX.md").read_text(encoding="utf-8")
    assert index.count("<!-- bsi:generated:start -->") == 1, f"{label}: BRAIN-INDEX.md block"
    block = index.split("<!-- bsi:generated:start -->", 1)[1]
    missing = [i for i, s in state.items() if s != "archived" and i not in block]
    assert not missing, f"{label}: BRAIN-INDEX.md misses {missing}"
    # The acknowledgement completes, and the signal stays delivered (no import brings the row back).
    ok(run_bsi("signal", "ack", ACKED, brain=root, now=NOW, env=ENV))
    ok(run_bsi("index", brain=root, now=NOW, env=ENV))
    again = json.loads(ok(run_bsi("--json", "signal", "list", "--all", brain=root, now=NOW, env=ENV)))["signals"]
    assert [s["state"] for s in again if s["sig_id"] == ACKED] == ["delivered"], f"{label}: ack undone"
    assert git(root, "status", "--porcelain", "--untracked-files=all", "--", *PROTOCOL, env=ENV) == ""


def _after_import(steps: list[str]) -> int:
    """The git step right after the import wrote its files (the import asks git's history first: `log`)."""
    return steps.index("log") + 2


def _plan(steps: list[str], long_profile: bool) -> list[tuple[int, str]]:
    if long_profile:
        return [(k, do) for k in range(1, len(steps) + 1) for do in ("kill-before", "kill-after")]
    return [(_after_import(steps), "kill-before"), (steps.index("update-index") + 1, "kill-before"),
            (steps.index("update-ref") + 1, "kill-after")]


def _random_kill(root: Path, args: tuple[str, ...], delay: float) -> Run:
    child = forked.start(bsi_command(*args, brain=root, now=NOW)[len(BSI):], env=ENV, cwd=root)
    time.sleep(delay)
    child.kill()
    return child.wait()


def test_kill9_during_the_legacy_import_loses_and_doubles_nothing(tmp_path: Path, long_profile: bool) -> None:
    template = _template(tmp_path)
    faults = Faults.install(tmp_path)
    rng = random.Random(11)
    kills = cases = 0
    for kind, args in COMMANDS.items():
        probe = _fresh(tmp_path, template, f"{kind}-probe")
        first = run_faulty(faults, faults.env(ENV, at=10_000), *args, brain=probe, now=NOW)
        assert first.code == 0, first
        steps = faults.steps()
        _check(probe, f"{kind} probe", kind, first)
        for k, do in _plan(steps, long_profile):
            label = f"{kind} {do} step {k} ({steps[k - 1]})"
            root = _fresh(tmp_path, template, f"{kind}-{k}-{do}")
            run = run_faulty(faults, faults.env(ENV, at=k, do=do), *args, brain=root, now=NOW)
            assert run.code in (0, -9), f"{label}: {run}"
            kills += run.code == -9
            _check(root, label, kind, run)
            cases += 1
        for n in range(30 if long_profile else 1):
            label = f"{kind} random {n}"
            root = _fresh(tmp_path, template, f"{kind}-r{n}")
            run = _random_kill(root, args, rng.uniform(0.05, 0.6))
            kills += run.code == -9
            _check(root, label, kind, run)
            cases += 1
    print(f"legacy import kill -9: {cases} cases, {kills} kills, 0 signals lost or doubled, git status clean")
    assert kills > 0

