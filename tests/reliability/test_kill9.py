"""kill -9 at random points during writes and git operations: every file stays whole, git stays sound.

And what is in force is what git holds (SPEC 22): after a kill, the next
command settles the write the kill cut short (`journal.recover` under the
brain lock, as every write starts), so no claim, signal or index file differs
from HEAD.

CI profile: 150 kills (every third one checked against HEAD). `--long-profile`: 1,500, every one checked.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain_tui.core.brain import Brain, init_brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records import journal
from brain_tui.core.records.yamlio import CorruptYaml, safe_load_file
from brain_tui.core.rules.claims import CloseRequest, OpenRequest

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def _writer(root: str, seed: int) -> None:
    """Child process: open and close claims forever (until killed)."""
    rng = random.Random(seed)
    step = 0
    brain = Brain(root, clock=lambda: NOW + timedelta(seconds=step))
    while True:
        step += 1
        scope = f"area{rng.randrange(1000)}/f{step}.md"
        try:
            sess = brain.open_claim(OpenRequest(scope=parse_scope(scope), ttl=parse_duration("2h"),
                                                instance="k@test", slug=f"k{seed}-{step}"))
            brain.close_claim(sess, CloseRequest(status="ok"))
        except Exception:  # noqa: BLE001 - a prior kill may have left something to recover from
            time.sleep(0.01)


def _check_files(root: Path) -> int:
    count = 0
    for folder in ("claims", "signals"):
        for path in (root / folder).glob("*.yml"):
            try:
                data = safe_load_file(path)
            except CorruptYaml as exc:  # pragma: no cover - the assertion below reports it
                raise AssertionError(f"{path} is not whole after kill -9: {exc}") from exc
            assert isinstance(data, dict), f"{path} lost its content"
            count += 1
    text = (root / "BRAIN-INDEX.md").read_text(encoding="utf-8")
    assert text.count("<!-- bsi:generated:start -->") == 1 and text.rstrip().endswith("-->")
    return count


def _uncommitted(root: Path) -> str:
    """Protocol files that differ from HEAD once the next reader settled the killed write."""
    brain = Brain(root, clock=lambda: NOW)
    with brain.locked():
        journal.recover(root)
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "claims", "signals",
                           "BRAIN-INDEX.md"], cwd=root, capture_output=True, text=True, check=True).stdout


def test_kill_dash_nine_leaves_every_file_whole(tmp_path: Path, long_profile: bool) -> None:
    kills = 1500 if long_profile else 150
    root = init_brain(tmp_path / "brain")
    subprocess.run(["git", "config", "user.name", "killer"], cwd=root, check=True)
    subprocess.run(["git", "config", "user.email", "killer@example.org"], cwd=root, check=True)
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(7)
    done = checked = 0
    for i in range(kills):
        child = ctx.Process(target=_writer, args=(str(root), i))
        child.start()
        time.sleep(rng.uniform(0.005, 0.12))
        os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
        child.join()
        done += 1
        _check_files(root)
        if long_profile or i % 3 == 0:
            left = _uncommitted(root)
            assert left == "", f"kill {i}: files the next command did not put back to what git holds:\n{left}"
            checked += 1
        if i % 50 == 0:
            fsck = subprocess.run(["git", "fsck", "--no-progress"], cwd=root, capture_output=True, text=True)
            assert fsck.returncode == 0, fsck.stderr
    # No temp file survives the next command, and the next command works.
    brain = Brain(root, clock=lambda: NOW + timedelta(hours=1))
    sess = brain.open_claim(OpenRequest(scope=parse_scope("after/kill.md"), ttl=parse_duration("1h"),
                                        instance="k@test", slug="after"))
    assert brain.snapshot().claim(sess) is not None
    assert not [p for p in root.rglob(".bsi-tmp-*")], "a stray temp file survived the sweep"
    fsck = subprocess.run(["git", "fsck", "--no-progress"], cwd=root, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr
    assert _check_files(root) > 0
    log = subprocess.run(["git", "log", "--oneline"], cwd=root, capture_output=True, text=True, check=True).stdout
    assert "bsi: open claim " + sess in log
    print(f"kill -9: {done} kills, files whole, git fsck clean, {checked} checked: 0 files out of step with HEAD")
