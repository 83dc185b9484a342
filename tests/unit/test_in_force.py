"""In force is what git holds (SPEC 22): an open claim that the work tree deletes or ends without a
commit keeps holding its scope, for the conflict check, a new claim, the hook and the index; once the
release is committed, the scope is free. In process, on small temporary git brains."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.model import BLOCKING_STATUSES
from brain_tui.core.rules.claims import OpenRequest
from brain_tui.core.rules.write_request import WriteSession

from .test_closed_set import T0, commit, root, write_claim

__all__ = ["root"]


def _brain(root_dir: Path) -> Brain:
    return Brain(root_dir, clock=lambda: T0, commit=False, instance="t@test")


def _holders(root_dir: Path, path: str) -> list[str]:
    brain = _brain(root_dir)
    return [c.sess_id for c in brain.check_scope(parse_scope(path, brain.root))]


def _let_go(root_dir: Path, how: str) -> None:
    path = root_dir / "claims" / "sess-live-a.yml"
    if how == "deleted":
        path.unlink()
    else:
        path.write_text(path.read_text(encoding="utf-8").replace("status: open", "status: closed")
                        + "closed_at: '2026-11-29T08:30:00+00:00'\n", encoding="utf-8")


@pytest.mark.parametrize("how", ["deleted", "closed"])
def test_an_uncommitted_release_of_an_open_claim_keeps_its_scope_held(root: Path, how: str) -> None:
    assert _holders(root, "live/a/x.py") == ["sess-live-a"]
    _let_go(root, how)
    assert _holders(root, "live/a/x.py") == ["sess-live-a"]  # HEAD still holds it open
    brain = _brain(root)
    live = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    assert [(c.sess_id, c.status) for c in live.claims if c.sess_id == "sess-live-a"] == [("sess-live-a", "open")]
    with pytest.raises(BsiError) as refused:
        brain.open_claim(OpenRequest(parse_scope("live/a/", brain.root), timedelta(hours=1), "t@test", story="b"))
    assert refused.value.exit_code == 10
    decision = brain.decide_write("live/a/x.py", WriteSession(agent_session="someone-else"))
    assert not decision.allowed and "sess-live-a" in decision.reason
    whole = _brain(root).snapshot()  # a read of every file (a decision whose chain leaves the live claims)
    assert [(c.sess_id, c.status) for c in whole.claims if c.sess_id == "sess-live-a"] == [("sess-live-a", "open")]
    commit(root, f"release by hand ({how})")
    assert _holders(root, "live/a/x.py") == []  # committed: in force, the scope is free


def test_an_uncommitted_new_claim_blocks_already(root: Path) -> None:
    write_claim(root, "sess-new", "open", "fresh/")
    assert _holders(root, "fresh/x.py") == ["sess-new"]


def test_outside_git_the_files_are_all_there_is(root: Path) -> None:
    shutil.rmtree(root / ".git")
    _let_go(root, "deleted")
    assert _holders(root, "live/a/x.py") == []


def _edit_scope(root_dir: Path, scope: str) -> None:
    path = root_dir / "claims" / "sess-live-a.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("scope: live/a/\n", f"scope: {scope}\n"),
                    encoding="utf-8")


def test_an_uncommitted_narrowing_of_a_live_claim_frees_nothing_until_committed(root: Path) -> None:
    _edit_scope(root, "live/a/kept/")
    assert _holders(root, "live/a/x.py") == ["sess-live-a"]  # HEAD still holds live/a/
    assert _holders(root, "live/a/kept/y.py") == ["sess-live-a"]
    brain = _brain(root)
    with pytest.raises(BsiError) as refused:
        brain.open_claim(OpenRequest(parse_scope("live/a/other/", brain.root), timedelta(hours=1), "t@test",
                                     story="b"))
    assert refused.value.exit_code == 10
    decision = brain.decide_write("live/a/x.py", WriteSession(agent_session="someone-else"))
    assert not decision.allowed and "sess-live-a" in decision.reason
    held = [c for c in brain.snapshot(only_statuses=BLOCKING_STATUSES).claims if c.sess_id == "sess-live-a"]
    assert [c.flags for c in held] == [("scope-in-head",)]
    whole = [c for c in _brain(root).snapshot().claims if c.sess_id == "sess-live-a"]
    assert [str(e.path) for e in whole[0].scope] == [str(e.path) for e in held[0].scope]
    commit(root, "narrowed")
    assert _holders(root, "live/a/x.py") == []  # committed: in force, the part let go is free
    assert _holders(root, "live/a/kept/y.py") == ["sess-live-a"]
    assert [c.flags for c in _brain(root).snapshot().claims if c.sess_id == "sess-live-a"] == [()]


def test_an_uncommitted_move_of_a_scope_blocks_the_new_one_and_the_old_one(root: Path) -> None:
    assert [c.flags for c in _brain(root).snapshot().claims if c.sess_id == "sess-live-a"] == [()]
    _edit_scope(root, "wide/")
    assert _holders(root, "wide/x.py") == ["sess-live-a"]  # the work tree's scope blocks
    assert _holders(root, "live/a/x.py") == ["sess-live-a"]  # and HEAD's still does


def test_a_live_claim_moved_to_another_file_and_narrowed_holds_heads_scope_too(root: Path) -> None:
    old = root / "claims" / "sess-live-a.yml"
    moved = root / "claims" / "moved-a.yml"
    moved.write_text(old.read_text(encoding="utf-8").replace("scope: live/a/\n", "scope: live/a/kept/\n"),
                     encoding="utf-8")
    old.unlink()
    assert _holders(root, "live/a/x.py") == ["sess-live-a"]  # HEAD's file still holds live/a/
    assert _holders(root, "live/a/kept/y.py") == ["sess-live-a"]
    held = [c for c in _brain(root).snapshot(only_statuses=BLOCKING_STATUSES).claims if c.sess_id == "sess-live-a"]
    assert [(c.path, c.flags) for c in held] == [("claims/moved-a.yml", ("scope-in-head",))]
    commit(root, "moved and narrowed")
    assert _holders(root, "live/a/x.py") == []


def test_a_read_of_every_file_holds_heads_copy_even_when_the_stored_set_is_older_than_head(root: Path) -> None:
    assert _holders(root, "live/a/x.py") == ["sess-live-a"]  # a live read stores the set of this commit
    (root / "notes.md").write_text("a commit the brain did not make\n", encoding="utf-8")
    commit(root, "by hand")  # HEAD moves on: the stored set is the previous commit's
    _let_go(root, "deleted")
    whole = _brain(root).snapshot()
    assert [(c.sess_id, c.status) for c in whole.claims if c.sess_id == "sess-live-a"] == [("sess-live-a", "open")]


def test_a_closed_claim_reopened_by_hand_stays_closed_for_every_read(root: Path) -> None:
    assert _holders(root, "hist/f3.py") == []  # the closed set is stored before the edit
    path = root / "claims" / "sess-old-3.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("status: closed", "status: open"), encoding="utf-8")
    assert _holders(root, "hist/f3.py") == []  # HEAD holds it closed: it holds nothing
    whole = _brain(root).snapshot()
    assert [c.status for c in whole.claims if c.sess_id == "sess-old-3"] == ["closed"]
    decision = _brain(root).decide_write("hist/f3.py", WriteSession(claims=("sess-old-3",)))
    assert not decision.allowed, decision  # its session holds no open claim: the reopen is not in force
    assert "closed" in decision.reason


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_files_blob_id_is_the_one_git_gives_it(tmp_path: Path, object_format: str) -> None:
    import subprocess

    from brain_tui.core.records.git_head import blob_id

    subprocess.run(["git", "init", "-q", f"--object-format={object_format}", str(tmp_path)], check=True)
    data = "sess_id: x\nscope: 'é/'\n".encode()
    given = subprocess.run(["git", "hash-object", "--stdin"], cwd=tmp_path, input=data, capture_output=True,
                           check=True).stdout.decode().strip()
    assert blob_id(data, given) == given


@pytest.mark.parametrize("how", ["deleted", "closed"])
def test_a_claim_held_from_head_can_still_be_closed_by_bsi(root: Path, how: str) -> None:
    from brain_tui.core.rules.claims import CloseRequest

    _let_go(root, how)
    brain = Brain(root, clock=lambda: T0, instance="t@test")  # its writes commit
    outcome = brain.close_claim("sess-live-a", CloseRequest(status="ok"))
    assert outcome.status == "closed"
    assert _holders(root, "live/a/x.py") == []  # the close is committed: in force
    text = (root / "claims" / "sess-live-a.yml").read_text(encoding="utf-8")
    assert "status: closed" in text and "scope: live/a/" in text


def _edit(root_dir: Path, sess_id: str, old: str, new: str) -> None:
    path = root_dir / "claims" / f"{sess_id}.yml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _status_seen(root_dir: Path, sess_id: str) -> list[tuple[str, str]]:
    """The claim's status in a live read and in a read of every file."""
    live = _brain(root_dir).snapshot(only_statuses=BLOCKING_STATUSES)
    whole = _brain(root_dir).snapshot()
    return [(c.sess_id, str(c.status)) for snap in (live, whole) for c in snap.claims if c.sess_id == sess_id]


