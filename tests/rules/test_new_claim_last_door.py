"""Two sessions never both hold one scope, whatever built the write (SPEC 5.3, 22).

`Brain.open_claim` checks conflicts before it stages the file; below it, a caller of the library can stage a claim
file itself (`ChangeSet.new_claim`) and hand it to `write_path.apply`. The last door checks every new claim file
against the brain the write was decided on: one that meets a blocking claim is refused (exit 10), nothing written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml.comments import CommentedMap

from brain_tui.core import write_path
from brain_tui.core.brain import Brain
from brain_tui.core.errors import ConflictError
from brain_tui.core.records.changes import ChangeSet
from tests.bsi import NOW
from tests.conftest import load_claim, tree_bytes
from tests.rules.facade import open_in


def _forged(sess_id: str, scope: str, **fields: str) -> CommentedMap:
    doc = CommentedMap()
    doc.update({"sess_id": sess_id, "type": "solo", "instance": "brain@vm", "scope": scope, "story_angle": "",
                "status": "open", "opened_at": NOW, "ttl": "2h", "expires_at": "2026-11-29T12:00:00+00:00", **fields})
    return doc


def _apply(brain: Path, sess_id: str, scope: str, **fields: str) -> None:
    b = Brain(brain, now=NOW)
    cs = ChangeSet(b.snapshot(), f"bsi: open claim {sess_id}")
    cs.new_claim(f"claims/{sess_id}.yml", _forged(sess_id, scope, **fields))
    write_path.apply(b, cs)


def test_a_claim_file_staged_below_the_facade_that_meets_a_holder_is_refused(brain: Path) -> None:
    holder = open_in(brain, "src/", story="first")
    before = tree_bytes(brain)
    with pytest.raises(ConflictError) as refused:
        _apply(brain, "sess-20261129-1000-forged", "src/app.py")
    assert refused.value.exit_code == 10 and holder in refused.value.message
    assert [c["sess_id"] for c in refused.value.payload["conflicts"]] == [holder]
    assert tree_bytes(brain) == before


def test_a_free_scope_a_child_under_its_parent_and_a_search_still_go_through(brain: Path) -> None:
    parent = open_in(brain, "src/", story="pilot", type="pilote")
    _apply(brain, "sess-20261129-1000-free", "docs/")
    _apply(brain, "sess-20261129-1001-child", "src/app.py", type="satellite", parent_satellite=parent)
    _apply(brain, "sess-20261129-1002-scan", "src/", satellite_type="search")
    for sess in ("sess-20261129-1000-free", "sess-20261129-1001-child", "sess-20261129-1002-scan"):
        assert load_claim(brain, sess)["status"] == "open"


@pytest.mark.parametrize("edit", ["scope", "search", "parent"])
def test_an_edit_that_makes_a_live_claim_hold_what_another_holds_is_refused(brain: Path, edit: str) -> None:
    # no verb changes what a claim holds: an edit below the facade that widens its scope, turns a search claim into
    # one that blocks, or hangs it under the holder would make two sessions hold one file
    holder = open_in(brain, "src/", story="first")
    if edit == "search":
        mine = open_in(brain, "src/", story="mine", slug="mine", satellite_type="search")
        fields = {"satellite_type": "code"}
    else:
        mine = open_in(brain, "docs/", story="mine", slug="mine")
        fields = {"scope": "src/app.py", **({"parent_satellite": holder} if edit == "parent" else {})}
    before = tree_bytes(brain)
    b = Brain(brain, now=NOW)
    cs = ChangeSet(b.snapshot(), f"bsi: edit {mine}")
    cs.update_claim(mine, fields)
    with pytest.raises(ConflictError) as refused:
        write_path.apply(b, cs)
    assert [c["sess_id"] for c in refused.value.payload["conflicts"]] == [holder]
    assert tree_bytes(brain) == before


def test_a_second_file_under_a_claims_id_that_meets_a_holder_is_refused(brain: Path) -> None:
    holder = open_in(brain, "src/", story="first")
    mine = open_in(brain, "docs/", story="mine", slug="mine")
    before = tree_bytes(brain)
    b = Brain(brain, now=NOW)
    cs = ChangeSet(b.snapshot(), "bsi: forged")
    cs.new_claim("claims/sess-20261129-0900-aaaa.yml", _forged(mine, "src/app.py"))
    with pytest.raises(ConflictError):
        write_path.apply(b, cs)
    assert tree_bytes(brain) == before and holder


def test_an_edit_that_keeps_what_a_claim_holds_goes_through(brain: Path) -> None:
    open_in(brain, "src/", story="first")
    mine = open_in(brain, "docs/", story="mine", slug="mine")
    b = Brain(brain, now=NOW)
    cs = ChangeSet(b.snapshot(), f"bsi: edit {mine}")
    cs.update_claim(mine, {"story_angle": "renamed", "scope": ["docs/"]})
    write_path.apply(b, cs)
    assert load_claim(brain, mine)["story_angle"] == "renamed"
