"""Issue 11's minor list: each reproduced case through `bsi`, with one clear line and SPEC's exit code."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.bsi import NOW, Run, ok, run_bsi
from tests.conftest import load_claim, tree_bytes

Bsi = Callable[..., Run]


def opened(brain: Path, *args: str, now: str = NOW) -> str:
    """Open a claim, return its ID."""
    return ok(run_bsi("claim", "open", *args, brain=brain, now=now))


def test_section_titles_with_extra_spaces_or_closing_marks_match(brain: Path, bsi: Bsi) -> None:
    first = opened(brain, "--scope", "todo.md#Sprint 3")
    for spelling in ("todo.md ##  Sprint   3", "todo.md ## Sprint 3 ##", "todo.md#sprint 3 #"):
        check = bsi("check-scope", spelling, brain=brain)
        assert check.code == 10 and first in check.out, spelling
    ok(bsi("check-scope", "todo.md#Sprint 4", brain=brain))
    ok(bsi("check-scope", "todo.md#C#", brain=brain))


def test_folder_glob_is_the_folder_and_other_globs_are_refused(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "agents/*")
    assert load_claim(brain, sess)["scope"] == "agents/"
    assert bsi("check-scope", "agents/x.md", brain=brain).code == 10
    before = tree_bytes(brain)
    for pattern in ("agents/*.md", "a?.md", "**"):
        run = bsi("claim", "open", "--scope", pattern, brain=brain)
        assert run.code == 65 and "glob" in run.err, (pattern, run)
    assert tree_bytes(brain) == before


def test_a_scope_reads_the_same_typed_or_from_a_file(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "a/ b.md")
    assert load_claim(brain, sess)["scope"] == ["a/", "b.md"]
    assert bsi("check-scope", "b.md", brain=brain).code == 10
    assert bsi("check-scope", "a/x.md", brain=brain).code == 10


def test_test_counts_are_ascii_whole_numbers(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "be/x.py", "--satellite-type", "code")
    for bad in ("-5", "１２", "٣"):
        run = bsi("claim", "close", sess, "--tests-total", bad, "--tests-passed", "0", "--tests-failed", "0",
                  brain=brain)
        assert run.code == 65, (bad, run)
    assert load_claim(brain, sess)["status"] == "open"


def test_ttls_are_ascii_digits(brain: Path, bsi: Bsi) -> None:
    for bad in ("２h", "١h", "99999999999999h"):
        run = bsi("claim", "open", "--scope", "be/", "--ttl", bad, brain=brain)
        assert run.code == 65 and "Traceback" not in run.err, (bad, run)
    assert not list((brain / "claims").glob("*.yml"))



def test_lock_ttl_is_ascii_digits(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "be/")
    for bad in ("²", "١٢"):
        run = bsi("lock", "acquire", "be/x.py", sess, bad, brain=brain)
        assert run.code == 65 and "Traceback" not in run.err, (bad, run)


def test_check_scope_validates_parent_and_satellite_type(brain: Path, bsi: Bsi) -> None:
    assert bsi("check-scope", "be/", "--parent", "sess-20261129-0000-ghost", brain=brain).code == 66
    assert bsi("check-scope", "be/", "--satellite-type", "bogus", brain=brain).code == 65
    assert bsi("check-scope", "be/", "--parent", "not-an-id", brain=brain).code == 65


def test_a_lock_needs_a_claim(brain: Path, bsi: Bsi) -> None:
    before = tree_bytes(brain, ("claims", "signals", "locks"))
    run = bsi("lock", "acquire", "be/x.py", "sess-20261129-0000-ghost", brain=brain)
    assert run.code == 66 and "not found" in run.err
    assert tree_bytes(brain, ("claims", "signals", "locks")) == before


def test_signal_destination_and_scope_are_checked(brain: Path, bsi: Bsi) -> None:
    before = tree_bytes(brain)
    for args in (("--to", "sess-a\nsess-b"), ("--to", "pilote", "--scope", "../x"), ("--to", "two words")):
        run = bsi("signal", "send", "--type", "INFO", *args, "payload", brain=brain)
        assert run.code == 65, (args, run)
    assert tree_bytes(brain) == before


def test_corrupt_signals_are_rows_and_ack_says_so(brain: Path, bsi: Bsi) -> None:
    bad = "sig-20261129-100000-bad1"
    (brain / "signals" / f"{bad}.yml").write_text("sig_id: [unclosed\n", encoding="utf-8")
    run = bsi("signal", "ack", bad, brain=brain)
    assert run.code == 65 and "corrupt" in run.err
    listed = json.loads(ok(bsi("--json", "signal", "list", brain=brain)))
    assert [c["path"] for c in listed["corrupt"]] == [f"signals/{bad}.yml"]
    assert f"signals/{bad}.yml" in ok(bsi("signal", "list", brain=brain))


def test_re_acking_an_archived_signal_says_archived(brain: Path, bsi: Bsi) -> None:
    sig = ok(bsi("signal", "send", "--to", "prod@laptop", "--type", "INFO", "hello", brain=brain))
    ok(bsi("signal", "ack", sig, brain=brain))
    ok(bsi("signal", "archive", brain=brain, now="2026-11-30T11:00:00Z"))
    run = bsi("signal", "ack", sig, brain=brain, now="2026-11-30T11:05:00Z")
    assert run.code == 0 and run.out.strip() == f"{sig} archived"


def test_a_child_is_not_resumed_while_its_pausing_ancestor_is_paused(brain: Path, bsi: Bsi) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "pilot")
    leaf = opened(brain, "--scope", "be/x.py", "--parent", pilot, "--slug", "leaf")
    ok(bsi("gate", "pause", pilot, brain=brain))
    run = bsi("gate", "resume", leaf, brain=brain)
    assert run.code == 12 and f"gate resume {pilot}" in run.err
    assert load_claim(brain, leaf)["status"] == "paused"
    ok(bsi("gate", "resume", pilot, brain=brain))
    assert load_claim(brain, leaf)["status"] == "open"


def test_scope_42_and_a_non_list_history_are_corrupt_rows(brain: Path, bsi: Bsi) -> None:
    claims = brain / "claims"
    (claims / "sess-20261129-0900-num.yml").write_text(
        "sess_id: sess-20261129-0900-num\nscope: 42\nstatus: open\nopened_at: '2026-11-29T09:00:00Z'\n")
    (claims / "sess-20261129-0900-hist.yml").write_text(
        "sess_id: sess-20261129-0900-hist\nscope: h/\nstatus: open\nopened_at: '2026-11-29T09:00:00Z'\n"
        "gate_history: 'wiped'\n")
    listed = json.loads(ok(bsi("--json", "claim", "list", brain=brain)))
    assert sorted(c["path"] for c in listed["corrupt"]) == ["claims/sess-20261129-0900-hist.yml",
                                                           "claims/sess-20261129-0900-num.yml"]
    assert listed["claims"] == []
    run = bsi("gate", "request", "sess-20261129-0900-hist", "ok?", brain=brain)
    assert run.code == 65
    assert "wiped" in (claims / "sess-20261129-0900-hist.yml").read_text()


def test_a_claim_without_opening_time_blocks_and_can_be_released(brain: Path, bsi: Bsi) -> None:
    # no opened_at and an ID that carries no minute (a canonical ID's minute is its opening: seed 002)
    (brain / "claims" / "sess-init-nt.yml").write_text("sess_id: sess-init-nt\nscope: nt/\nstatus: open\n")
    assert bsi("check-scope", "nt/a.md", brain=brain).code == 10
    report = json.loads(ok(bsi("--json", "watchdog", brain=brain)))
    assert "sess-init-nt" in report["marked"]
    ok(bsi("claim", "release", "sess-init-nt", "--reason", "crashed", brain=brain))


def test_a_solo_claim_has_no_parent(brain: Path, bsi: Bsi) -> None:
    """SPEC 6.5: a solo claim has no tree; `--type solo --parent X` asks for two things at once (usage, 64)."""
    pilot = opened(brain, "--scope", "be/", "--type", "pilote")
    before = tree_bytes(brain)
    run = bsi("claim", "open", "--scope", "be/x.py", "--type", "solo", "--parent", pilot, brain=brain)
    assert run.code == 64, run
    assert "solo" in run.err and len(run.err.strip().splitlines()) == 1 and "Traceback" not in run.err
    assert tree_bytes(brain) == before
    child = opened(brain, "--scope", "be/x.py", "--parent", pilot)
    assert load_claim(brain, child)["type"] == "satellite"
