"""A write's own commit moves the saved closed set on: the next read runs no ``git diff-tree``.

In process, on small temporary git brains; the work is counted (`closed_set.COUNTERS`, the
``rev-parse`` of the folder's tree), never timed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.layout import CLOSED_SET_FILE, STATE_DIR
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records import closed_advance, closed_set
from brain_tui.core.records.model import BLOCKING_STATUSES
from brain_tui.core.rules.claims import CloseRequest, OpenRequest

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
HAND = ("sess_id: sess-hand\ntype: satellite\ninstance: t@test\nscope: hand/\nstory_angle: s\nstatus: open\n"
        "opened_at: '2026-11-29T08:00:00+00:00'\nttl: \"4h\"\nexpires_at: '2026-11-29T12:00:00+00:00'\n")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def _history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git brain with five claims opened and closed (ten commits), built once for the module."""
    root = tmp_path_factory.mktemp("advance-history") / "brain"
    for folder in ("claims", "signals", "locks", "breath"):
        (root / folder).mkdir(parents=True)
    (root / ".gitignore").write_text(".brain/\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@test")
    git(root, "config", "user.name", "t")
    made = Brain(root, clock=lambda: T0, instance="t@test")
    for number in range(5):
        made.close_claim(_open(made, f"old{number}", f"hist/f{number}.py"), CloseRequest(status="ok"))
    return root


@pytest.fixture
def brain(_history: Path) -> Iterator[Brain]:
    """A private copy of `_history`, its saved closed set vouching for the copy's own ``claims/`` folder.

    The copy's folders are new inodes, so the set saved by the history's last close no longer vouches for
    the listing of ``claims/``; one read lists it again and saves the set as the last close left it in the
    original (the tree of HEAD, the listing of this folder). Ten commits per test cost ~1 s of CPU.
    """
    root = Path(tempfile.mkdtemp(prefix="bsi-advance-")) / "brain"
    shutil.copytree(_history, root, symlinks=True)
    made = Brain(root, clock=lambda: T0, instance="t@test")
    _live(made)
    saved = closed_set.load(root)
    assert saved is not None and saved.dir_key != (0, 0, 0) and saved.tree == git(root, "rev-parse", "HEAD:./claims")
    yield made
    shutil.rmtree(root.parent, ignore_errors=True)


def _open(brain: Brain, slug: str, scope: str) -> str:
    req = OpenRequest(scope=parse_scope(scope, brain.root), ttl=parse_duration("2h"), instance="t@test",
                      story=f"story of {slug}", slug=slug)
    return brain.open_claim(req)


def _live(brain: Brain) -> list[str]:
    """The live claims a fresh process would read (a new Brain over the same folder)."""
    fresh = Brain(brain.root, clock=lambda: T0, commit=False, instance="t@test")
    return sorted(c.sess_id for c in fresh.snapshot(only_statuses=BLOCKING_STATUSES).claims)


def _zero() -> None:
    closed_set.COUNTERS.update({name: 0 for name in closed_set.COUNTERS})


