"""A claim file that does not read fails closed (SPEC 22, 13): it blocks what it may hold, in process."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.errors import ConflictError, InvalidData, PreflightRefused
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.unreadable import held_by_bytes
from brain_tui.core.rules import preflight
from brain_tui.core.rules.conflicts import find_conflicts
from tests.bsi import NOW
from tests.paths import LEGACY

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)

HAND_MERGE = """sess_id: sess-20261129-0900-aaaa
type: solo
<<<<<<< HEAD
scope: docs/
status: open
=======
scope:
  - docs/api.md
  - src/
status: paused
>>>>>>> laptop
opened_at: 2026-11-29T09:00:00+00:00
"""


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    for folder in ("claims", "signals", "locks", "breath"):
        (tmp_path / folder).mkdir()
    return Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")


def request(scope: str, parent: str | None = None) -> OpenRequest:
    return OpenRequest(scope=parse_scope(scope), ttl=timedelta(hours=2), instance="t@test", parent=parent)


def held(text: str | bytes, name: str = "claims/sess-x.yml") -> list[str]:
    raw = text.encode() if isinstance(text, str) else text
    return sorted(str(entry) for entry in held_by_bytes(raw, name, "/nonexistent", UTC))


def conflicts_of(brain: Brain, scope: str) -> list[tuple[str, str]]:
    return [(c.sess_id, c.status) for c in find_conflicts(brain.snapshot(), parse_scope(scope))]


def test_both_sides_of_conflict_markers_are_held() -> None:
    assert held(HAND_MERGE) == ["docs/", "docs/api.md", "src/"]


def test_a_tiny_readable_side_never_hides_a_side_that_held_more() -> None:
    tiny_and_unreadable = HAND_MERGE.replace("  - docs/api.md\n  - src/\n", "  - [unclosed\n")
    assert held(tiny_and_unreadable) == ["*"]
    no_scope_on_one_side = HAND_MERGE.replace("scope:\n  - docs/api.md\n  - src/\n", "")
    assert held(no_scope_on_one_side) == ["*"]


def test_a_scope_beside_a_fault_is_read_from_its_lines() -> None:
    assert held('scope: a/\nstory_angle: "say "hi""\nstatus: open\n') == ["a/"]
    assert held("scope: [a/, b.md]\nx: [\n") == ["a/", "b.md"]
    assert held("scope: a/\nscope: b/\n") == ["a/", "b/"]  # a duplicate key: both are held


@pytest.mark.parametrize("text", [
    "status: open\nx: [\n",            # no scope to read
    "scope: *anchor\nx: [\n",          # a scope that does not read alone
    "scope: ../etc\nx: [\n",           # not a scope
    "a" * (64 * 1024 + 1),             # over 64 KiB: not read at all
    "",                                # empty (a truncated file)
])
def test_without_a_readable_scope_the_whole_brain_is_held(text: str) -> None:
    assert held(text) == ["*"]


def test_what_plainly_holds_nothing_blocks_nothing() -> None:
    assert held("x: [\n", "claims/gate-ack-deploy.yml") == []
    assert held("workflow_id: deploy\naction: approve\n") == []
    assert held("sess_id: bad id\nscope: a/\nstatus: closed\n") == []
    assert held("sess_id: bad id\nscope: a/\nstatus: open\n") == ["a/"]


@pytest.mark.parametrize("text", [
    "status: open\nopened_at: 2026-11-29T09:00:00+00:00\n",   # ID and scope edited away
    "type: solo\nstatus: paused\npaused_by: sess-20261129-0800-pilot\n",
    "expires_at: 2026-11-29T11:00:00+00:00\n",
    "gate_history: []\n",
    "Sess_id: sess-20261129-0900-gone\nScope: src/\nStatus: open\nExpires_at: 2026-11-29T11:00:00+00:00\n",
    "SCOPE: src/\n' status': open\n",
])
def test_a_claim_that_lost_its_id_and_scope_holds_the_whole_brain(brain: Brain, text: str) -> None:
    (brain.root / "claims" / "sess-20261129-0900-gone.yml").write_text(text)
    assert held(text) == ["*"]
    assert conflicts_of(brain, "other/x.md") == [("sess-20261129-0900-gone", "corrupt")]
    with pytest.raises(ConflictError):
        brain.open_claim(request("other/"))


def test_a_finished_claim_that_lost_its_id_and_scope_holds_nothing(brain: Brain) -> None:
    text = "status: closed\nclosed_at: 2026-11-29T09:30:00+00:00\n"
    (brain.root / "claims" / "sess-20261129-0900-done.yml").write_text(text)
    assert held(text) == []
    assert conflicts_of(brain, "*") == []


def test_a_hand_merged_claim_blocks_claims_on_what_it_may_hold(brain: Brain) -> None:
    (brain.root / "claims" / "sess-20261129-0900-aaaa.yml").write_text(HAND_MERGE)
    for scope in ("docs/x.md", "src/app.py", "*"):
        assert conflicts_of(brain, scope) == [("sess-20261129-0900-aaaa", "corrupt")], scope
    assert conflicts_of(brain, "other/") == []
    with pytest.raises(ConflictError) as refused:
        brain.open_claim(request("src/"))
    assert "claims/sess-20261129-0900-aaaa.yml" in refused.value.message
    assert "bsi claim repair sess-20261129-0900-aaaa" in refused.value.message
    assert refused.value.payload["conflicts"][0]["status"] == "corrupt"
    assert not [p for p in (brain.root / "claims").iterdir() if p.name != "sess-20261129-0900-aaaa.yml"]


def test_an_unreadable_parent_is_no_ancestor_to_delegate_from(brain: Brain) -> None:
    pilot = brain.open_claim(request("work/"))
    path = brain.root / "claims" / f"{pilot}.yml"
    path.write_text(path.read_text() + "gate_history: [\n")
    assert conflicts_of(brain, "work/x.md") == [(pilot, "corrupt")]
    delegated = find_conflicts(brain.snapshot(), parse_scope("work/x.md"), parent=pilot)
    assert [(c.sess_id, c.status) for c in delegated] == [(pilot, "corrupt")]
    with pytest.raises(InvalidData, match="bsi claim repair"):  # named, with its repair: not "not found"
        brain.open_claim(request("work/x.md", parent=pilot))


def test_a_symlink_in_claims_holds_the_whole_brain_and_another_claims_write_is_refused(brain: Brain,
                                                                                         tmp_path: Path) -> None:
    writer = brain.open_claim(request("src/"))
    assert preflight.check(brain.snapshot(), brain.config, writer, "src/a.py") == 0
    (brain.root / "claims" / "sess-20261129-0900-link.yml").symlink_to(tmp_path / "elsewhere.yml")
    assert conflicts_of(brain, "zzz.md") == [("sess-20261129-0900-link", "corrupt")]
    with pytest.raises(PreflightRefused) as refused:
        preflight.check(brain.snapshot(), brain.config, writer, "src/a.py")
    assert refused.value.exit_code == 1 and "claims/sess-20261129-0900-link.yml" in refused.value.message


def test_a_corrupt_gate_ack_file_blocks_nothing(brain: Brain) -> None:
    (brain.root / "claims" / "gate-ack-deploy-vps.yml").write_text("workflow_id: [\n")
    assert [bad.path for bad in brain.snapshot().corrupt] == ["claims/gate-ack-deploy-vps.yml"]
    assert conflicts_of(brain, "*") == []
    brain.open_claim(request("*"))


def test_the_legacy_brain_loads_and_its_corrupt_claim_holds_only_its_scope(tmp_path: Path) -> None:
    root = tmp_path / "legacy"
    shutil.copytree(LEGACY, root)
    legacy = Brain(root, clock=lambda: datetime(2026, 3, 16, 22, 0, tzinfo=UTC), commit=False, instance="t@test")
    snapshot = legacy.snapshot()
    assert len(snapshot.claims) == 8
    assert [(bad.path, [str(e) for e in bad.holds]) for bad in snapshot.unreadable_claims] == [
        ("claims/sess-20260316-2230-be-tests.yml", ["brain-engine/tests/"])]
    assert not find_conflicts(snapshot, parse_scope("profil/"))


def test_the_demo_brain_has_no_corrupt_row(demo_brain: Path) -> None:
    """The demo brain (`bsi demo` at tests/bsi.py's NOW, built once a session: tests/conftest.py) reads, at the
    time it was built, without one corrupt file."""
    built_at = datetime.fromisoformat(NOW)
    assert Brain(demo_brain, clock=lambda: built_at, commit=False).snapshot().corrupt == ()


def test_a_hostile_file_name_is_shown_inert(brain: Brain) -> None:
    name = "claims/\x1b[2J\u202eevil\n.yml"
    (brain.root / name).write_text("scope: [a/\n")
    (found,) = find_conflicts(brain.snapshot(), parse_scope("a/x.md"))
    assert found.status == "corrupt" and found.path == name
    for text in (found.sess_id, found.describe()):
        assert not any(ch in text for ch in ("\x1b", "\u202e", "\n")), text
    assert "claims/%1B%5B2J%E2%80%AEevil%0A.yml" in found.describe()


def test_a_diff3_merge_holds_the_base_side_too_and_crlf_lines_read() -> None:
    diff3 = ("sess_id: sess-x\r\n<<<<<<< ours\r\nscope: a/\r\n||||||| base\r\nscope: b/\r\n=======\r\n"
             "scope: c.md\r\n>>>>>>> theirs\r\nstatus: open\r\n")
    assert held(diff3) == ["a/", "b/", "c.md"]
