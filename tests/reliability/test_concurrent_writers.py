"""Several `bsi` processes writing one brain at the same instant, and kill -9 during writes (SPEC 13).

Each racer and writer is a process of its own, forked from this one with the CLI already imported
(tests/reliability/forked.py): a racer waits for a start file to appear (the barrier), then runs
`brain_tui.cli.main.main(argv)`, the `bsi` command itself; a writer writes until it is killed.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import yaml

import brain_tui.core.brain  # noqa: F401  # imported before the writers fork (bsi imports lazily)
from brain_tui.cli.main import build_parser, main
from brain_tui.core.records.yamlio import CorruptYaml, safe_load_file
from tests.bsi import Run, clean_env, git, ok, run_bsi
from tests.clock import wait_for

from . import forked

RACERS = 8
NOW = "2026-11-29T10:00:00Z"


def _racer(go: Path, argv: list[str]) -> Callable[[], int]:
    """A racer's life in its child: say "ready", wait for the start file (the barrier), then run `bsi ARGV`."""

    def race() -> int:
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        while not go.exists():
            time.sleep(0.0005)
        sys.stdout.write("result:")
        sys.stdout.flush()
        return main(argv)

    return race


def _writer(root: Path, seed: int) -> Callable[[], None]:
    """A writer's life in its child: open, renew and close claims until killed."""

    def write() -> None:
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        base = ["--brain", str(root), "--now", NOW]
        for i in range(1000):
            slug = f"k{seed}-{i}"
            main([*base, "claim", "open", "--scope", f"kill/{slug}/", "--slug", slug, "--story", "x" * 2000])
            sess = "sess-20261129-1000-" + slug
            main([*base, "claim", "renew", sess, "--ttl", "3h"])
            main([*base, "claim", "close", sess, "--status", "ok", "--notes", "y" * 2000])

    return write


def _start(target: Callable[[], int | None]) -> forked.Forked:
    proc = forked.run_forked(target, env=clean_env())
    assert proc.read_line() == "ready\n"
    return proc


def _race(brain: Path, tmp_path: Path, scopes: list[str]) -> list[Run]:
    go = tmp_path / "go"
    racers = [_start(_racer(go, ["--brain", str(brain), "--now", NOW, "claim", "open", "--scope", scope,
                                 "--slug", f"racer{i}"])) for i, scope in enumerate(scopes)]
    go.touch()
    results = []
    for proc in racers:
        run = proc.wait(timeout=120)
        results.append(run)
    return results


def _assert_git_sound(brain: Path) -> None:
    fsck = subprocess.run(["git", "fsck", "--no-progress", "--strict"], cwd=brain, capture_output=True, text=True,
                          env=clean_env())
    assert fsck.returncode == 0, fsck.stderr


def test_eight_racers_on_one_scope_exactly_one_wins(brain: Path, tmp_path: Path) -> None:
    results = _race(brain, tmp_path, ["same/"] * RACERS)
    codes = sorted(code for code, _, _ in results)
    assert codes == [0] + [10] * (RACERS - 1), results
    (winner,) = [out.split("result:", 1)[1].strip() for code, out, _ in results if code == 0]
    for code, _, err in results:
        if code == 10:
            assert winner in err  # each loser is told who holds the scope
    assert [p.name for p in (brain / "claims").glob("*.yml")] == [f"{winner}.yml"]
    assert git(brain, "log", "--format=%s").splitlines() == [f"bsi: open claim {winner}", "bsi: init brain"]
    assert git(brain, "status", "--porcelain") == ""
    _assert_git_sound(brain)
    assert f"| {winner} |" in (brain / "BRAIN-INDEX.md").read_text()


