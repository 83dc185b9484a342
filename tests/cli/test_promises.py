"""The protocol's two promises against hostile input (issue 11 items 1–10 and 19; issue 13's core rules).

Two sessions never both hold one scope; a human gate or pause is never bypassed.
Every test drives `bsi` in a subprocess on a fresh brain, at pinned times.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import NOW, Run, git, ok, run_bsi
from tests.conftest import claim_file, load_claim, signal_docs, tree_bytes

Bsi = Callable[..., Run]
#: Rules fixed in the rule modules once the core split lands; strict: a fix makes the marker fail until removed.
PENDING = pytest.mark.xfail(strict=True, reason="rule fixed after the core split")
LATE = "2026-11-29T12:30:00Z"  # 2h30 after NOW: a 2 h claim has expired
LATER = "2026-11-29T12:45:00Z"
NINE_HOURS = "2026-11-29T19:00:00Z"


def opened(brain: Path, *args: str, now: str = NOW) -> str:
    """Open a claim, return its ID."""
    return ok(run_bsi("claim", "open", *args, brain=brain, now=now))


def status(brain: Path, sess_id: str) -> str:
    """A claim's status as written."""
    return str(load_claim(brain, sess_id)["status"])


def write_claim(brain: Path, name: str, text: str) -> Path:
    """Write a hand-made claim file (as another tool or a human would)."""
    path = brain / "claims" / name
    path.write_text(text, encoding="utf-8")
    return path


def corrupt_rows(brain: Path, now: str = NOW) -> list[dict[str, Any]]:
    """The corrupt rows `claim list --json` reports."""
    run = run_bsi("--json", "claim", "list", brain=brain, now=now)
    assert run.code == 0, run.err
    return list(run.json()["corrupt"])


def blocked_on(brain: Path) -> list[dict[str, Any]]:
    """Every BLOCKED_ON signal file."""
    return [s for s in signal_docs(brain) if s["type"] == "BLOCKED_ON"]


# -- 1. a gate or a pause is never bypassed by expiry ------------------------------------------------------
def test_owner_cannot_close_an_expired_gate(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "deploy/", "--on-done", "signal → CHECKPOINT pilote")
    ok(bsi("gate", "request", sess, "deploy ok?", brain=brain))
    ok(bsi("watchdog", brain=brain, now=LATE))
    assert status(brain, sess) == "stale"
    signals_before = len(signal_docs(brain))
    run = bsi("claim", "close", sess, "--status", "ok", brain=brain, now=LATER)
    assert run.code == 12, run
    assert "human" in run.err and f"gate approve {sess}" in run.err
    assert status(brain, sess) == "stale"
    assert len(signal_docs(brain)) == signals_before


def test_owner_cannot_close_an_expired_pause(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "deploy/")
    ok(bsi("gate", "pause", sess, "hold", brain=brain))
    ok(bsi("watchdog", brain=brain, now=LATE))
    run = bsi("claim", "close", sess, "--status", "ok", brain=brain, now=LATER)
    assert run.code == 12, run
    assert f"gate resume {sess}" in run.err
    assert status(brain, sess) == "stale"


def test_stale_without_stale_from_still_remembers_the_gate(brain: Path, bsi: Bsi) -> None:
    """A hand-edited stale claim that lost `stale_from` but still carries its gate cannot be closed by its owner."""
    sess = opened(brain, "--scope", "deploy/")
    ok(bsi("gate", "request", sess, "deploy ok?", brain=brain))
    path = claim_file(brain, sess)
    text = path.read_text(encoding="utf-8").replace("status: waiting_human", "status: stale")
    path.write_text(text, encoding="utf-8")
    run = bsi("claim", "close", sess, "--status", "ok", brain=brain, now=LATER)
    assert run.code == 12, run


def test_owner_may_still_close_a_plain_stale_claim_late(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "notes/")
    ok(bsi("watchdog", brain=brain, now=LATE))
    ok(bsi("claim", "close", sess, "--status", "ok", brain=brain, now=LATER))
    assert status(brain, sess) == "closed"


