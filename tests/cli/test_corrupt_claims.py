"""A claim file that does not read fails closed, and `bsi claim repair` restores it (SPEC 22, 13, 19).

The natural case is a hand merge: git conflict markers in A's file. Before, `check-scope` said free, a
second claim on the scope was granted, and once repaired two claims were open on it.
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import clean_env, git, ok, run_bsi
from tests.conftest import claim_file, load_claim, tree_bytes


def hand_merge(path: Path, ours: str, theirs: str) -> None:
    """Leave `path` as a hand merge leaves it: its status and scope lines inside conflict markers."""
    lines = [line for line in path.read_text().splitlines(keepends=True)
             if not line.startswith(("scope:", "status:"))]
    lines[1:1] = ["<<<<<<< HEAD\n", f"scope: {ours}\n", "status: open\n", "=======\n", f"scope: {theirs}\n",
                  "status: paused\n", ">>>>>>> laptop\n"]
    path.write_text("".join(lines))


def test_a_hand_merged_claim_file_still_blocks_its_scope_and_is_repaired(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    committed = claim_file(brain, holder).read_bytes()
    hand_merge(claim_file(brain, holder), "docs/", "docs/")
    check = run_bsi("--json", "check-scope", "docs/x.md", brain=brain)
    assert check.code == 10, check
    assert check.json()["conflicts"] == [{"sess_id": holder, "instance": "", "scope": "docs/", "status": "corrupt",
                                          "overlap": "parent/child", "path": f"claims/{holder}.yml"}]
    before = tree_bytes(brain)
    second = run_bsi("claim", "open", "--scope", "docs/", "--slug", "bbbb", brain=brain)
    assert second.code == 10 and f"claims/{holder}.yml" in second.err, second
    assert f"bsi claim repair {holder}" in second.err
    assert tree_bytes(brain) == before
    listed = run_bsi("claim", "list", brain=brain)
    assert f"until repaired it holds docs/ (`bsi claim repair {holder}`)" in listed.err, listed
    repaired = run_bsi("--json", "claim", "repair", holder, brain=brain)
    assert repaired.code == 0, repaired
    assert repaired.json()["repaired"] is True and repaired.json()["status"] == "open"
    assert claim_file(brain, holder).read_bytes() == committed
    listed = run_bsi("--json", "claim", "list", brain=brain).json()
    assert listed["corrupt"] == [] and [c["sess_id"] for c in listed["claims"]] == [holder]
    assert run_bsi("claim", "open", "--scope", "docs/", "--slug", "bbbb", brain=brain).code == 10
    again = run_bsi("claim", "repair", holder, brain=brain)
    assert again.code == 0 and "nothing to repair" in again.out


def test_another_claims_write_or_lock_into_what_an_unreadable_file_may_hold_is_refused(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    writer = ok(run_bsi("claim", "open", "--scope", "shared/", "--slug", "writer", brain=brain))
    hand_merge(claim_file(brain, holder), "docs/", "shared/x.md")
    refused = run_bsi("--json", "preflight", "check", writer, "shared/x.md", brain=brain)
    assert refused.code == 1, refused
    assert f"claims/{holder}.yml" in refused.err and f"bsi claim repair {holder}" in refused.err
    assert run_bsi("preflight", "check", writer, "shared/y.md", brain=brain).code == 0
    locked = run_bsi("lock", "acquire", "shared/x.md", writer, brain=brain)
    assert locked.code == 1 and f"claims/{holder}.yml" in locked.err, locked
    assert not list((brain / "locks").glob("*.yml"))
    ok(run_bsi("lock", "acquire", "shared/y.md", writer, brain=brain))


def test_a_committed_hand_merge_is_repaired_from_the_last_version_that_reads(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    hand_merge(claim_file(brain, holder), "docs/", "docs/")
    git(brain, "commit", "-qam", "hand merge")
    repaired = run_bsi("claim", "repair", f"claims/{holder}.yml", brain=brain)
    assert repaired.code == 0, repaired
    assert load_claim(brain, holder)["status"] == "open"
    assert git(brain, "log", "-1", "--format=%s").strip() == f"bsi: repair claim {holder}"
    assert git(brain, "status", "--porcelain", "--", "claims").strip() == ""


def test_repair_is_refused_when_no_committed_version_reads(brain: Path) -> None:
    bad = brain / "claims" / "sess-20261129-0900-never.yml"
    bad.write_text("scope: a/\nstatus: [open\n")
    before = bad.read_bytes()
    refused = run_bsi("claim", "repair", "sess-20261129-0900-never", brain=brain)
    assert refused.code == 65 and "no committed version" in refused.err, refused
    assert bad.read_bytes() == before
    assert run_bsi("claim", "repair", "sess-20261129-0900-none", brain=brain).code == 66
    assert run_bsi("claim", "repair", "notes/x.yml", brain=brain).code == 65


def test_repair_never_brings_back_a_scope_another_claim_took_meanwhile(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    hand_merge(claim_file(brain, holder), "tiny.md", "tiny.md")  # the readable scope is tiny, on both sides
    git(brain, "commit", "-qam", "hand merge")
    other = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "other", brain=brain))
    before = tree_bytes(brain)
    refused = run_bsi("--json", "claim", "repair", holder, brain=brain)
    assert refused.code == 10 and other in refused.err, refused
    assert tree_bytes(brain) == before


def test_repair_is_a_humans_verb(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    hand_merge(claim_file(brain, holder), "docs/", "docs/")
    before = tree_bytes(brain)
    refused = run_bsi("claim", "repair", holder, brain=brain, env=clean_env(CLAUDECODE="1"))
    assert refused.code == 77 and f"`bsi claim repair {holder}`" in refused.err, refused
    assert tree_bytes(brain) == before


def test_a_child_under_a_corrupt_parent_is_refused_naming_the_parent_and_its_repair(brain: Path) -> None:
    parent = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    hand_merge(claim_file(brain, parent), "docs/", "docs/")
    before = tree_bytes(brain)
    for args in (("claim", "open", "--scope", "docs/a.md", "--parent", parent, "--slug", "kid"),
                 ("check-scope", "docs/a.md", "--parent", parent)):
        child = run_bsi(*args, brain=brain)
        assert child.code == 65, child
        assert "not found" not in child.err and f"parent claim {parent} cannot be read" in child.err
        assert f"claims/{parent}.yml" in child.err and f"`bsi claim repair {parent}`" in child.err
    assert tree_bytes(brain) == before
    missing = run_bsi("claim", "open", "--scope", "x/", "--parent", "sess-20261129-0900-nope", brain=brain)
    assert missing.code == 66 and "not found" in missing.err


def test_a_work_tree_only_spoil_also_holds_the_scope_head_gives_the_claim(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    hand_merge(claim_file(brain, holder), "docs/guide.md", "docs/guide.md")  # not committed: HEAD says docs/
    other = run_bsi("--json", "check-scope", "docs/other.md", brain=brain)
    assert other.code == 10, other
    assert [c["sess_id"] for c in other.json()["conflicts"]] == [holder]
    assert run_bsi("check-scope", "notes.md", brain=brain).code == 0
    git(brain, "commit", "-qam", "the hand merge, committed")  # now HEAD itself does not read
    assert run_bsi("check-scope", "docs/other.md", brain=brain).code == 0
    assert run_bsi("check-scope", "docs/guide.md", brain=brain).code == 10
