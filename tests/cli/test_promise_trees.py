"""Promise 1 (two sessions never both hold one scope) against hand-edited claim files and claim trees.

Every test drives `bsi` in a subprocess on a fresh brain, at pinned times, with hand-made files committed as a
human or another tool would commit them.
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import NOW, git, run_bsi


def hand_claim(brain: Path, name: str, sess_id: str, scope: str, status: str = "open") -> None:
    """Write and commit a claim file by hand under `name` in ``claims/``."""
    (brain / "claims" / name).write_text(
        f"sess_id: {sess_id}\ntype: solo\ninstance: x@laptop\nscope: {scope}\nstatus: {status}\n"
        "opened_at: '2026-11-29T09:30:00Z'\nttl: 2h\nexpires_at: '2026-11-29T11:30:00Z'\n", encoding="utf-8")
    git(brain, "add", "-A")
    git(brain, "commit", "-qm", f"hand: {name}")


def refused(brain: Path, scope: str) -> bool:
    """True when `check-scope` says a claim on `scope` would conflict (exit 10)."""
    run = run_bsi("check-scope", scope, brain=brain, now=NOW)
    assert run.code in (0, 10), run
    return run.code == 10


def test_two_files_with_one_session_id_and_no_own_file_both_hold_their_scopes(brain: Path) -> None:
    # A legacy claim file not named after its ID (`init.yml` holds `sess-init-cold-start`), then a second
    # file naming the same ID: neither is `claims/<ID>.yml`, so which one is the claim is not the product's
    # to guess. A name that sorts first must not take the claim's scope away from the other file.
    hand_claim(brain, "init.yml", "sess-init-cold-start", "wiki/")
    assert refused(brain, "wiki/page.md")
    hand_claim(brain, "aaa.yml", "sess-init-cold-start", "notes/")
    assert refused(brain, "wiki/page.md")
    assert refused(brain, "notes/x.md")
    assert run_bsi("claim", "open", "--scope", "wiki/page.md", brain=brain, now=NOW).code == 10


def test_a_closed_duplicate_without_an_own_file_holds_nothing(brain: Path) -> None:
    hand_claim(brain, "init.yml", "sess-init-cold-start", "wiki/")
    hand_claim(brain, "aaa.yml", "sess-init-cold-start", "notes/", status="closed")
    assert refused(brain, "wiki/page.md")
    assert not refused(brain, "notes/x.md")


def opened(brain: Path, *args: str, now: str = NOW) -> str:
    """Open a claim, return its ID."""
    run = run_bsi("claim", "open", *args, brain=brain, now=now)
    assert run.code == 0, run
    return run.out.strip()


def test_a_childs_scope_is_held_by_parent_and_child_against_a_third_session(brain: Path) -> None:
    pilot = opened(brain, "--scope", "x/", "--type", "pilote", "--slug", "pil", "--ttl", "1h")
    child = opened(brain, "--scope", "x/a.md", "--parent", pilot, "--slug", "kid", "--ttl", "4h")
    assert opened(brain, "--scope", "x/a.md", "--parent", child, "--slug", "grand")  # delegation goes down
    assert run_bsi("claim", "open", "--scope", "x/a.md", "--parent", pilot, brain=brain, now=NOW).code == 10
    third = run_bsi("claim", "open", "--scope", "x/a.md", brain=brain, now=NOW)
    assert third.code == 10 and pilot in third.err and child in third.err
    # The pilot expires: stale still blocks, and a child opened under it now meets it.
    late = "2026-11-29T11:30:00Z"
    assert run_bsi("check-scope", "x/b.md", brain=brain, now=late).code == 10
    assert run_bsi("claim", "open", "--scope", "x/b.md", "--parent", pilot, brain=brain, now=late).code == 10
    # Its release frees what it held alone, never what the child still holds.
    assert run_bsi("claim", "release", pilot, "--reason", "gone", brain=brain, now=late).code == 0
    assert run_bsi("check-scope", "x/b.md", brain=brain, now=late).code == 0
    assert run_bsi("check-scope", "x/a.md", brain=brain, now=late).code == 10


def test_a_leaf_parent_closing_leaves_its_live_childs_scope_held(brain: Path) -> None:
    parent = opened(brain, "--scope", "x/", "--slug", "solo")
    child = opened(brain, "--scope", "x/a.md", "--parent", parent, "--slug", "kid")
    assert run_bsi("claim", "close", parent, "--status", "ok", brain=brain, now=NOW).code == 0
    assert run_bsi("check-scope", "x/b.md", brain=brain, now=NOW).code == 0
    held = run_bsi("check-scope", "x/a.md", brain=brain, now=NOW)
    assert held.code == 10 and child in held.out + held.err
    assert run_bsi("claim", "open", "--scope", "x/c.md", "--parent", parent, brain=brain, now=NOW).code == 12


def test_a_paused_parent_delegates_nothing(brain: Path) -> None:
    pilot = opened(brain, "--scope", "x/", "--type", "pilote", "--slug", "pil")
    assert run_bsi("gate", "pause", pilot, "hold", brain=brain, now=NOW).code == 0
    assert run_bsi("claim", "open", "--scope", "x/a.md", "--parent", pilot, brain=brain, now=NOW).code == 10


def test_a_closed_slug_reused_in_the_same_minute_gets_a_fresh_id(brain: Path) -> None:
    first = opened(brain, "--scope", "x/", "--slug", "same")
    assert run_bsi("claim", "close", first, "--status", "ok", brain=brain, now=NOW).code == 0
    before = (brain / "claims" / f"{first}.yml").read_bytes()
    second = opened(brain, "--scope", "y/", "--slug", "same")
    assert second != first and (brain / "claims" / f"{first}.yml").read_bytes() == before


def test_a_refusal_names_an_expired_holder_stale_before_the_watchdog_marks_it(brain: Path) -> None:
    # Stale for every rule before the watchdog writes it down (SPEC 6.3): the refusal says so, so that whoever
    # reads it knows a human's release is what frees the scope, not a wait for an open claim to close.
    holder = opened(brain, "--scope", "x/", "--ttl", "1h")
    late = "2026-11-29T12:00:00Z"
    run = run_bsi("--json", "check-scope", "x/a.md", brain=brain, now=late)
    assert run.code == 10 and [(c["sess_id"], c["status"]) for c in run.json()["conflicts"]] == [(holder, "stale")]
    text = run_bsi("claim", "open", "--scope", "x/a.md", brain=brain, now=late)
    assert text.code == 10 and f"{holder} " in text.err and "[stale, parent/child]" in text.err


def test_a_hand_written_scope_that_does_not_read_holds_the_whole_brain(brain: Path) -> None:
    # A list with an empty or non-string entry, an empty list, a mapping: no entry can be trusted, so the file
    # fails closed (SPEC 22) and blocks everything; a list repeating one entry holds just that entry.
    for number, scope in enumerate(('[a.md, ""]', "[]", '""', "[null, b.md]", "{x: 1}", '[c.md, "  "]')):
        hand_claim(brain, f"sess-20261129-0930-bad{number}.yml", f"sess-20261129-0930-bad{number}", scope)
        assert refused(brain, "elsewhere/x.md"), scope
        (brain / "claims" / f"sess-20261129-0930-bad{number}.yml").unlink()
        git(brain, "commit", "-qam", "drop")
    hand_claim(brain, "sess-20261129-0930-twice.yml", "sess-20261129-0930-twice", "[a.md, a.md, ./a.md]")
    assert refused(brain, "a.md") and not refused(brain, "b.md")


def test_repair_of_a_second_file_for_one_session_id_is_refused_not_faked(brain: Path) -> None:
    # No committed version of a duplicate settles which file is the claim: repair says so and writes nothing
    # (it used to commit a no-op "repair" and leave the file holding its scope).
    hand_claim(brain, "init.yml", "sess-init-cold-start", "wiki/")
    hand_claim(brain, "aaa.yml", "sess-init-cold-start", "notes/")
    head = git(brain, "rev-parse", "HEAD")
    run = run_bsi("claim", "repair", "claims/init.yml", brain=brain, now=NOW)
    assert run.code == 65 and "claims/aaa.yml" in run.err and "by hand" in run.err, run
    assert git(brain, "rev-parse", "HEAD") == head
    assert refused(brain, "wiki/page.md")


def test_repair_restores_an_ids_own_file_that_another_name_stood_in_for(brain: Path) -> None:
    hand_claim(brain, "sess-20261129-0930-own.yml", "sess-20261129-0930-own", "wiki/")
    hand_claim(brain, "copy.yml", "sess-20261129-0930-own", "wiki/")
    (brain / "claims" / "sess-20261129-0930-own.yml").write_text("sess_id: [unclosed\n", encoding="utf-8")
    git(brain, "commit", "-qam", "spoiled")
    run = run_bsi("claim", "repair", "sess-20261129-0930-own", brain=brain, now=NOW)
    assert run.code == 0 and "restored" in run.out, run


def test_a_claim_committed_under_another_spelling_of_claims_holds_its_scope_everywhere(brain: Path) -> None:
    # `Claims/x.yml` committed on Linux is `claims/x.yml` on the laptop's case-insensitive file system: the laptop
    # reads it as a claim. A Linux clone that ignored it would let a second session take the same scope.
    (brain / "Claims").mkdir()
    hand_claim(brain, "../Claims/sess-20261129-0930-up.yml", "sess-20261129-0930-up", "wiki/")
    assert refused(brain, "wiki/page.md")
    assert run_bsi("claim", "open", "--scope", "wiki/page.md", brain=brain, now=NOW).code == 10
    assert not refused(brain, "notes/x.md")
    # Finished, it holds nothing, as in claims/.
    hand_claim(brain, "../Claims/sess-20261129-0930-up.yml", "sess-20261129-0930-up", "wiki/", status="closed")
    assert not refused(brain, "wiki/page.md")
