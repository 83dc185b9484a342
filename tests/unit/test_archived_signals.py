"""The archived signals' set: a live read never looks at the signal files HEAD holds archived.

In process, on small temporary git brains; work is counted (files parsed, files listed), never timed.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.records import closed_set
from brain_tui.core.records.index import render_block
from brain_tui.core.records.model import BLOCKING_STATUSES
from brain_tui.core.records.statuses import SignalState
from brain_tui.core.records.written import index_snapshot
from tests.bsi import run_bsi

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
ARCHIVED = 30
LIVE_SIGNALS = {"sig-20261129-080000-pend", "sig-20261129-080000-dlvr"}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def signal_text(sig_id: str, state: str, payload: str = "p") -> str:
    text = (f"sig_id: {sig_id}\nfrom: sess-20261129-0800-aaaa\nto: sess-20261129-0800-bbbb\ntype: INFO\n"
            f"scope: ''\npayload: {payload}\nstate: {state}\ncreated_at: '2026-11-{sig_id[10:12]}T08:00:00+00:00'\n")
    if state != SignalState.PENDING:
        text += "delivered_at: '2026-11-28T09:00:00+00:00'\ndelivered_by: t\n"
    if state == SignalState.ARCHIVED:
        text += "archived_at: '2026-11-29T08:30:00+00:00'\n"
    return text


def write_signal(root: Path, sig_id: str, state: str, payload: str = "p") -> Path:
    path = root / "signals" / f"{sig_id}.yml"
    path.write_text(signal_text(sig_id, state, payload), encoding="utf-8")
    return path


def old_id(number: int) -> str:
    return f"sig-20261101-080000-ar{number:02d}"


def commit(root: Path, message: str = "change") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


@pytest.fixture
def root() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="bsi-archived-"))
    for folder in ("claims", "signals", "locks", "breath"):
        (base / folder).mkdir()
    (base / ".gitignore").write_text(".brain/\n", encoding="utf-8")
    git(base, "init", "-q", "-b", "main")
    git(base, "config", "user.email", "t@test")
    git(base, "config", "user.name", "t")
    (base / "claims" / "sess-20261129-0800-bbbb.yml").write_text(
        "sess_id: sess-20261129-0800-bbbb\ntype: satellite\ninstance: t@test\nscope: live/b/\nstory_angle: s\n"
        "status: open\nopened_at: '2026-11-29T08:00:00+00:00'\nttl: \"4h\"\n"
        "expires_at: '2026-11-29T12:00:00+00:00'\n", encoding="utf-8")
    for number in range(ARCHIVED):
        write_signal(base, old_id(number), SignalState.ARCHIVED)
    write_signal(base, "sig-20261129-080000-pend", SignalState.PENDING)
    write_signal(base, "sig-20261129-080000-dlvr", SignalState.DELIVERED)
    commit(base, "signals")
    yield base
    shutil.rmtree(base, ignore_errors=True)


def live_ids(root: Path) -> tuple[Brain, set[str]]:
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    snap = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    return brain, {s.sig_id for s in snap.signals}


def test_a_live_read_parses_no_archived_signal_file(root: Path) -> None:
    brain, found = live_ids(root)
    assert found == LIVE_SIGNALS
    # a fresh brain (no parse cache): one claim and the two live signals parsed, no archived one
    assert brain.store.files.parsed == 3
    archived = brain.store.archived_last
    assert archived is not None and archived.count == ARCHIVED
    assert set(archived.live) == {f"{sig}.yml" for sig in LIVE_SIGNALS}


def test_the_full_read_and_signal_list_all_still_hold_the_archived(root: Path) -> None:
    live_ids(root)  # the set is built and stored
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    assert len(brain.snapshot().signals) == ARCHIVED + 2
    listed = run_bsi("--json", "signal", "list", "--all", brain=root, now=T0.isoformat())
    assert listed.code == 0 and listed.out.count('"archived"') == ARCHIVED
    plain = run_bsi("--json", "signal", "list", brain=root, now=T0.isoformat())
    assert plain.code == 0 and '"archived"' not in plain.out and all(sig in plain.out for sig in LIVE_SIGNALS)


def test_an_uncommitted_unarchive_changes_nothing_in_force_a_committed_one_does(root: Path) -> None:
    live_ids(root)
    write_signal(root, old_id(3), SignalState.PENDING)
    assert live_ids(root)[1] == LIVE_SIGNALS  # in force only as committed (SPEC 22)
    commit(root)
    assert live_ids(root)[1] == {*LIVE_SIGNALS, old_id(3)}
    assert closed_set.COUNTERS["diffs"] >= 1


def test_untracked_or_unparsable_archived_files_are_read(root: Path) -> None:
    live_ids(root)
    write_signal(root, "sig-20261129-090000-untr", SignalState.ARCHIVED)  # untracked: HEAD does not vouch
    (root / "signals" / "sig-20261129-090000-junk.yml").write_text("state: archived\n: [\n", encoding="utf-8")
    commit(root)  # committed, but it does not read as a signal: a corrupt row, never hidden
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    snap = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    assert "signals/sig-20261129-090000-junk.yml" in {c.path for c in snap.corrupt}
    write_signal(root, "sig-20261129-090000-new1", SignalState.ARCHIVED)
    snap = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    assert "sig-20261129-090000-new1" in {s.sig_id for s in snap.signals}


def test_not_a_git_repository_reads_every_signal(root: Path) -> None:
    shutil.rmtree(root / ".git")
    brain, found = live_ids(root)
    assert len(found) == ARCHIVED + 2 and brain.store.archived_last is None


def test_acking_an_archived_signal_says_so_and_a_pending_duplicate_is_not_written(root: Path) -> None:
    live_ids(root)
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    assert brain.signals.ack(old_id(1), by="human:t") is False  # decided on the whole brain: not "not found"
    assert brain.signals.send("sess-20261129-0800-aaaa", "sess-20261129-0800-bbbb", "INFO", "p") is None
    assert len(list((root / "signals").iterdir())) == ARCHIVED + 2


def test_the_index_block_is_the_same_from_the_live_read(root: Path) -> None:
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    full = render_block(brain.snapshot(), UTC)
    live = render_block(index_snapshot(brain.store, T0 + timedelta(seconds=1)), UTC)
    assert brain.store.archived_last is not None
    assert live == render_block(brain.store.snapshot(T0 + timedelta(seconds=1)), UTC)
    assert full.count("sig-") == len(LIVE_SIGNALS)


def test_signal_list_builds_no_closed_claim_and_opens_no_archived_signal(root: Path, built: list[str]) -> None:
    closed = (root / "claims" / "sess-20261129-0800-bbbb.yml").read_text(encoding="utf-8")
    (root / "claims" / "sess-20261101-0800-done.yml").write_text(
        closed.replace("0800-bbbb", "0800-done").replace("status: open", "status: closed"), encoding="utf-8")
    commit(root)
    live_ids(root)  # the sets are built and stored
    built.clear()
    listed = run_bsi("--json", "signal", "list", brain=root, now=T0.isoformat())
    assert listed.code == 0 and all(sig in listed.out for sig in LIVE_SIGNALS)
    assert "claims/sess-20261101-0800-done.yml" not in built