@pytest.mark.parametrize("held", ["paused", "waiting_human", "stale"])
def test_an_uncommitted_lift_of_a_pause_or_gate_is_not_in_force_until_committed(root: Path, held: str) -> None:
    if held != "paused":  # sess-live-b is paused in HEAD; make it the status under test and commit it
        _edit(root, "sess-live-b", "status: paused", f"status: {held}")
        commit(root, held)
    _edit(root, "sess-live-b", f"status: {held}", "status: open")  # a hand edit, not committed
    assert _status_seen(root, "sess-live-b") == [("sess-live-b", held)] * 2
    decision = _brain(root).decide_write("live/b/x.py", WriteSession(claims=("sess-live-b",)))
    assert not decision.allowed, decision  # the pause or gate HEAD holds is not lifted by the work tree
    held_claim = [c for c in _brain(root).snapshot().claims if c.sess_id == "sess-live-b"][0]
    assert "status-in-head" in held_claim.flags
    commit(root, "lifted by hand")  # committed: in force
    assert _status_seen(root, "sess-live-b") == [("sess-live-b", "open")] * 2
    assert _brain(root).decide_write("live/b/x.py", WriteSession(claims=("sess-live-b",))).allowed


def test_an_uncommitted_lift_keeps_the_work_trees_wider_scope_blocking(root: Path) -> None:
    _edit(root, "sess-live-b", "status: paused\n", "status: open\n")
    _edit(root, "sess-live-b", "scope: live/b/\n", "scope: live/b/ wide/\n")
    assert _holders(root, "wide/x.py") == ["sess-live-b"]
    assert _holders(root, "live/b/x.py") == ["sess-live-b"]
    assert _status_seen(root, "sess-live-b") == [("sess-live-b", "paused")] * 2


