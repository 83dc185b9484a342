"""A human's pause holds the whole tree below it, whatever state the files in between are in (SPEC 6.3, 10)."""

from __future__ import annotations

from pathlib import Path

from tests.bsi import ok, run_bsi
from tests.conftest import claim_file, load_claim


def opened(brain: Path, *args: str) -> str:
    """Open a claim, return its ID."""
    return ok(run_bsi("claim", "open", *args, brain=brain))


def paused_tree(brain: Path) -> tuple[str, str, str]:
    """pilot (paused by a human) → domain (paused by the cascade) → leaf opened after the pause."""
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "pilot")
    domain = opened(brain, "--scope", "be/api/", "--parent", pilot, "--satellite-type", "domain",
                    "--level", "domain", "--slug", "domain")
    ok(run_bsi("gate", "pause", pilot, "hold everything", brain=brain))
    leaf = opened(brain, "--scope", "docs/notes.md", "--parent", domain, "--satellite-type", "brain-write",
                  "--slug", "leaf")
    return pilot, domain, leaf


def test_a_leaf_under_a_cascaded_pause_is_told_to_resume_the_claim_that_paused(brain: Path) -> None:
    pilot, domain, leaf = paused_tree(brain)
    assert load_claim(brain, domain)["paused_by"] == pilot
    refused = run_bsi("preflight", "check", leaf, "docs/notes.md", brain=brain)
    assert refused.code == 4
    assert f"bsi gate resume {pilot}" in refused.err and f"bsi gate resume {domain}" not in refused.err
    closed = run_bsi("claim", "close", leaf, "--status", "ok", brain=brain)
    assert closed.code == 12 and f"bsi gate resume {pilot}" in closed.err


def test_a_corrupt_link_in_a_paused_tree_still_holds_everything_below_it(brain: Path) -> None:
    pilot, domain, leaf = paused_tree(brain)
    # A `git pull` that stopped on a conflict leaves markers in the middle claim: it no longer reads.
    path = claim_file(brain, domain)
    path.write_text(path.read_text(encoding="utf-8") + "<<<<<<< HEAD\n", encoding="utf-8")
    listed = run_bsi("claim", "list", "--json", brain=brain)
    assert [c["path"] for c in listed.json()["corrupt"]] == [f"claims/{domain}.yml"]
    before = path.read_bytes(), claim_file(brain, leaf).read_bytes()
    refused = run_bsi("preflight", "check", leaf, "docs/notes.md", brain=brain)
    assert refused.code == 4, refused
    assert domain in refused.err and "corrupt" in refused.err
    closed = run_bsi("claim", "close", leaf, "--status", "ok", brain=brain)
    assert closed.code == 12, closed
    assert domain in closed.err
    assert (path.read_bytes(), claim_file(brain, leaf).read_bytes()) == before
    assert load_claim(brain, pilot)["status"] == "paused"


def _edit(brain: Path, sess_id: str, **fields: str) -> None:
    """Rewrite top-level `key: value` lines of a claim file as another tool spelled them."""
    path = claim_file(brain, sess_id)
    lines = path.read_text(encoding="utf-8").splitlines()
    for key, value in fields.items():
        found = [i for i, line in enumerate(lines) if line.startswith(f"{key}:")]
        if found:
            lines[found[0]] = f"{key}: {value}"
        else:
            lines.append(f"{key}: {value}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _gated_then_paused(brain: Path) -> str:
    sess = opened(brain, "--scope", "ops/deploy.sh", "--satellite-type", "deploy", "--slug", "deploy")
    ok(run_bsi("gate", "request", sess, "deploy to prod?", brain=brain))
    ok(run_bsi("gate", "pause", sess, "not now", brain=brain))
    assert load_claim(brain, sess)["paused_from"] == "waiting_human"
    return sess


def test_resume_restores_a_pending_gate_whatever_the_spelling_of_the_previous_status(brain: Path) -> None:
    for spelling in ("WAITING_HUMAN", "Waiting-Human", "'waiting human'"):
        sess = _gated_then_paused(brain)
        _edit(brain, sess, paused_from=spelling)
        ok(run_bsi("gate", "resume", sess, brain=brain))
        assert load_claim(brain, sess)["status"] == "waiting_human", spelling
        assert run_bsi("preflight", "check", sess, "ops/deploy.sh", brain=brain).code == 4
        ok(run_bsi("gate", "abort", sess, "next one", brain=brain))


def test_resume_keeps_an_undecided_gate_even_when_the_previous_status_is_lost(brain: Path) -> None:
    sess = _gated_then_paused(brain)
    path = claim_file(brain, sess)
    path.write_text("".join(line for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
                            if not line.startswith("paused_from:")), encoding="utf-8")
    assert load_claim(brain, sess)["gate_origin"] == "request"
    ok(run_bsi("gate", "resume", sess, brain=brain))
    assert load_claim(brain, sess)["status"] == "waiting_human"


def test_taking_back_a_future_stale_mark_never_reopens_a_pending_gate(brain: Path) -> None:
    sess = opened(brain, "--scope", "ops/deploy.sh", "--satellite-type", "deploy", "--slug", "deploy")
    ok(run_bsi("gate", "request", sess, "deploy to prod?", brain=brain))
    # A machine whose clock runs an hour ahead marked it stale, spelling the status it came from its own way.
    _edit(brain, sess, status="stale", stale_since="'2026-11-29T11:00:00+00:00'", stale_from="WAITING_HUMAN",
          stale_reason="TTL expired without close")
    ok(run_bsi("claim", "renew", sess, brain=brain))
    doc = load_claim(brain, sess)
    assert doc["status"] == "waiting_human", doc
    assert run_bsi("preflight", "check", sess, "ops/deploy.sh", brain=brain).code == 4


def test_a_close_gate_written_by_hand_in_another_spelling_still_stops_the_close(brain: Path) -> None:
    for written in ("gate:human", "'Human-Gate → deploy ok?'", "'Gate: Human => \"deploy ok?\"'",
                    "['gate:human → \"deploy ok?\"']"):
        sess = opened(brain, "--scope", "ops/deploy.sh", "--satellite-type", "deploy")
        _edit(brain, sess, on_done=written)
        done = run_bsi("claim", "close", sess, "--status", "ok", "--json", brain=brain)
        assert done.code == 0, done
        assert done.json()["status"] == "waiting_human", written
        doc = load_claim(brain, sess)
        assert doc["status"] == "waiting_human" and doc["gate_origin"] == "close", written
        ok(run_bsi("gate", "reject", sess, "not today", brain=brain))