def test_eight_racers_on_different_scopes_all_win_and_nothing_is_lost(brain: Path, tmp_path: Path) -> None:
    results = _race(brain, tmp_path, [f"area{i}/" for i in range(RACERS)])
    assert [code for code, _, _ in results] == [0] * RACERS, results
    ids = sorted(out.split("result:", 1)[1].strip() for _, out, _ in results)
    assert sorted(p.stem for p in (brain / "claims").glob("*.yml")) == ids
    subjects = git(brain, "log", "--format=%s").splitlines()
    assert sorted(subjects[:-1]) == sorted(f"bsi: open claim {sess}" for sess in ids)
    assert git(brain, "status", "--porcelain") == ""
    index = (brain / "BRAIN-INDEX.md").read_text()
    assert all(f"| {sess} |" in index for sess in ids)  # the last writer saw every other claim
    _assert_git_sound(brain)


def test_eight_sessions_racing_for_one_lock_exactly_one_holds_it(brain: Path, tmp_path: Path) -> None:
    # Defect 14.6 of the old scripts: acquire was not atomic, so two sessions could both "hold" one file.
    sessions = [ok(run_bsi("claim", "open", "--scope", f"area{i}/", "--slug", f"locker{i}", brain=brain,
                           now=NOW)).strip() for i in range(RACERS)]
    go = tmp_path / "go"
    racers = [_start(_racer(go, ["--brain", str(brain), "--now", NOW, "lock", "acquire", "shared/x.md", sess]))
              for sess in sessions]
    go.touch()
    results = [proc.wait(timeout=120) for proc in racers]
    codes = [code for code, _, _ in results]
    assert sorted(codes) == [0] + [1] * (RACERS - 1), results
    winner = sessions[codes.index(0)]
    (lock,) = (brain / "locks").glob("*.yml")
    assert yaml.safe_load(lock.read_text(encoding="utf-8"))["holder"] == winner
    for code, _, err in results:
        if code == 1:
            assert winner in err  # each loser is told who holds the file
    assert git(brain, "log", "--format=%s").splitlines().count("bsi: lock acquire shared/x.md") == 1
    assert git(brain, "status", "--porcelain") == ""


def _assert_whole(brain: Path) -> int:
    count = 0
    for folder in ("claims", "signals"):
        for path in (brain / folder).glob("*.yml"):
            try:
                data = safe_load_file(path)
            except CorruptYaml as exc:
                raise AssertionError(f"{path.name} is not whole: {exc}") from exc
            assert isinstance(data, dict) and (data.get("sess_id") or data.get("sig_id")), path.name
            if folder == "claims":
                assert data["story_angle"] == "x" * 2000, f"{path.name} lost its content"
            count += 1
    return count


def test_kill_dash_nine_during_writes_leaves_every_file_whole(brain: Path) -> None:
    rng = random.Random(20261129)
    build_parser()  # every command module imported before the writers fork: the kills land in the writes
    for i in range(30):
        proc = _start(_writer(brain, i))
        if i == 29:  # the last kill lands after a claim was written, however loaded the machine is
            wait_for(lambda: any((brain / "claims").glob("*.yml")), timeout=120, what="a writer's first claim")
        time.sleep(rng.uniform(0.0, 0.25))
        proc.kill()
        assert proc.wait(timeout=30).code == -signal.SIGKILL
        _assert_whole(brain)
    assert _assert_whole(brain) > 0
    # the next command works, sweeps stray temp files, and commits only its own change
    sess = ok(run_bsi("claim", "open", "--scope", "after/kill/", "--slug", "after", "--story", "x" * 2000,
                      brain=brain))
    assert not [p for p in brain.rglob(".bsi-tmp-*")]
    listed = run_bsi("--json", "claim", "list", "--all", brain=brain).json()
    assert listed["corrupt"] == [] and sess in {c["sess_id"] for c in listed["claims"]}
    assert yaml.safe_load((brain / "claims" / f"{sess}.yml").read_text())["status"] == "open"
    _assert_git_sound(brain)
    assert git(brain, "log", "-1", "--format=%s").strip() == f"bsi: open claim {sess}"