def test_an_uncommitted_pause_or_gate_is_in_force_at_once(root: Path) -> None:
    for held in ("paused", "waiting_human"):
        _edit(root, "sess-live-a", "status: open", f"status: {held}")  # stricter: the work tree's stands
        assert _status_seen(root, "sess-live-a") == [("sess-live-a", held)] * 2
        assert not _brain(root).decide_write("live/a/x.py", WriteSession(claims=("sess-live-a",))).allowed
        _edit(root, "sess-live-a", f"status: {held}", "status: open")
    assert _brain(root).decide_write("live/a/x.py", WriteSession(claims=("sess-live-a",))).allowed


def test_a_commit_that_lifts_a_pause_the_work_tree_still_holds_lifts_nothing(root: Path) -> None:
    # HEAD moved by git alone (plumbing, an agent's shell may run it): the work tree's claim files are fenced
    # from agents, so a lift in force needs both; the work tree's pause stands
    path = root / "claims" / "sess-live-b.yml"
    paused = path.read_text(encoding="utf-8")
    path.write_text(paused.replace("status: paused", "status: open"), encoding="utf-8")
    commit(root, "a lift made in git only")
    path.write_text(paused, encoding="utf-8")
    assert _status_seen(root, "sess-live-b") == [("sess-live-b", "paused")] * 2
    assert not _brain(root).decide_write("live/b/x.py", WriteSession(claims=("sess-live-b",))).allowed


def test_an_uncommitted_renew_or_later_opening_is_not_in_force_until_committed(root: Path) -> None:
    late = T0 + timedelta(hours=3, minutes=30)  # past HEAD's expiry (12:00), within the work tree's
    _edit(root, "sess-live-a", "expires_at: '2026-11-29T12:00:00+00:00'", "expires_at: '2026-11-29T15:00:00+00:00'")
    _edit(root, "sess-live-a", "opened_at: '2026-11-29T08:00:00+00:00'", "opened_at: '2026-11-29T09:00:00+00:00'")
    brain = Brain(root, clock=lambda: late, commit=False, instance="t@test")
    decision = brain.decide_write("live/a/x.py", WriteSession(claims=("sess-live-a",)))
    assert not decision.allowed and "stale" in decision.reason, decision
    claim = [c for c in brain.snapshot().claims if c.sess_id == "sess-live-a"][0]
    assert claim.expires_at is not None and claim.expires_at.hour == 12
    commit(root, "renewed by hand")
    brain = Brain(root, clock=lambda: late, commit=False, instance="t@test")
    assert brain.decide_write("live/a/x.py", WriteSession(claims=("sess-live-a",))).allowed


def test_a_human_verb_on_a_claim_lifted_without_a_commit_acts_on_heads_copy(root: Path) -> None:
    _edit(root, "sess-live-b", "status: paused", "status: open")  # a hand lift, not committed
    brain = Brain(root, clock=lambda: T0, instance="t@test")  # its writes commit
    brain.gates.resume("sess-live-b", by="human")  # the pause in force is HEAD's: a resume lifts it
    text = (root / "claims" / "sess-live-b.yml").read_text(encoding="utf-8")
    assert "status: open" in text and "RESUMED" in text
    assert _status_seen(root, "sess-live-b") == [("sess-live-b", "open")] * 2
    assert [c.flags for c in _brain(root).snapshot().claims if c.sess_id == "sess-live-b"] == [()]