def test_human_approves_an_expired_gate_and_the_satellite_can_write_again(brain: Path, bsi: Bsi) -> None:
    """Approving an expired requested gate renews the claim with its TTL from the approval (issue 19 item 5)."""
    sess = opened(brain, "--scope", "deploy/")
    ok(bsi("gate", "request", sess, "deploy ok?", brain=brain))
    ok(bsi("watchdog", brain=brain, now=LATE))
    run = bsi("--json", "gate", "approve", sess, "go", brain=brain, now=LATER)
    assert run.code == 0 and run.json()["status"] == "open"
    assert run.json()["expires_at"] == "2026-11-29T14:45:00+00:00"  # its 2 h TTL from 12:45
    doc = load_claim(brain, sess)
    assert doc["status"] == "open" and doc["expires_at"] == "2026-11-29T14:45:00+00:00"
    assert not {"stale_from", "stale_since", "stale_reason", "gate_origin"} & set(doc)
    assert [e["event"] for e in doc["gate_history"]][-1] == "APPROVED"
    ok(bsi("preflight", "check", sess, "deploy/run.sh", brain=brain, now=LATER))
    ok(bsi("claim", "close", sess, "--status", "ok", brain=brain, now=LATER))
    assert status(brain, sess) == "closed"


def test_an_expired_gate_past_eight_hours_stays_stale_when_approved(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "deploy/")
    ok(bsi("gate", "request", sess, "deploy ok?", brain=brain))
    run = bsi("--json", "gate", "approve", sess, "go", brain=brain, now=NINE_HOURS)
    assert run.code == 0 and run.json()["status"] == "stale"
    assert run.json()["expires_at"] == "2026-11-29T12:00:00+00:00"  # the claim as it was: no renewal
    assert bsi("preflight", "check", sess, "deploy/run.sh", brain=brain, now=NINE_HOURS).code == 4
    ok(bsi("claim", "close", sess, "--status", "ok", brain=brain, now=NINE_HOURS))


def test_human_approves_an_expired_close_gate(brain: Path, bsi: Bsi) -> None:
    """A gate from a `gate:human` trigger at close, expired: approve still closes it (24/24 is not lost)."""
    sess = opened(brain, "--scope", "deploy/", "--on-done", 'gate:human → "ship it?"')
    ok(bsi("claim", "close", sess, "--status", "ok", brain=brain))
    assert status(brain, sess) == "waiting_human"
    ok(bsi("watchdog", brain=brain, now=LATE))
    ok(bsi("gate", "approve", sess, "ok", brain=brain, now=LATER))
    assert status(brain, sess) == "closed"


def test_human_rejects_an_expired_gate(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "deploy/")
    ok(bsi("gate", "request", sess, "deploy ok?", brain=brain))
    ok(bsi("watchdog", brain=brain, now=LATE))
    ok(bsi("gate", "reject", sess, "no", brain=brain, now=LATER))
    assert status(brain, sess) == "failed"


def test_human_resumes_an_expired_pause(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "deploy/")
    ok(bsi("gate", "pause", sess, "hold", brain=brain))
    ok(bsi("watchdog", brain=brain, now=LATE))
    ok(bsi("gate", "resume", sess, brain=brain, now=LATER))
    doc = load_claim(brain, sess)
    assert doc["status"] == "stale" and doc["stale_from"] == "open"
    ok(bsi("claim", "close", sess, "--status", "ok", brain=brain, now=LATER))


def test_expired_gate_of_another_kind_is_refused_to_approve(brain: Path, bsi: Bsi) -> None:
    """Approve on a stale claim that was open (no gate) is still refused."""
    sess = opened(brain, "--scope", "notes/")
    ok(bsi("watchdog", brain=brain, now=LATE))
    assert bsi("gate", "approve", sess, brain=brain, now=LATER).code == 12
    assert bsi("gate", "resume", sess, brain=brain, now=LATER).code == 12


# -- 2. delegation only through an open ancestor -------------------------------------------------------------
def test_stale_pilot_cannot_be_adopted(brain: Path, bsi: Bsi) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "pilot")
    ok(bsi("watchdog", brain=brain, now=LATE))
    check = bsi("check-scope", "be/x.py", "--parent", pilot, brain=brain, now=LATER)
    assert check.code == 10 and pilot in check.out
    run = bsi("claim", "open", "--parent", pilot, "--scope", "be/x.py", brain=brain, now=LATER)
    assert run.code == 10 and pilot in run.err
    assert len(list((brain / "claims").glob("*.yml"))) == 1


def test_expired_pilot_cannot_be_adopted_before_the_watchdog(brain: Path, bsi: Bsi) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "pilot")
    run = bsi("claim", "open", "--parent", pilot, "--scope", "be/x.py", brain=brain, now=LATE)
    assert run.code == 10 and pilot in run.err


def test_waiting_and_paused_pilots_cannot_be_adopted(brain: Path, bsi: Bsi) -> None:
    gated = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "gated")
    paused = opened(brain, "--scope", "fe/", "--type", "pilote", "--slug", "paused")
    ok(bsi("gate", "request", gated, "ok?", brain=brain))
    ok(bsi("gate", "pause", paused, brain=brain))
    for parent, scope in ((gated, "be/x.py"), (paused, "fe/x.ts")):
        run = bsi("claim", "open", "--parent", parent, "--scope", scope, brain=brain)
        assert run.code == 10 and parent in run.err, run


