"""The closed set: a live-only read never looks at the claim files HEAD holds terminal.

In process, on small temporary git brains; work is counted (files looked at, parsed, git
rebuilds and diffs), never timed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.paths.layout import CLOSED_SET_FILE, STATE_DIR
from brain_tui.core.records import closed_set
from brain_tui.core.records.model import BLOCKING_STATUSES

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
HISTORY = 40


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def claim_text(sess_id: str, status: str, scope: str, closed_at: str | None = None) -> str:
    text = (f"sess_id: {sess_id}\ntype: satellite\ninstance: t@test\nscope: {scope}\nstory_angle: s\n"
            f"status: {status}\nopened_at: '2026-11-29T08:00:00+00:00'\nttl: \"4h\"\n"
            "expires_at: '2026-11-29T12:00:00+00:00'\n")
    if closed_at:
        text += f"closed_at: '{closed_at}'\nresult:\n  status: ok\n  tests:\n    total: 3\n"
    return text


def write_claim(root: Path, sess_id: str, status: str, scope: str, closed_at: str | None = None,
                name: str | None = None) -> Path:
    path = root / "claims" / (name or f"{sess_id}.yml")
    path.write_text(claim_text(sess_id, status, scope, closed_at), encoding="utf-8")
    return path


def commit(root: Path, message: str = "change") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


@pytest.fixture
def root() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="bsi-closedset-"))
    for folder in ("claims", "signals", "locks", "breath"):
        (base / folder).mkdir()
    (base / ".gitignore").write_text(".brain/\n", encoding="utf-8")
    git(base, "init", "-q", "-b", "main")
    git(base, "config", "user.email", "t@test")
    git(base, "config", "user.name", "t")
    for number in range(HISTORY):
        write_claim(base, f"sess-old-{number}", "closed", f"hist/f{number}.py",
                    f"2026-11-{1 + number % 28:02d}T10:00:00+00:00")
    write_claim(base, "sess-live-a", "open", "live/a/")
    write_claim(base, "sess-live-b", "paused", "live/b/")
    commit(base, "history")
    yield base
    shutil.rmtree(base, ignore_errors=True)


def live(root: Path) -> tuple[Brain, list[str]]:
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    snap = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    return brain, sorted(c.sess_id for c in snap.claims)


def test_live_only_read_looks_at_the_live_files_only(root: Path) -> None:
    brain, found = live(root)
    assert found == ["sess-live-a", "sess-live-b"]
    assert brain.store.closed_last is not None
    # Cold: no parse cache. Only the two live files were looked at and parsed, none of the 40 closed.
    assert brain.store.stats_last == 2
    assert brain.store.parsed_last == 2
    brain2, found2 = live(root)  # another process: the stored set, the warm cache
    assert found2 == found and brain2.store.stats_last == 2 and brain2.store.parsed_last == 0


def test_full_snapshot_still_holds_the_history(root: Path) -> None:
    live(root)
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    assert len(brain.snapshot().claims) == HISTORY + 2


def test_uncommitted_reopen_changes_nothing_in_force_a_committed_one_blocks(root: Path) -> None:
    live(root)
    write_claim(root, "sess-old-3", "open", "hist/f3.py")  # in place, not committed
    assert "sess-old-3" not in live(root)[1]
    commit(root, "reopen")
    assert "sess-old-3" in live(root)[1]


def test_untracked_claim_blocks_a_deletion_holds_until_committed_and_renamed_files(root: Path) -> None:
    live(root)
    write_claim(root, "sess-new", "open", "new/")
    assert "sess-new" in live(root)[1]
    (root / "claims" / "sess-live-b.yml").unlink()
    assert "sess-live-b" in live(root)[1]  # not committed: HEAD's copy holds (SPEC 22)
    commit(root, "delete b")
    assert "sess-live-b" not in live(root)[1]
    os.rename(root / "claims" / "sess-live-a.yml", root / "claims" / "moved.yml")
    assert "sess-live-a" in live(root)[1]
    os.rename(root / "claims" / "sess-old-1.yml", root / "claims" / "old-moved.yml")  # closed, not in HEAD
    assert "sess-old-1" not in live(root)[1]


def test_head_moves_by_commit_reset_checkout_and_pull(root: Path) -> None:
    live(root)
    closed_set.COUNTERS.update(rebuilds=0, diffs=0, blobs_read=0)
    write_claim(root, "sess-live-a", "closed", "live/a/", "2026-11-29T08:30:00+00:00")
    commit(root, "close a")
    assert live(root)[1] == ["sess-live-b"]
    assert closed_set.COUNTERS["rebuilds"] == 0 and closed_set.COUNTERS["diffs"] == 1
    assert closed_set.COUNTERS["blobs_read"] == 1  # only the changed file was read
    git(root, "reset", "-q", "--hard", "HEAD~1")
    assert live(root)[1] == ["sess-live-a", "sess-live-b"]
    git(root, "checkout", "-q", "-b", "other")
    write_claim(root, "sess-other", "open", "other/")
    commit(root, "other branch")
    git(root, "checkout", "-q", "main")
    assert "sess-other" not in live(root)[1]
    git(root, "checkout", "-q", "other")
    assert "sess-other" in live(root)[1]
    clone = Path(tempfile.mkdtemp(prefix="bsi-closedset-clone-"))
    try:
        git(clone, "clone", "-q", "-b", "other", str(root), ".")
        assert live(clone)[1] == ["sess-live-a", "sess-live-b", "sess-other"]
        git(root, "checkout", "-q", "other")
        write_claim(root, "sess-other", "closed", "other/", "2026-11-29T08:40:00+00:00")
        commit(root, "close other")
        git(clone, "pull", "-q", "--ff-only")
        assert "sess-other" not in live(clone)[1]
    finally:
        shutil.rmtree(clone, ignore_errors=True)


def test_not_a_git_repository_reads_every_file(root: Path) -> None:
    shutil.rmtree(root / ".git")
    write_claim(root, "sess-old-2", "open", "hist/f2.py")
    brain, found = live(root)
    assert brain.store.closed_last is None
    assert "sess-old-2" in found and "sess-live-a" in found


@pytest.mark.parametrize("junk", ["", "not json", '{"format": 1}', "\x00\x01garbage"])
def test_garbage_set_file_is_rebuilt_never_trusted(root: Path, junk: str) -> None:
    live(root)
    (root / STATE_DIR / CLOSED_SET_FILE).write_text(junk, encoding="utf-8")
    closed_set.COUNTERS["rebuilds"] = 0
    assert live(root)[1] == ["sess-live-a", "sess-live-b"]
    assert closed_set.COUNTERS["rebuilds"] == 1


def test_torn_rows_file_is_rebuilt(root: Path) -> None:
    live(root)
    rows = next((root / STATE_DIR).glob("closed-set-*.txt"))
    rows.write_text(rows.read_text(encoding="utf-8")[:-40], encoding="utf-8")  # a torn write
    write_claim(root, "sess-live-a", "closed", "live/a/", "2026-11-29T08:30:00+00:00")
    commit(root, "close a")
    closed_set.COUNTERS["rebuilds"] = 0
    brain, found = live(root)
    assert found == ["sess-live-b"] and closed_set.COUNTERS["rebuilds"] == 1
    assert brain.store.closed_last is not None and brain.store.closed_last.count == HISTORY + 1


def test_a_write_cut_short_leaves_the_old_set(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live(root)
    before = (root / STATE_DIR / CLOSED_SET_FILE).read_bytes()
    write_claim(root, "sess-new", "open", "new/")

    def killed(*_args: object) -> None:
        raise KeyboardInterrupt  # as a kill at the rename

    monkeypatch.setattr(closed_set.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        live(root)
    monkeypatch.undo()
    assert (root / STATE_DIR / CLOSED_SET_FILE).read_bytes() == before
    assert not [p for p in (root / STATE_DIR).iterdir() if p.name.startswith(".bsi-tmp-")]
    assert "sess-new" in live(root)[1]


def test_a_live_file_carrying_a_closed_claims_id_is_a_duplicate(root: Path) -> None:
    live(root)
    write_claim(root, "sess-old-5", "open", "dup/", name="stray.yml")
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    snap = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    assert "sess-old-5" not in [c.sess_id for c in snap.claims]
    assert [c.path for c in snap.corrupt] == ["claims/stray.yml"]
    assert "duplicate of claims/sess-old-5.yml" in snap.corrupt[0].reason


def test_closed_since_reads_the_recent_history(root: Path) -> None:
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    snap = brain.store.snapshot(T0, only_statuses=BLOCKING_STATUSES,
                                closed_since=datetime(2026, 11, 27, tzinfo=UTC))
    recent = sorted(c.sess_id for c in snap.claims if c.status == "closed")
    expected = sorted(f"sess-old-{n}" for n in range(HISTORY) if 1 + n % 28 >= 27)
    assert recent == expected and len(expected) > 0
    assert {"sess-live-a", "sess-live-b"} <= {c.sess_id for c in snap.claims}


def test_the_legacy_fixture_brain_reads_the_same_through_the_set() -> None:
    base = Path(tempfile.mkdtemp(prefix="bsi-closedset-legacy-")) / "brain"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "legacy", base)
    try:
        git(base, "init", "-q", "-b", "main")
        git(base, "config", "user.email", "t@test")
        git(base, "config", "user.name", "t")
        commit(base, "legacy")
        brain = Brain(base, clock=lambda: T0, commit=False, instance="t@test")
        full = brain.snapshot()
        snap = brain.snapshot(only_statuses=BLOCKING_STATUSES)
        assert brain.store.closed_last is not None and brain.store.closed_last.count >= 3
        assert [c.sess_id for c in snap.claims] == [c.sess_id for c in full.claims if c.status in BLOCKING_STATUSES]
        assert {c.path for c in snap.corrupt} <= {c.path for c in full.corrupt}
        assert brain.store.stats_last < len(list((base / "claims").iterdir()))
    finally:
        shutil.rmtree(base.parent, ignore_errors=True)


def _count_full_scans(brain: Brain, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    scans: list[str] = []
    real = brain.store._scan

    def counting(folder: str, suffixes: tuple[str, ...]) -> object:
        scans.append(folder)
        return real(folder, suffixes)

    monkeypatch.setattr(brain.store, "_scan", counting)
    return scans


def test_a_closed_ancestor_is_read_by_name_not_the_whole_brain(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.rules.write_request import WriteSession

    path = write_claim(root, "sess-child", "open", "hist/f7.py")
    path.write_text(path.read_text(encoding="utf-8") + "parent_satellite: sess-old-7\n", encoding="utf-8")
    commit(root, "child of a closed claim")
    live(root)
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    scans = _count_full_scans(brain, monkeypatch)
    # a bound session whose claim is closed: refused as closed, from its file alone
    decision = brain.decide_write("hist/f3.py", WriteSession(claims=("sess-old-3",)))
    assert not decision.allowed and "closed" in decision.reason
    assert "claims" not in scans
    # check-scope under a parent whose chain passes through a closed claim
    conflicts = brain.check_scope(parse_scope("hist/f7.py", brain.root), parent="sess-child")
    assert [c.holder.sess_id for c in conflicts] == [] or all(c.holder.sess_id != "sess-child" for c in conflicts)
    assert "claims" not in scans


@pytest.mark.parametrize("sess_id, words", [("sess-nobody", "unknown"), ("x", "invalid session ID"),
                                            ("sess-gone", "closed")])
def test_an_unknown_malformed_or_untracked_closed_claim_is_decided_without_the_whole_brain(
        root: Path, monkeypatch: pytest.MonkeyPatch, sess_id: str, words: str) -> None:
    from brain_tui.core.rules.write_request import WriteSession

    # opened and closed without a commit: not in HEAD, so the live read scans it and filters it out
    write_claim(root, "sess-gone", "closed", "live/a/", "2026-11-29T08:30:00+00:00")
    full = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    want = full.decide_write("live/a/x.py", WriteSession(claims=(sess_id,)))
    live(root)
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    scans = _count_full_scans(brain, monkeypatch)
    decision = brain.decide_write("live/a/x.py", WriteSession(claims=(sess_id,)))
    assert not decision.allowed and words in decision.reason
    assert (decision.code, decision.reason) == (want.code, want.reason)
    assert "claims" not in scans


def test_the_index_read_fetches_the_cache_rows_of_the_window_not_the_whole_history(root: Path) -> None:
    from brain_tui.core.records.written import index_snapshot

    write_claim(root, "sess-ancient", "closed", "old/", "2026-08-01T10:00:00+00:00")
    commit(root, "an old close")
    Brain(root, clock=lambda: T0, commit=False).snapshot()  # every file in the parse cache
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    snapshot = index_snapshot(brain.store, T0)
    assert "sess-old-3" in {c.sess_id for c in snapshot.claims}  # the 30-day window
    assert "sess-ancient" not in {c.sess_id for c in snapshot.claims}
    assert "claims/sess-ancient.yml" not in brain.store.files.entry_names()  # its cache row was not even read


def test_the_windows_finished_claims_are_read_without_walking_their_scopes(root: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from brain_tui.core.paths import scope
    from brain_tui.core.records.written import index_snapshot

    live(root)
    walked: list[str] = []
    real = scope.resolve_in_brain

    def counting(base: object, path: str) -> object:
        walked.append(path)
        return real(base, path)  # type: ignore[arg-type]

    monkeypatch.setattr(scope, "resolve_in_brain", counting)
    brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
    snapshot = index_snapshot(brain.store, T0)
    finished = [c for c in snapshot.claims if c.is_terminal]
    assert len(finished) == HISTORY and all(c.scope_text.startswith("hist/") for c in finished)
    assert sorted(walked) == ["live/a", "live/b"]  # only the claims that can block
    assert Brain(root, clock=lambda: T0, commit=False).snapshot().claim("sess-old-3").scope[0].kind == "file"