def _count_tree_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders whose HEAD tree a read asks git for (``git ls-tree HEAD -- <folder>``)."""
    asked: list[str] = []
    real = closed_set._folder_tree

    def counting(root: Path, kind: closed_set.Folder) -> str | None:
        asked.append(kind.name)
        return real(root, kind)

    monkeypatch.setattr(closed_set, "_folder_tree", counting)
    return asked


def _saved_tree(brain: Brain) -> str:
    saved = closed_set.load(brain.root)
    assert saved is not None
    return saved.tree


def test_after_a_close_commits_the_next_read_runs_no_git_diff(brain: Brain, monkeypatch: pytest.MonkeyPatch) -> None:
    sess = _open(brain, "a", "live/a/")
    assert _live(brain) == [sess]
    _zero()
    brain.close_claim(sess, CloseRequest(status="ok"))
    assert closed_set.COUNTERS["advances"] >= 1 and closed_set.COUNTERS["diffs"] == 0
    saved = closed_set.load(brain.root)
    assert saved is not None
    assert saved.tree == git(brain.root, "rev-parse", "HEAD:./claims")
    assert saved.commit == git(brain.root, "rev-parse", "HEAD")
    assert saved.has(f"{sess}.yml")
    _zero()
    asked = _count_tree_reads(monkeypatch)
    assert _live(brain) == []
    assert closed_set.COUNTERS["diffs"] == 0 and closed_set.COUNTERS["rebuilds"] == 0
    assert closed_set.COUNTERS["blobs_read"] == 0
    assert "claims" not in asked  # HEAD's commit is the saved set's: no git process for the tree either
    assert [c.status for c in Brain(brain.root, clock=lambda: T0, commit=False).snapshot().claims
            if c.sess_id == sess] == ["closed"]


def test_after_an_open_commits_the_new_claim_is_live_with_no_git_diff(brain: Brain) -> None:
    assert _live(brain) == []
    before = closed_set.load(brain.root)
    assert before is not None and before._path is not None
    rows = before._path.read_bytes()
    sess = _open(brain, "b", "live/b/")
    saved = closed_set.load(brain.root)
    assert saved is not None and saved.tree == git(brain.root, "rev-parse", "HEAD:./claims")
    assert saved.tree != before.tree
    assert saved._path == before._path and saved._path.read_bytes() == rows  # same rows: only the header moved
    assert not saved.has(f"{sess}.yml")
    _zero()
    assert _live(brain) == [sess]
    assert closed_set.COUNTERS["diffs"] == 0 and closed_set.COUNTERS["rebuilds"] == 0


def test_a_set_saved_for_another_tree_is_not_advanced(brain: Brain) -> None:
    sess = _open(brain, "c", "live/c/")
    assert _live(brain) == [sess]
    old_tree = _saved_tree(brain)
    # By hand, no read in between: a closed claim reopened (parent), then the close of `sess` (commit).
    saved = closed_set.load(brain.root)
    assert saved is not None
    name = sorted(saved.names())[0]
    reopened = brain.root / "claims" / name
    reopened.write_text(reopened.read_text(encoding="utf-8").replace("status: closed", "status: open"),
                        encoding="utf-8")
    git(brain.root, "commit", "-qm", "reopen by hand", "--", f"claims/{name}")
    parent = git(brain.root, "rev-parse", "HEAD")
    mine = brain.root / "claims" / f"{sess}.yml"
    mine.write_text(mine.read_text(encoding="utf-8").replace("status: open", "status: closed"), encoding="utf-8")
    git(brain.root, "commit", "-qm", "close by hand", "--", f"claims/{sess}.yml")
    _zero()
    closed_advance.advance(brain.root, brain.store.tz, parent, git(brain.root, "rev-parse", "HEAD"),
                           [f"claims/{sess}.yml"])
    assert closed_set.COUNTERS["advances"] == 0
    assert _saved_tree(brain) == old_tree  # left for the read to catch up
    _zero()
    assert _live(brain) == [name.removesuffix(".yml")]  # advanced from the old tree, the set would still hide it
    assert closed_set.COUNTERS["diffs"] == 1
    assert _saved_tree(brain) == git(brain.root, "rev-parse", "HEAD:./claims")


@pytest.mark.parametrize("failure", ["raises", "git fails"])
def test_a_failure_inside_advance_leaves_the_old_set(brain: Brain, monkeypatch: pytest.MonkeyPatch,
                                                     failure: str) -> None:
    sess = _open(brain, "d", "live/d/")
    assert _live(brain) == [sess]
    before = (brain.root / STATE_DIR / CLOSED_SET_FILE).read_bytes()
    if failure == "raises":
        def broken(*_args: object) -> None:
            raise RuntimeError("advance broke")

        monkeypatch.setattr(closed_advance, "advanced", broken)
    else:
        real = closed_set.git_output

        def no_diff(root: Path, *args: str, data: bytes | None = None) -> bytes | None:
            return None if "ls-tree" in args else real(root, *args, data=data)

        monkeypatch.setattr(closed_set, "git_output", no_diff)
    _zero()
    outcome = brain.close_claim(sess, CloseRequest(status="ok"))
    assert outcome.status == "closed"
    assert git(brain.root, "status", "--porcelain", "--", "claims") == ""  # the close is committed
    assert closed_set.COUNTERS["advances"] == 0
    assert (brain.root / STATE_DIR / CLOSED_SET_FILE).read_bytes() == before
    monkeypatch.undo()
    _zero()
    assert _live(brain) == []
    assert closed_set.COUNTERS["diffs"] == 1  # the read caught up


def test_a_hand_made_claim_file_right_after_the_write_is_still_live(brain: Brain,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    sess = _open(brain, "e", "live/e/")
    assert _live(brain) == [sess]
    real = closed_advance.advanced

    def hand_first(*args: object, **kwargs: object) -> object:
        # between the commit and the stored set: a file no commit holds
        (brain.root / "claims" / "sess-hand.yml").write_text(HAND, encoding="utf-8")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(closed_advance, "advanced", hand_first)
    brain.close_claim(sess, CloseRequest(status="ok"))
    monkeypatch.undo()
    assert (brain.root / "claims" / "sess-hand.yml").exists()
    _zero()
    assert _live(brain) == ["sess-hand"]  # the writer listed the folder after it: the file is in its listing
    assert closed_set.COUNTERS["diffs"] == 0 and closed_set.COUNTERS["listdirs"] == 0


def test_the_first_read_after_a_write_lists_nothing_and_a_later_hand_made_file_is_still_live(
        brain: Brain, monkeypatch: pytest.MonkeyPatch) -> None:
    sess = _open(brain, "f", "live/f/")
    assert _live(brain) == [sess]
    brain.close_claim(sess, CloseRequest(status="ok"))
    _zero()
    asked = _count_tree_reads(monkeypatch)
    assert _live(brain) == []
    assert closed_set.COUNTERS["listdirs"] == 0 and "claims" not in asked  # no git, no listing of claims/
    (brain.root / "claims" / "sess-hand.yml").write_text(HAND, encoding="utf-8")  # after the writer's listing
    _zero()
    assert _live(brain) == ["sess-hand"]
    assert closed_set.COUNTERS["listdirs"] == 1


def test_a_file_made_while_the_writer_lists_the_folder_leaves_its_key_unset(brain: Brain,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    sess = _open(brain, "g", "live/g/")
    assert _live(brain) == [sess]
    real = os.listdir
    made: list[str] = []

    def hand_during(path: str | Path) -> list[str]:
        listed = real(path)
        if Path(path) == brain.root / "claims" and not made:  # made once listed, before the key is checked
            (brain.root / "claims" / "sess-hand.yml").write_text(HAND, encoding="utf-8")
            made.append("sess-hand.yml")
        return listed

    monkeypatch.setattr(os, "listdir", hand_during)
    brain.close_claim(sess, CloseRequest(status="ok"))
    monkeypatch.undo()
    assert made == ["sess-hand.yml"]
    saved = closed_set.load(brain.root)
    assert saved is not None and saved.dir_key == (0, 0, 0)  # the listing is not vouched for
    _zero()
    assert _live(brain) == ["sess-hand"]
    assert closed_set.COUNTERS["listdirs"] == 1


def _rows_file(brain: Brain) -> tuple[Path, bytes]:
    saved = closed_set.load(brain.root)
    assert saved is not None and saved._path is not None
    return saved._path, saved._path.read_bytes()


def test_a_close_adds_its_row_to_the_header_not_to_a_new_rows_file(brain: Brain) -> None:
    sess = _open(brain, "f", "live/f/")
    assert _live(brain) == [sess]
    path, rows = _rows_file(brain)
    before = closed_set.load(brain.root)
    assert before is not None
    brain.close_claim(sess, CloseRequest(status="ok"))
    saved = closed_set.load(brain.root)
    assert saved is not None and saved._path == path and path.read_bytes() == rows  # the history's rows untouched
    assert sorted(line.split("\t")[2] for line in saved.extra) == sorted(
        [sess, *(line.split("\t")[2] for line in before.extra)])
    assert saved.has(f"{sess}.yml") and len(saved.names()) == saved.count == 6
    assert sess in {line.split("\t")[2] for line in saved.lines()}
    assert _live(brain) == []


def test_the_rows_file_is_written_again_once_the_header_holds_enough_rows(brain: Brain,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(closed_advance, "DELTA_ROWS", 2)
    path, rows = _rows_file(brain)
    closed = [brain.close_claim(_open(brain, f"g{n}", f"live/g{n}/"), CloseRequest(status="ok")) and n
              for n in range(3)]
    assert closed == [0, 1, 2]
    saved = closed_set.load(brain.root)
    assert saved is not None and saved._path is not None
    assert (saved._path, saved._path.read_bytes()) != (path, rows)  # written again in full, with every row
    assert len(saved.extra) < 3 and len(saved.names()) == saved.count == 8
    fresh = closed_set.load(brain.root)
    assert fresh is not None and len(fresh.lines()) == 8


def test_the_recent_rows_read_from_the_head_of_the_file_are_the_rows_of_the_whole_set(brain: Brain) -> None:
    for n in range(3):  # closed one minute apart, after the fixture's history
        later = Brain(brain.root, clock=lambda n=n: T0 + timedelta(minutes=n + 1), instance="t@test")
        later.close_claim(_open(later, f"h{n}", f"live/h{n}/"), CloseRequest(status="ok"))
    whole = closed_set.load(brain.root)
    assert whole is not None
    rows = whole.lines()
    assert [line.split("\t")[2] for line in rows[:3]] == [f"sess-20261129-09{n:02d}-h{n - 1}" for n in (3, 2, 1)]
    times = sorted({int(line.split("\t")[0]) for line in rows})
    assert len(times) == 4
    from brain_tui.core.records import closed_rows

    for since in (0, *times, times[-1] + 1):
        closed_rows._READ.clear()  # a process that has not read the rows yet
        fresh = closed_set.load(brain.root)
        assert fresh is not None
        assert fresh.closed_since(since) == whole.closed_since(since)
        assert fresh._lines is None  # read from the head of the file, the rows not loaded
        again = closed_set.load(brain.root)  # one that has them: from memory, the same answer
        assert again is not None and again.lines() and again.closed_since(since) == whole.closed_since(since)


def test_a_long_lived_process_reads_the_rows_file_once_while_writes_leave_it_in_place(brain: Brain) -> None:
    from brain_tui.core.records import closed_rows

    cockpit = Brain(brain.root, clock=lambda: T0, commit=False, instance="t@test")
    cockpit.snapshot(only_statuses=BLOCKING_STATUSES)
    saved = closed_set.load(brain.root)
    assert saved is not None and len(saved.names()) == saved.count and saved.lines()
    closed_rows.READS.update(names=0, rows=0)
    for n in range(3):  # writes by other processes: each adds a row beside the same rows file
        writer = Brain(brain.root, clock=lambda: T0, instance="t@test")
        sess = _open(writer, f"k{n}", f"live/k{n}/")
        writer.close_claim(sess, CloseRequest(status="ok"))
        fresh = closed_set.load(brain.root)
        assert fresh is not None and fresh.has(f"{sess}.yml") and len(fresh.names()) == fresh.count
        assert sess in {line.split("\t")[2] for line in fresh.lines()}
    assert closed_rows.READS == {"names": 0, "rows": 0}