def _commit_in_git_only(root_dir: Path, sess_id: str, old: str, new: str) -> None:
    """A commit that changes a claim file in git's objects alone, as git's plumbing in an agent's shell can."""
    import subprocess

    rel = f"claims/{sess_id}.yml"
    text = (root_dir / rel).read_text(encoding="utf-8")
    assert old in text
    oid = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root_dir, input=text.replace(old, new),
                         capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run(["git", "update-index", "--cacheinfo", f"100644,{oid},{rel}"], cwd=root_dir, check=True)
    subprocess.run(["git", "commit", "-qm", "made in git alone"], cwd=root_dir, check=True)
    assert (root_dir / rel).read_text(encoding="utf-8") == text  # the work tree's file untouched


def test_a_close_made_in_git_alone_lets_nothing_go_and_waits_for_a_human(root: Path) -> None:
    assert _holders(root, "live/a/x.py") == ["sess-live-a"]  # the set is stored for HEAD: the commit is caught up
    _commit_in_git_only(root, "sess-live-a", "status: open", "status: closed\nclosed_at: '2026-11-29T08:30:00+00:00'")
    assert _holders(root, "live/a/x.py") == ["sess-live-a"]
    brain = _brain(root)
    with pytest.raises(BsiError) as refused:
        brain.open_claim(OpenRequest(parse_scope("live/a/", brain.root), timedelta(hours=1), "t@test", story="b"))
    assert refused.value.exit_code == 10
    assert not brain.decide_write("live/a/x.py", WriteSession(agent_session="someone-else")).allowed
    assert _status_seen(root, "sess-live-a") == [("sess-live-a", "stale")] * 2  # its session holds it no more
    mine = brain.decide_write("live/a/x.py", WriteSession(claims=("sess-live-a",)))
    assert not mine.allowed and "stale" in mine.reason, mine
    held = [c for c in _brain(root).snapshot().claims if c.sess_id == "sess-live-a"][0]
    assert "ended-in-head" in held.flags
    Brain(root, clock=lambda: T0, instance="t@test").release_claim("sess-live-a", "ended in git", by="human")
    assert _holders(root, "live/a/x.py") == []  # a human released it: committed, the scope is free
    assert _status_seen(root, "sess-live-a") == [("sess-live-a", "released")]  # in the history only


def test_a_committed_write_after_an_uncommitted_one_leaves_heads_index_in_step(root: Path) -> None:
    from .test_closed_set import git

    Brain(root, clock=lambda: T0, instance="t@test").gates.pause("sess-live-a", by="human")
    Brain(root, clock=lambda: T0, commit=False, instance="t@test").gates.resume("sess-live-a", by="human")
    assert git(root, "status", "--porcelain", "--", "BRAIN-INDEX.md").strip()  # rendered, not committed
    Brain(root, clock=lambda: T0, instance="t@test").gates.resume("sess-live-a", by="human")  # HEAD's pause lifted
    assert git(root, "status", "--porcelain", "--", "claims", "BRAIN-INDEX.md") == ""
    assert git(root, "show", "HEAD:BRAIN-INDEX.md") == (root / "BRAIN-INDEX.md").read_text(encoding="utf-8")


def test_a_close_made_in_git_alone_before_any_read_lets_nothing_go_either(root: Path) -> None:
    # no closed set stored yet (a fresh clone, `.brain/` gone, a new version of the set's code): it is built
    # from HEAD's tree, and the work tree's live copy still keeps the file out of it
    shutil.rmtree(root / ".brain", ignore_errors=True)
    _commit_in_git_only(root, "sess-live-a", "status: open", "status: closed\nclosed_at: '2026-11-29T08:30:00+00:00'")
    assert not (root / ".brain").exists()
    assert _holders(root, "live/a/x.py") == ["sess-live-a"]
    assert _status_seen(root, "sess-live-a") == [("sess-live-a", "stale")] * 2


def test_a_closed_set_built_after_a_hand_reopen_holds_the_file_as_stale(root: Path) -> None:
    # HEAD terminal, the work tree live: a reopen by hand and a close made in git alone look the same to a set
    # built from HEAD's tree; it takes the side that holds (nothing granted over it, its session held back)
    path = root / "claims" / "sess-old-3.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("status: closed", "status: open"), encoding="utf-8")
    assert _holders(root, "hist/f3.py") == ["sess-old-3"]
    assert not _brain(root).decide_write("hist/f3.py", WriteSession(claims=("sess-old-3",))).allowed
