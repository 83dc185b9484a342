"""The closed set's rows carry each terminal claim's parent, read as the store reads ``parent_satellite``;
a set written before the column existed is rebuilt, never read with the new columns."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.paths.layout import CLOSED_SET_FILE, STATE_DIR
from brain_tui.core.records import closed_set
from brain_tui.core.records.formats import claim_from_mapping, parse_claim_bytes
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.status_scan import UNDECIDED, scan_status, terminal_of

from .test_closed_set import T0, _count_full_scans, commit, live, root, write_claim

__all__ = ["root"]

BASE = b"sess_id: sess-c\nscope: x/\nstatus: closed\nclosed_at: '2026-11-29T10:00:00+00:00'\n"


def _store_parent(raw: bytes) -> str:
    claim = claim_from_mapping(parse_claim_bytes(raw), "claims/sess-c.yml", "/tmp", UTC)
    assert isinstance(claim, Claim)
    return claim.parent or ""


@pytest.mark.parametrize("line", [b"", b"parent_satellite: sess-p\n", b"parent_satellite: 'sess-p'\n",
                                  b"parent_satellite: \"sess-p \"\n"])
def test_the_scan_reads_the_parent_the_store_reads(line: bytes) -> None:
    raw = BASE + line
    found = scan_status(raw, "sess-c.yml", UTC)
    assert isinstance(found, tuple) and found[3] == _store_parent(raw)


@pytest.mark.parametrize("line", [b"parent_satellite: true\n", b"parent_satellite: null\n",
                                  b"parent_satellite: 'null'\n",
                                  b"parent_satellite:\n  - sess-p\n", b"parent_satellite: 12\n",
                                  b"parent_satellite: [sess-p]\n"])
def test_a_parent_only_the_parse_can_read_is_parsed_and_agrees(line: bytes) -> None:
    raw = BASE + line
    assert scan_status(raw, "sess-c.yml", UTC) == UNDECIDED
    found = terminal_of(raw, "sess-c.yml", UTC)
    assert found is not None and found[3] == _store_parent(raw)


def test_a_parent_no_row_can_carry_leaves_the_file_live() -> None:
    assert terminal_of(BASE + b'parent_satellite: "sess-p\\tx"\n', "sess-c.yml", UTC) is None


def _parents(root_dir: Path) -> dict[str, str]:
    brain, _found = live(root_dir)
    closed = brain.store.closed_last
    assert closed is not None
    return {row[0]: row[3] for _name, row in closed.closed_since(0)}


def test_the_rows_carry_the_parent_and_follow_a_commit(root: Path) -> None:
    write_claim(root, "sess-kid", "closed", "kid/", "2026-11-28T10:00:00+00:00")
    path = root / "claims" / "sess-kid.yml"
    path.write_text(path.read_text(encoding="utf-8") + "parent_satellite: sess-live-a\n", encoding="utf-8")
    commit(root, "kid")
    parents = _parents(root)
    assert parents["sess-kid"] == "sess-live-a" and parents["sess-old-3"] == ""


def test_a_set_of_the_old_format_is_rebuilt(root: Path) -> None:
    write_claim(root, "sess-kid", "closed", "kid/", "2026-11-28T10:00:00+00:00")
    path = root / "claims" / "sess-kid.yml"
    path.write_text(path.read_text(encoding="utf-8") + "parent_satellite: sess-live-a\n", encoding="utf-8")
    commit(root, "kid")
    live(root)
    state = root / STATE_DIR
    head = json.loads((state / CLOSED_SET_FILE).read_text(encoding="utf-8"))
    rows = next(state.glob("closed-set-*.txt"))
    first, names, *lines = rows.read_text(encoding="utf-8").splitlines(keepends=True)
    old_rows = ["\t".join(line.split("\t")[:4] + line.split("\t")[5:]) for line in lines]  # no parent column
    rows.write_text(json.dumps({**json.loads(first), "format": 1}) + "\n" + names + "".join(old_rows),
                    encoding="utf-8")
    (state / CLOSED_SET_FILE).write_text(json.dumps({**head, "format": 1}), encoding="utf-8")
    closed_set.COUNTERS["rebuilds"] = 0
    assert _parents(root)["sess-kid"] == "sess-live-a"
    assert closed_set.COUNTERS["rebuilds"] == 1


def _child(root_dir: Path, sess_id: str, status: str, parent: str, closed_at: str | None = None) -> None:
    path = write_claim(root_dir, sess_id, status, f"tree/{sess_id}/", closed_at)
    path.write_text(path.read_text(encoding="utf-8") + f"parent_satellite: {parent}\n", encoding="utf-8")


def _tree(root_dir: Path) -> None:
    """sess-live-a ← sess-k1 (closed 2 months ago) ← sess-k2 (failed, old), sess-k3 (open); sess-live-a ← sess-k4
    (closed yesterday); sess-live-b ← sess-k5 (closed, old)."""
    _child(root_dir, "sess-k1", "closed", "sess-live-a", "2026-09-20T10:00:00+00:00")
    _child(root_dir, "sess-k2", "failed", "sess-k1", "2026-09-21T10:00:00+00:00")
    _child(root_dir, "sess-k3", "open", "sess-k1")
    _child(root_dir, "sess-k4", "closed", "sess-live-a", "2026-11-28T10:00:00+00:00")
    _child(root_dir, "sess-k5", "closed", "sess-live-b", "2026-09-22T10:00:00+00:00")
    commit(root_dir, "tree")


def _shown(snap: BrainSnapshot, claim: Claim, subtree: tuple[Claim, ...]) -> list[tuple[str, str, str | None]]:
    return [(c.sess_id, c.status, c.parent) for c in (claim, *subtree)]


@pytest.mark.parametrize("top", ["sess-live-a", "sess-k1", "sess-k3", "sess-old-4"])
def test_gate_status_reads_the_subtree_from_the_rows_not_the_whole_brain(root: Path, top: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(root)
    live(root)
    full = Brain(root, clock=lambda: T0, commit=False).snapshot()
    want = [(c.sess_id, c.status, c.parent) for c in (full.claim(top), *full.descendants(top)) if c is not None]
    brain = Brain(root, clock=lambda: T0, commit=False)
    scans = _count_full_scans(brain, monkeypatch)
    assert _shown(*brain.gates.status(top)) == want
    assert "claims" not in scans  # no full snapshot: the history's files were not listed
    if top == "sess-live-a":  # the children that finished two months ago are there
        assert {row[0] for row in want} == {"sess-live-a", "sess-k1", "sess-k2", "sess-k3", "sess-k4"}


def test_gate_status_falls_back_to_the_whole_brain_when_a_file_left_its_row(root: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(root)
    live(root)
    path = root / "claims" / "sess-k1.yml"  # an uncommitted edit moves sess-k1 under sess-live-b
    path.write_text(path.read_text(encoding="utf-8").replace("parent_satellite: sess-live-a",
                                                             "parent_satellite: sess-live-b"), encoding="utf-8")
    brain = Brain(root, clock=lambda: T0, commit=False)
    scans = _count_full_scans(brain, monkeypatch)
    assert [c.sess_id for c in brain.gates.status("sess-live-a")[2]] == ["sess-k4"]
    assert "claims" in scans  # read from the whole brain, which says what the file says


def test_the_cockpit_tree_counts_the_children_finished_before_its_window(root: Path) -> None:
    from brain_tui.tui.feed import RECENT_WINDOW
    from brain_tui.tui.widgets.satellite_tree import node_label, tree_roots

    _tree(root)
    live(root)
    brain = Brain(root, clock=lambda: T0, commit=False)
    recent = brain.audit.recent(RECENT_WINDOW)
    full = brain.snapshot()
    assert recent.claim("sess-k2") is None and recent.claim("sess-k5") is None  # not built: outside the window
    assert recent.older_children == {"sess-k1": (1, 1), "sess-live-b": (1, 0)}

    def counts(snap: BrainSnapshot, sess_id: str) -> str:
        claim = snap.claim(sess_id)
        assert claim is not None
        return node_label(claim, snap).plain.partition("[")[2]

    for sess_id in ("sess-live-a", "sess-live-b", "sess-k1"):
        assert counts(recent, sess_id) == counts(full, sess_id)
    assert counts(recent, "sess-live-b") == "1/1 ended]" and counts(recent, "sess-k1") == "1/2 ended · 1 failed]"
    assert "sess-live-b" in {c.sess_id for c in tree_roots(recent)}


def test_the_by_parent_index_follows_rows_that_change(root: Path) -> None:
    from brain_tui.core.records import finished

    _tree(root)
    brain, _found = live(root)
    assert brain.store.closed_last is not None
    finished._CHILDREN = None  # (an earlier test's brain may hold the very same rows)
    finished.closed_children(brain.store.closed_last)
    _child(root, "sess-k3", "closed", "sess-k1", "2026-11-29T08:30:00+00:00")  # a child closes
    (root / "claims" / "sess-k5.yml").unlink()  # another leaves the history
    commit(root, "close k3, drop k5")
    brain, _found = live(root)
    closed = brain.store.closed_last
    assert closed is not None
    kept = finished.closed_children(closed)
    assert finished._CHILDREN is not None and finished._CHILDREN.lines is None  # from the header's rows alone
    assert closed.extra and closed.dropped
    finished._CHILDREN = None
    fresh = finished.closed_children(closed)
    assert {k: sorted(v) for k, v in kept.items()} == {k: sorted(v) for k, v in fresh.items()}
    assert sorted(finished.children(kept, "sess-k1")) == [("sess-k2", "failed", "sess-k2.yml"),
                                                          ("sess-k3", "closed", "sess-k3.yml")]
    assert "sess-live-b" not in kept
