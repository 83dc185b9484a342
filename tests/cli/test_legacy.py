"""The legacy fixture (`tests/fixtures/legacy`) loads as is and works under every command (SPEC 6.2, 14)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from brain_tui.core.records.yamlio import safe_load_file
from tests.bsi import Run, clean_env, last_commit, ok
from tests.conftest import signal_docs, tree_bytes

Bsi = Callable[..., Run]
LNOW = "2026-03-16T22:00:00Z"
PILOT = "sess-20260316-2036-pilote-be5-wrap"
DOMAIN = "sess-20260316-2100-superoauth-domain"
CODE = "sess-20260316-2145-brain-engine-code"
AUTH = "sess-20260317-1000-superoauth-auth"
SECTION = "sess-20260316-2115"
CORRUPT = "claims/sess-20260316-2230-be-tests.yml"
ALL_IDS = {"sess-init-cold-start", "sess-20260315-0200-quick-wins", PILOT, "sess-20260316-2046-bsi-v3-1", DOMAIN,
           SECTION, CODE, AUTH}


def claims_by_id(run: Run) -> dict[str, dict]:
    """`claim list --json` as a mapping by ID."""
    assert run.code == 0, run.err
    return {c["sess_id"]: c for c in run.json()["claims"]}


@pytest.mark.parametrize("with_git", [False, True], ids=["plain-folder", "git-repo"])
def test_every_claim_loads_and_the_corrupt_one_is_one_row(legacy_brain: Path, bsi: Bsi, with_git: bool,
                                                           request: pytest.FixtureRequest) -> None:
    root = request.getfixturevalue("legacy_git_brain") if with_git else legacy_brain
    run = bsi("--json", "claim", "list", "--all", brain=root, now=LNOW)
    doc = run.json()
    claims = claims_by_id(run)
    assert set(claims) == ALL_IDS  # gate-ack-deploy-vps.yml is not a claim
    assert len(doc["corrupt"]) == 1
    (bad,) = doc["corrupt"]
    assert set(bad) == {"path", "line", "reason"} and bad["path"] == CORRUPT
    assert isinstance(bad["line"], int) and bad["line"] > 0 and bad["reason"]
    text = bsi("claim", "list", "--all", brain=root, now=LNOW)
    assert text.code == 0 and f"corrupt: {CORRUPT}" in text.err
    assert claims["sess-init-cold-start"]["path"] == "claims/init.yml"  # the file name is not the ID
    assert claims["sess-init-cold-start"]["status"] == "closed" and claims["sess-init-cold-start"]["scope"] == "*"
    v1 = claims["sess-20260315-0200-quick-wins"]
    assert v1["status"] == "closed" and v1["scope"] == "todo/brain.md"
    assert v1["opened_at"] == "2026-03-15T02:00:00+00:00"
    assert claims[SECTION]["scope"] == "todo/brain.md#Sprint BSI"  # `## Sprint BSI` is a YAML comment to YAML
    assert (claims[PILOT]["level"], claims[PILOT]["tier"]) == ("pilote", 3)
    assert (claims[DOMAIN]["level"], claims[DOMAIN]["tier"]) == ("domain", 3)
    assert (claims[CODE]["level"], claims[CODE]["tier"]) == ("leaf", 2)
    assert claims[CODE]["agent"] == "satellite-boot"  # unknown fields are kept
    blocking = claims_by_id(bsi("--json", "claim", "list", brain=root, now=LNOW))
    assert set(blocking) == {PILOT, DOMAIN, SECTION, CODE, AUTH}


def test_the_legacy_section_scope_only_holds_its_section(legacy_brain: Path, bsi: Bsi) -> None:
    held = bsi("--json", "check-scope", "todo/brain.md § sprint bsi", brain=legacy_brain, now=LNOW)
    assert held.code == 10 and [c["sess_id"] for c in held.json()["conflicts"]] == [SECTION]
    assert bsi("check-scope", "todo/brain.md#Sprint 4", brain=legacy_brain, now=LNOW).code == 0
    assert bsi("check-scope", "todo/brain.md", brain=legacy_brain, now=LNOW).code == 10


def test_naive_times_are_read_in_the_brain_timezone(legacy_brain: Path, bsi: Bsi) -> None:
    tokyo = clean_env(TZ="Asia/Tokyo")
    shown = bsi("--json", "claim", "show", PILOT, brain=legacy_brain, now=LNOW, env=tokyo).json()
    assert shown["expires_at"] == "2026-03-16T22:36:00+09:00"  # no timezone: the machine's
    compose = legacy_brain / "brain-compose.yml"
    compose.write_text(compose.read_text() + "\ntimezone: Europe/Paris\n")
    for env in (tokyo, clean_env(TZ="UTC")):
        shown = bsi("--json", "claim", "show", PILOT, brain=legacy_brain, now=LNOW, env=env).json()
        assert shown["expires_at"] == "2026-03-16T22:36:00+01:00"  # 20:36 Paris + the default 2 h
        assert shown["opened_at"] == "2026-03-16T20:36:00+01:00"  # the same instant on every machine
    # It expires at 21:36 UTC (22:36 in Paris): the watchdog marks it from then on (SPEC 6.3).
    early = bsi("--json", "watchdog", brain=legacy_brain, now="2026-03-16T21:35:00Z")
    assert early.json()["marked"] == []
    late = bsi("--json", "watchdog", brain=legacy_brain, now="2026-03-16T21:36:00Z")
    assert late.json()["marked"] == [PILOT]
    doc = yaml.safe_load((legacy_brain / "claims" / f"{PILOT}.yml").read_text())
    assert doc["stale_since"] == "2026-03-16T22:36:00+01:00" and doc["opened_at"] == "2026-03-16T20:36"


def test_the_watchdog_never_rewrites_the_corrupt_file(legacy_brain: Path, bsi: Bsi) -> None:
    corrupt = (legacy_brain / CORRUPT).read_bytes()
    run = bsi("--json", "watchdog", brain=legacy_brain, now="2026-03-18T12:00:00Z")
    assert run.code == 0 and set(run.json()["marked"]) == {PILOT, DOMAIN, SECTION, CODE, AUTH}
    assert (legacy_brain / CORRUPT).read_bytes() == corrupt
    for command in (("claim", "show", "sess-20260316-2230-be-tests"),
                    ("claim", "close", "sess-20260316-2230-be-tests", "--status", "ok"),
                    ("gate", "approve", "sess-20260316-2230-be-tests")):
        bad = bsi(*command, brain=legacy_brain, now="2026-03-18T12:00:00Z")
        assert bad.code == 65 and "corrupt" in bad.err, command
    assert (legacy_brain / CORRUPT).read_bytes() == corrupt


def test_legacy_exit_triggers_fire(legacy_git_brain: Path, bsi: Bsi) -> None:
    root = legacy_git_brain
    before = (root / "claims" / f"{CODE}.yml").read_text()
    ok(bsi("claim", "close", CODE, "--tests-total", "4", "--tests-passed", "4", "--tests-failed", "0",
           "--files", "brain-engine/server.py", brain=root, now=LNOW))
    subject, files = last_commit(root)
    assert subject == f"bsi: close satellite {CODE} [validated]"
    handoff = [s for s in signal_docs(root) if s["from"] == CODE and "imported_from" not in s]
    assert len(handoff) == 1 and handoff[0]["type"] == "HANDOFF" and handoff[0]["to"] == PILOT
    assert "type:test" in handoff[0]["payload"] and "scope:brain-engine/" in handoff[0]["payload"]
    assert f"signals/{handoff[0]['sig_id']}.yml" in files and f"claims/{CODE}.yml" in files
    after = (root / "claims" / f"{CODE}.yml").read_text()
    assert after.startswith(before.split("status:")[0])  # the hand alignment above the edit is kept
    assert "on_partial:       signal  → CHECKPOINT pilote" in after
    # superoauth-auth: `on_fail: signal → BLOCKED_ON pilote` resolves the pilot through its domain. Its gate,
    # which the old scripts bypassed (SPEC 14.2), holds it first: closed only once a human decided it
    refused = bsi("claim", "close", AUTH, "--status", "failed", brain=root, now="2026-03-17T11:00:00+01:00")
    assert refused.code == 12 and "waiting_human" in refused.err, refused
    ok(bsi("gate", "approve", AUTH, brain=root, now="2026-03-17T11:00:00+01:00"))
    ok(bsi("claim", "close", AUTH, "--status", "failed", "--tests-total", "2", "--tests-passed", "2",
           "--tests-failed", "0", brain=root, now="2026-03-17T11:00:00+01:00"))
    blocked = [s for s in signal_docs(root) if s["from"] == AUTH and "imported_from" not in s]
    assert [(s["type"], s["to"]) for s in blocked] == [("BLOCKED_ON", PILOT)]


def test_the_fixture_delegation_is_not_a_conflict(legacy_brain: Path, bsi: Bsi) -> None:
    both = bsi("--json", "check-scope", "brain-engine/server.py", brain=legacy_brain, now=LNOW)
    assert sorted(c["sess_id"] for c in both.json()["conflicts"]) == sorted([PILOT, CODE])
    assert bsi("check-scope", "brain-engine/server.py", "--parent", CODE, brain=legacy_brain, now=LNOW).code == 0
    # the corrupt claim file may still hold brain-engine/tests/ (SPEC 22: it fails closed), whatever the tree
    held = bsi("--json", "claim", "open", "--scope", "brain-engine/", "--parent", CODE, brain=legacy_brain, now=LNOW)
    assert held.code == 10 and [(c["status"], c["path"]) for c in held.json()["conflicts"]] == [("corrupt", CORRUPT)]
    sub = ok(bsi("claim", "open", "--scope", "brain-engine/server.py", "--parent", CODE, "--satellite-type", "test",
                 "--slug", "sub", brain=legacy_brain, now=LNOW))
    assert sub == "sess-20260316-2200-sub"
    # a sibling of the leaf under the same pilot does conflict with the leaf
    sibling = bsi("--json", "claim", "open", "--scope", "brain-engine/server.py", "--parent", PILOT,
                  "--satellite-type", "code", brain=legacy_brain, now=LNOW)
    assert sibling.code == 10 and sorted(c["sess_id"] for c in sibling.json()["conflicts"]) == sorted([CODE, sub])


def test_legacy_pause_cascade_and_history_append(legacy_brain: Path, bsi: Bsi) -> None:
    untouched = {p: b for p, b in tree_bytes(legacy_brain, ("claims",)).items()
                 if p.startswith("claims/") and DOMAIN not in p and AUTH not in p}
    run = bsi("--json", "gate", "pause", DOMAIN, "pause", brain=legacy_brain, now=LNOW)
    assert run.code == 0 and run.json()["cascade"] == [AUTH]
    for sess, event in ((DOMAIN, "PAUSED"), (AUTH, "PAUSED_CASCADE")):
        doc = yaml.safe_load((legacy_brain / "claims" / f"{sess}.yml").read_text())
        assert doc["status"] == "paused" and doc["gate_history"][-1]["event"] == event
    ok(bsi("gate", "resume", DOMAIN, brain=legacy_brain, now=LNOW))
    auth = yaml.safe_load((legacy_brain / "claims" / f"{AUTH}.yml").read_text())
    # the gate the old scripts' own pause and resume bypassed (SPEC 14.2) is back where it was left: undecided
    assert auth["status"] == "waiting_human" and len(auth["gate_history"]) == 5
    now_claims = tree_bytes(legacy_brain, ("claims",))
    assert {p: b for p, b in now_claims.items() if p in untouched} == untouched


LEGACY_SIGNALS = {"sig-20261129-155848-human_gate": "pending", "sig-20261129-155845-paused": "pending",
                  "sig-20261129-155844-human_gate": "pending", "sig-20260316-001": "pending",
                  "sig-20260316-002": "pending", "sig-20260316-003": "delivered"}


def test_legacy_signal_rows_are_seen_before_any_write(legacy_git_brain: Path, bsi: Bsi) -> None:
    # SPEC 7 and 14.4: the rows of the old index are signals; a session or the pilot listing its pending signals
    # on a brain no command has written yet must see them (a read imports nothing and changes nothing).
    before = tree_bytes(legacy_git_brain)
    run = bsi("--json", "signal", "list", brain=legacy_git_brain, now=LNOW)
    assert run.code == 0, run.err
    assert {s["sig_id"]: s["state"] for s in run.json()["signals"]} == LEGACY_SIGNALS
    pending = bsi("--json", "signal", "list", "--pending", "--to", "sess-20260316-2036-pilote-be5-wrap",
                  brain=legacy_git_brain, now=LNOW)
    assert [s["sig_id"] for s in pending.json()["signals"]] == ["sig-20260316-001", "sig-20260316-002"]
    assert tree_bytes(legacy_git_brain) == before


def test_a_legacy_signal_without_a_destination_lists_it_as_a_dash(legacy_git_brain: Path, bsi: Bsi) -> None:
    # The index's `—` destination is imported as none: the TO column was left blank, as if the row were cut.
    run = bsi("signal", "list", brain=legacy_git_brain, now=LNOW)
    assert run.code == 0, run.err
    row = next(line for line in run.out.splitlines() if line.startswith("sig-20261129-155845-paused"))
    assert row.split()[4] == "—", row
    listed = bsi("--json", "signal", "list", brain=legacy_git_brain, now=LNOW).json()["signals"]
    assert next(s for s in listed if s["sig_id"] == "sig-20261129-155845-paused")["to"] == ""  # the record's own


def test_a_legacy_signal_row_is_acknowledged_and_the_others_imported(legacy_git_brain: Path, bsi: Bsi) -> None:
    ack = bsi("signal", "ack", "sig-20260316-002", brain=legacy_git_brain, now=LNOW)
    assert ack.code == 0, ack.err
    docs = signal_docs(legacy_git_brain)
    assert {doc["sig_id"]: doc["state"] for doc in docs} == {**LEGACY_SIGNALS, "sig-20260316-002": "delivered"}
    acked = next(doc for doc in docs if doc["sig_id"] == "sig-20260316-002")
    assert acked["payload"] == "attend la fin de la migration schema" and acked["delivered_by"]
    subject, files = last_commit(legacy_git_brain)
    assert subject == "bsi: signal sig-20260316-002 delivered"
    assert "signals/sig-20260316-002.yml" in files and "BRAIN-INDEX.md" in files


def test_a_claim_hand_edited_with_tabs_after_its_colons_is_marked_stale(legacy_git_brain: Path, bsi: Bsi) -> None:
    # `key:<TAB>value` reads (the YAML reader takes it) but the editing parser refuses it: the watchdog failed as
    # an internal error (exit 70) and no claim of the brain was marked. A file that reads is a file that is edited.
    path = legacy_git_brain / "claims" / f"{PILOT}.yml"
    path.write_text(path.read_text(encoding="utf-8").replace(": ", ":\t"), encoding="utf-8")
    ok(bsi("claim", "list", brain=legacy_git_brain, now=LNOW))
    run = bsi("watchdog", brain=legacy_git_brain, now="2026-03-17T12:00:00+01:00")
    assert run.code == 0, run.err
    doc = safe_load_file(path)  # the product's reader: PyYAML's pure reader refuses the tabs
    assert doc["status"] == "stale" and doc["sess_id"] == PILOT and doc["scope"] == "brain-engine/"
    assert doc["story_angle"].startswith("Pilote BE-5 wrap")


def test_the_gate_the_old_scripts_bypassed_still_waits_for_a_human(legacy_brain: Path, bsi: Bsi) -> None:
    # SPEC 14.2: a cascade pause and resume set superoauth-auth back to `open` after its HUMAN_GATE, with no
    # approval (the old scripts wrote the event with no `by`); the gate was never decided, so it still holds
    shown = bsi("--json", "claim", "show", AUTH, brain=legacy_brain, now=LNOW)
    assert shown.code == 0 and shown.json()["status"] == "waiting_human", shown
    refused = bsi("preflight", "check", AUTH, "superoauth/src/auth/jwt.py", brain=legacy_brain, now=LNOW)
    assert refused.code == 4 and "waiting_human" in refused.err, refused
    ok(bsi("gate", "approve", AUTH, brain=legacy_brain, now=LNOW))
    assert bsi("preflight", "check", AUTH, "superoauth/src/auth/jwt.py", brain=legacy_brain, now=LNOW).code == 0