def test_delegation_stops_at_the_first_ancestor_that_is_not_open(brain: Path, bsi: Bsi) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "pilot")
    domain = opened(brain, "--scope", "be/api/", "--parent", pilot, "--satellite-type", "domain",
                    "--level", "domain", "--slug", "domain")
    ok(bsi("gate", "request", pilot, "ok?", brain=brain))
    run = bsi("claim", "open", "--parent", domain, "--scope", "be/api/x.py", brain=brain)
    assert run.code == 10 and pilot in run.err and domain not in run.err.split("conflicts with", 1)[1]


def test_open_pilot_still_delegates(brain: Path, bsi: Bsi) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "pilot")
    opened(brain, "--parent", pilot, "--scope", "be/x.py")


# -- 3. one spelling per path: NFC ------------------------------------------------------------------------------
NFC = unicodedata.normalize("NFC", "notes/café.md")
NFD = unicodedata.normalize("NFD", "notes/café.md")


def test_nfc_and_nfd_are_one_scope(brain: Path, bsi: Bsi) -> None:
    assert NFC != NFD
    first = opened(brain, "--scope", NFC)
    check = bsi("check-scope", NFD, brain=brain)
    assert check.code == 10 and first in check.out
    run = bsi("claim", "open", "--scope", NFD, brain=brain)
    assert run.code == 10


def test_nfd_claim_file_blocks_an_nfc_open(brain: Path, bsi: Bsi) -> None:
    write_claim(brain, "sess-20261129-0900-mac1.yml",
                f"sess_id: sess-20261129-0900-mac1\nscope: {NFD}\nstatus: open\nopened_at: '2026-11-29T09:00:00Z'\n")
    assert bsi("check-scope", NFC, brain=brain).code == 10


def test_nfc_nfd_section_titles_are_one_section(brain: Path, bsi: Bsi) -> None:
    opened(brain, "--scope", "todo.md#" + unicodedata.normalize("NFC", "Été"))
    assert bsi("check-scope", "todo.md#" + unicodedata.normalize("NFD", "Été"), brain=brain).code == 10


def test_nfc_nfd_locks_and_preflight(brain: Path, bsi: Bsi) -> None:
    a = opened(brain, "--scope", "notes/", "--slug", "aaa")
    b = opened(brain, "--scope", "other/", "--slug", "bbb")
    ok(bsi("lock", "acquire", NFC, a, brain=brain))
    assert bsi("lock", "acquire", NFD, b, brain=brain).code == 1
    leaf = opened(brain, "--scope", NFC, "--slug", "leaf", "--parent", a)
    assert bsi("preflight", "check", leaf, NFD, brain=brain).code == 2  # covered (not 1), and locked by a


# -- 4. live claims in every spelling block ---------------------------------------------------------------------
def test_v1_active_claim_blocks_and_goes_stale(brain: Path, bsi: Bsi) -> None:
    write_claim(brain, "sess-20261129-0930-v1.yml",
                "name: sess-20261129-0930-v1\nscope: wiki/\nopened: 2026-11-29T09:30\nstatus: active\n")
    assert bsi("check-scope", "wiki/page.md", brain=brain).code == 10
    report = json.loads(ok(bsi("--json", "watchdog", brain=brain, now=LATE)))
    assert "sess-20261129-0930-v1" in report["marked"]


def test_uppercase_open_blocks(brain: Path, bsi: Bsi) -> None:
    write_claim(brain, "sess-20261129-0930-up.yml",
                "sess_id: sess-20261129-0930-up\nscope: wiki/\nopened_at: '2026-11-29T09:30:00Z'\nstatus: OPEN\n")
    assert bsi("check-scope", "wiki/page.md", brain=brain).code == 10
    report = json.loads(ok(bsi("--json", "watchdog", brain=brain, now=LATE)))
    assert "sess-20261129-0930-up" in report["marked"]


def test_unknown_status_blocks_and_is_flagged(brain: Path, bsi: Bsi) -> None:
    write_claim(brain, "sess-20261129-0930-odd.yml",
                "sess_id: sess-20261129-0930-odd\nscope: wiki/\nopened_at: '2026-11-29T09:30:00Z'\nstatus: frozen\n")
    assert bsi("check-scope", "wiki/page.md", brain=brain).code == 10
    claims = json.loads(ok(bsi("--json", "claim", "list", brain=brain)))["claims"]
    odd = [c for c in claims if c["sess_id"] == "sess-20261129-0930-odd"]
    assert odd and "status-unknown" in odd[0]["flags"]
    assert "frozen" in ok(bsi("claim", "list", brain=brain))


