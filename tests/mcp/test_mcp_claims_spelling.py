"""A long-lived `bsi mcp` sees a claim file committed under another spelling of ``claims/`` as a fresh `bsi` does.

``Claims/x.yml`` is ``claims/x.yml`` on the laptop; on a file system that tells them apart it is a corrupt row that
holds its scope (`records.folder_variants`). A server that answered from memory while a file is added there, or
a hook index that vouched for the brain as it was, would grant its scope a second time (SPEC 5.3, 22).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.rules import blocking_claims
from brain_tui.core.rules.blocking_claims import BlockingClaims
from brain_tui.core.sessions import hook_index
from brain_tui.mcp import tools
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, clean_env, ok, run_bsi

CLAIM = ("sess_id: sess-20261129-0930-up\ntype: solo\ninstance: x@laptop\nscope: wiki/\nstatus: open\n"
         "opened_at: '2026-11-29T09:30:00Z'\nttl: 2h\nexpires_at: '2026-11-29T11:30:00Z'\n")


@pytest.mark.parametrize("watch", [True, False])
def test_a_claim_added_under_claims_spelled_otherwise_is_seen_by_a_running_server(
        brain: Path, watch: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not watch:
        monkeypatch.setattr(blocking_claims, "RACY_NS", 0)
    (brain / "Claims").mkdir()
    (brain / "Claims" / "keep.txt").write_text("", encoding="utf-8")
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    s.brain.__dict__["blocking"] = BlockingClaims(s.brain, watch=watch)
    assert tools.check_scope(s, ["wiki/a.md"])["conflicts"] == []
    assert tools.check_scope(s, ["wiki/a.md"])["conflicts"] == []  # answered again, the folder unchanged
    (brain / "Claims" / "sess-20261129-0930-up.yml").write_text(CLAIM, encoding="utf-8")  # HEAD unmoved
    conflicts = tools.check_scope(s, ["wiki/a.md"])["conflicts"]
    assert [c["status"] for c in conflicts] == ["corrupt"]


def test_the_hook_index_is_not_vouched_for_once_a_claim_lands_under_claims_spelled_otherwise(brain: Path) -> None:
    (brain / "Claims").mkdir()
    (brain / "Claims" / "keep.txt").write_text("", encoding="utf-8")
    ok(run_bsi("claim", "open", "--scope", "notes/", brain=brain))
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    index = hook_index.build(brain, s.brain.snapshot(), s.brain.config, read_at=0)
    assert "Claims" in index["folders"]
    before = dict(index["folders"])
    (brain / "Claims" / "sess-20261129-0930-up.yml").write_text(CLAIM, encoding="utf-8")
    assert hook_index._dir_key(str(brain / "Claims")) != before["Claims"]