# -- 5. a search satellite writes only where no other claim holds -------------------------------------------------
def test_search_satellite_cannot_write_into_a_held_file(brain: Path, bsi: Bsi) -> None:
    holder = opened(brain, "--scope", "be/x.py", "--slug", "holder")
    search = opened(brain, "--scope", "*", "--satellite-type", "search", "--slug", "search")
    run = bsi("preflight", "check", search, "be/x.py", brain=brain)
    assert run.code == 1 and holder in run.err, run
    ok(bsi("preflight", "check", search, "be/free.py", brain=brain))


# -- 6. a copy never hides the real claim; duplicate keys are corrupt ----------------------------------------------
def test_a_closed_copy_does_not_hide_the_real_claim(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "be/", "--slug", "a")
    real = claim_file(brain, sess)
    copy = real.with_name(f"{sess}.orig.yml")
    copy.write_text(real.read_text(encoding="utf-8").replace("status: open", "status: closed"), encoding="utf-8")
    check = bsi("check-scope", "be/x.py", brain=brain)
    assert check.code == 10 and sess in check.out
    rows = corrupt_rows(brain)
    assert [r["path"] for r in rows] == [f"claims/{sess}.orig.yml"]
    assert f"duplicate of claims/{sess}.yml" in rows[0]["reason"]
    assert bsi("claim", "open", "--scope", "be/y.py", brain=brain).code == 10


def test_duplicate_yaml_keys_are_a_corrupt_row(brain: Path, bsi: Bsi) -> None:
    write_claim(brain, "sess-20261129-0930-dup.yml",
                "sess_id: sess-20261129-0930-dup\nscope: be/\nstatus: open\n"
                "opened_at: '2026-11-29T09:30:00Z'\nstatus: closed\n")
    rows = corrupt_rows(brain)
    assert len(rows) == 1 and "duplicate key" in rows[0]["reason"] and rows[0]["line"] == 5


# -- 7. expired is stale before the watchdog runs -----------------------------------------------------------------
def test_expired_claim_is_stale_for_every_decision(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "be/", "--slug", "late")
    run = bsi("preflight", "check", sess, "be/x.py", brain=brain, now=LATE)
    assert run.code == 4 and "stale" in run.err
    assert bsi("claim", "renew", sess, brain=brain, now=LATE).code == 12
    assert bsi("gate", "request", sess, "ok?", brain=brain, now=LATE).code == 12
    assert status(brain, sess) == "open"


def test_eight_hours_is_stale_whatever_the_file_says(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "be/", "--ttl", "8h", "--slug", "long")
    path = claim_file(brain, sess)
    path.write_text(path.read_text(encoding="utf-8").replace("2026-11-29T18:00", "2026-11-30T18:00"),
                    encoding="utf-8")
    assert bsi("preflight", "check", sess, "be/x.py", brain=brain, now=NINE_HOURS).code == 4
    assert bsi("claim", "renew", sess, brain=brain, now=NINE_HOURS).code == 12


def test_expired_gate_cannot_be_approved_by_the_session(brain: Path, bsi: Bsi) -> None:
    """Before the watchdog, an expired open claim cannot request a gate, and an expired gate stays human's."""
    sess = opened(brain, "--scope", "be/")
    ok(bsi("gate", "request", sess, "ok?", brain=brain))
    run = bsi("claim", "close", sess, "--status", "ok", brain=brain, now=LATE)
    assert run.code == 12
    ok(bsi("gate", "approve", sess, "go", brain=brain, now=LATE))


# -- 8. one date never takes the brain down -----------------------------------------------------------------------
def test_a_far_future_date_is_one_corrupt_row(brain: Path, bsi: Bsi) -> None:
    write_claim(brain, "sess-20261129-0930-far.yml",
                "sess_id: sess-20261129-0930-far\nscope: be/\nstatus: open\nopened_at: 9999-12-31T23:59\n")
    rows = corrupt_rows(brain)
    assert [r["path"] for r in rows] == ["claims/sess-20261129-0930-far.yml"]
    for args in (("watchdog",), ("index",), ("check-scope", "fe/"), ("claim", "list")):
        run = bsi(*args, brain=brain)
        assert run.code == 0 and "Traceback" not in run.err, (args, run)
    opened(brain, "--scope", "fe/")


def test_absurd_ttl_and_now_are_invalid_data(brain: Path, bsi: Bsi) -> None:
    before = tree_bytes(brain)
    for args, now in ((("--ttl", "99999999999999h"), NOW), ((), "0001-01-01T00:00"), ((), "9999-12-31T23:59")):
        run = bsi("claim", "open", "--scope", "be/", *args, brain=brain, now=now)
        assert run.code == 65 and "Traceback" not in run.err, run
    assert tree_bytes(brain) == before
    assert not list((brain / "claims").glob("*.yml"))


# -- 9. bounded text: every claim stays writable; one unwritable claim never stops the watchdog -----------------
def test_a_huge_story_is_refused_at_open(brain: Path, bsi: Bsi) -> None:
    run = bsi("claim", "open", "--scope", "be/", "--story", "x" * 64 * 1024, brain=brain)
    assert run.code == 65 and "story" in run.err
    assert not list((brain / "claims").glob("*.yml"))


def test_one_unwritable_claim_never_stops_the_watchdog(brain: Path, bsi: Bsi) -> None:
    write_claim(brain, "sess-20261129-0930-big.yml",
                "sess_id: sess-20261129-0930-big\nscope: big/\nstatus: open\n"
                f"opened_at: '2026-11-29T09:30:00Z'\nstory_angle: {'y' * (64 * 1024 - 200)}\n")
    other = opened(brain, "--scope", "be/", "--slug", "other")
    run = bsi("--json", "watchdog", brain=brain, now=LATE)
    assert run.code == 0, run
    assert other in run.json()["marked"]
    assert status(brain, other) == "stale"
    assert "sess-20261129-0930-big" in run.json().get("unwritable", [])


# -- 10. every claim in a tree is a satellite for the kernel zone ---------------------------------------------------
def test_kernel_zone_applies_to_any_claim_with_a_parent(brain: Path, bsi: Bsi) -> None:
    for ctype in ("solo", "pilote"):
        pilot = opened(brain, "--scope", f"profil/{ctype}/", "--type", "pilote", "--slug", f"p-{ctype}")
        if ctype == "pilote":
            child = opened(brain, "--scope", f"profil/{ctype}/x.md", "--type", ctype, "--parent", pilot,
                           "--slug", ctype)
        else:  # `claim open` refuses a solo claim with a parent (64); another tool, or a hand, may write one
            child = opened(brain, "--scope", f"profil/{ctype}/x.md", "--parent", pilot, "--slug", ctype)
            path = claim_file(brain, child)
            path.write_text(path.read_text(encoding="utf-8").replace("type: satellite", "type: solo"),
                            encoding="utf-8")
            git(brain, "commit", "-qam", "a solo claim under a parent, by hand")
            assert load_claim(brain, child)["type"] == "solo"
        run = bsi("preflight", "check", child, f"profil/{ctype}/x.md", brain=brain)
        assert run.code == 5, (ctype, run)
        assert bsi("preflight", "check", pilot, f"profil/{ctype}/x.md", brain=brain).code == 0


# -- 19. the result contract (children is a list of IDs) and issue 13, item 1 (a gate or a pause can be renewed,
# within the 8 h cap) are rules decided in core: tests/unit/test_claim_rules.py asks `Brain` directly. ---------------
def test_renew_is_refused_once_stale_or_terminal(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "be/")
    ok(bsi("watchdog", brain=brain, now=LATE))
    assert bsi("claim", "renew", sess, brain=brain, now=LATER).code == 12


# -- issue 13, item 3: a human's own decision never notifies that human ----------------------------------------------
def test_abort_and_reject_by_a_human_never_ring_that_human(brain: Path, bsi: Bsi) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "pilot")
    a = opened(brain, "--scope", "be/a.md", "--parent", pilot, "--satellite-type", "brain-write", "--slug", "a")
    b = opened(brain, "--scope", "be/b.md", "--parent", pilot, "--satellite-type", "brain-write", "--slug", "b")
    ok(bsi("gate", "request", b, "ok?", brain=brain))
    ok(bsi("gate", "abort", a, "wrong approach", brain=brain))
    ok(bsi("gate", "reject", b, "no", brain=brain))
    (rejected,) = blocked_on(brain)  # SPEC 6.3: reject → BLOCKED_ON to the parent, signed by the human
    assert rejected["to"] == pilot and b in rejected["payload"] and rejected["from"].startswith("human:")
    infos = [s for s in signal_docs(brain) if s["type"] == "INFO" and s["to"] == pilot]
    assert [a in s["payload"] for s in infos] == [True]
    queue = bsi("--json", "attention", brain=brain).json()
    assert not [item for item in queue["items"] if item.get("sig_id") == rejected["sig_id"]]
