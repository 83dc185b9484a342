"""Claim rules in process against `Brain`: exit triggers (SPEC 6.6), an orchestrated close's result, renew,
and signal destinations that resolve through the claim tree (SPEC 7).

Each test asks a rule for its decision on a `bsi init` brain; the exit codes, `--json` shapes and commits
of the same commands are pinned by the CLI suite (tests/cli).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.paths.scope import parse_scope_args
from brain_tui.core.rules.claims import CloseRequest
from tests.bsi import NOW
from tests.conftest import load_claim, signal_docs


@pytest.fixture
def facade(brain: Path) -> Brain:
    """The facade on a fresh `bsi init` brain, at NOW, writing without commits."""
    return Brain(brain, now=NOW, commit=False)


def opened(brain: Brain, scope: str, ttl: timedelta | None = None, **fields: Any) -> str:
    """Open a claim as `bsi claim open --scope SCOPE` does (the brain's default TTL and instance)."""
    req = OpenRequest(scope=parse_scope_args([scope], brain.root), ttl=ttl or brain.config.ttl_default,
                      instance=brain.instance, **fields)
    return brain.open_claim(req)


def signals_from(root: Path, sender: str) -> list[dict[str, Any]]:
    """Signal files sent by `sender`."""
    return [s for s in signal_docs(root) if s["from"] == sender]


TRIGGERS = {
    # name: (open fields, close status, expected (type, destination role, payload fragment) or "gate")
    "signal": ({"on_done": "signal → READY_FOR_REVIEW parent"}, "ok", ("READY_FOR_REVIEW", "domain", "")),
    "notify": ({"on_done": "notify → pilote"}, "ok", ("INFO", "pilot", "")),
    "arrow": ({"on_done": "signal->CHECKPOINT pilot   # trailing comment"}, "ok", ("CHECKPOINT", "pilot", "")),
    "trigger": ({"on_done": "trigger → type:test scope:be/api/"}, "ok",
                ("HANDOFF", "pilot", "type:test scope:be/api/")),
    "partial": ({"on_done": "notify → parent"}, "partial", ("INFO", "domain", "")),
    "on_partial": ({"on_done": "notify → pilote", "on_partial": "signal  →  CHECKPOINT parent"}, "partial",
                   ("CHECKPOINT", "domain", "")),
    "fail_default": ({}, "failed", ("BLOCKED_ON", "domain", "")),
    "on_fail": ({"on_fail": "signal → BLOCKED_ON pilote # tell the pilot"}, "failed", ("BLOCKED_ON", "pilot", "")),
    "none": ({}, "ok", ("CHECKPOINT", "domain", "")),
    "gate": ({"on_done": "gate:human -> 'ship it?'"}, "ok", "gate"),
}


def test_exit_triggers(facade: Brain) -> None:
    root = facade.root
    pilot = opened(facade, "be/", type="pilote", slug="pilot")
    domain = opened(facade, "be/api/", parent=pilot, satellite_type="domain", level="domain", slug="domain")
    opened(facade, "be/api/routes.py", parent=domain, satellite_type="code", slug="leaf")
    opened(facade, "be/api/README.md", parent=domain, satellite_type="brain-write", slug="leaf2")
    roles = {"pilot": pilot, "domain": domain}
    leaves = {name: opened(facade, f"be/api/t/{name}.md", parent=domain, satellite_type="brain-write",
                           slug=name.replace("_", "-"), **fields)
              for name, (fields, _, _) in TRIGGERS.items()}
    for name, (_, result, expected) in TRIGGERS.items():
        sess = leaves[name]
        out = facade.close_claim(sess, CloseRequest(status=result, files=[f"be/api/t/{name}.md"]))
        sent = signals_from(root, sess)
        if expected == "gate":
            assert out.status == "waiting_human" and load_claim(root, sess)["status"] == "waiting_human"
            doc = load_claim(root, sess)
            assert doc["result"]["status"] == "ok" and "closed_at" not in doc
            assert [(s["type"], s["to"], s["payload"]) for s in sent] == [("HUMAN_GATE", pilot, "ship it?")]
            facade.gates.approve(sess)
            assert load_claim(root, sess)["status"] == "closed" and load_claim(root, sess)["closed_at"]
            continue
        sig_type, role, fragment = expected
        assert out.status == "closed", name
        assert len(sent) == 1, (name, sent)
        assert (sent[0]["type"], sent[0]["to"]) == (sig_type, roles[role]), name
        assert fragment in sent[0]["payload"]
        assert load_claim(root, sess)["result"]["signal_id"] == sent[0]["sig_id"]


def test_orchestrated_close_lists_children_ids_and_partial_propagates(facade: Brain) -> None:
    pilot = opened(facade, "be/", type="pilote", slug="pilot")
    a = opened(facade, "be/a.md", parent=pilot, satellite_type="brain-write", slug="a")
    b = opened(facade, "be/b.md", parent=pilot, satellite_type="brain-write", slug="b")
    facade.close_claim(a, CloseRequest(status="ok"))
    facade.close_claim(b, CloseRequest(status="partial"))
    out = facade.close_claim(pilot, CloseRequest())
    result = load_claim(facade.root, pilot)["result"]
    assert result["children"] == [a, b]
    assert result["status"] == "partial" and out.result["status"] == "partial"
    detail = {d["sess_id"]: d["result"] for d in result["children_detail"]}
    assert detail == {a: "ok", b: "partial"}


def test_renew_a_waiting_gate_and_a_paused_claim(brain: Path) -> None:
    facade = Brain(brain, now=NOW, commit=False)
    gated = opened(facade, "be/", slug="gated")
    paused = opened(facade, "fe/", slug="paused")
    facade.gates.request(gated, "ok?")
    facade.gates.pause(paused)
    later = Brain(brain, now="2026-11-29T11:00:00Z", commit=False)
    for sess in (gated, paused):
        before = load_claim(brain, sess)["status"]
        later.renew_claim(sess, timedelta(hours=8))
        doc = load_claim(brain, sess)
        assert doc["status"] == before
        assert doc["expires_at"] == "2026-11-29T18:00:00+00:00"  # capped at opened_at + 8 h


def test_pilote_and_parent_resolve_through_the_tree(facade: Brain) -> None:
    pilot = opened(facade, "be/", type="pilote", slug="pilot")
    domain = opened(facade, "be/api/", parent=pilot, satellite_type="domain", slug="dom")
    leaf = opened(facade, "be/api/x.py", parent=domain, satellite_type="code", slug="leaf")
    to_pilot = facade.signals.send(leaf, "pilote", "BLOCKED_ON", "waiting")
    to_pilot2 = facade.signals.send(leaf, "pilot", "INFO", "english spelling")
    to_parent = facade.signals.send(leaf, "parent", "CHECKPOINT", "half done")
    by_id = {s["sig_id"]: s for s in signal_docs(facade.root)}
    assert by_id[to_pilot]["to"] == pilot and by_id[to_pilot2]["to"] == pilot
    assert by_id[to_parent]["to"] == domain


def test_a_trigger_passes_the_finished_satellite_s_result_to_the_one_it_launches(facade: Brain) -> None:
    from brain_tui.core.sessions.launch import launch_prompt

    pilot = opened(facade, "be/", type="pilote", slug="pilot")
    done = opened(facade, "be/api.py", parent=pilot, satellite_type="brain-write", slug="api",
                  on_done="trigger → type:test scope:be/tests/")
    facade.close_claim(done, CloseRequest(status="ok", files=["be/api.py"], notes="pagination\nnot tested"))
    (handoff,) = [s for s in signals_from(facade.root, done) if s["type"] == "HANDOFF"]
    new_id = facade.launches.open_handoff(handoff["sig_id"])
    doc = load_claim(facade.root, new_id)
    assert doc["handoff_from"] == done and doc["parent_satellite"] == pilot
    assert doc["previous_result"] == {"status": "ok", "files_modified": ["be/api.py"],
                                      "notes": "pagination\nnot tested", "signal_id": handoff["sig_id"]}
    snapshot = facade.snapshot()
    claim = snapshot.claim(new_id)
    assert claim is not None
    prompt = launch_prompt(snapshot, claim).splitlines()
    assert f"after: {done} — status ok — files be/api.py — notes pagination not tested" in prompt


def test_breath_alerts_tell_the_pilot_once_and_wait_in_the_attention_queue(facade: Brain) -> None:
    pilot = opened(facade, "be/", type="pilote", slug="pilot")
    sat = opened(facade, "be/api.py", parent=pilot, satellite_type="brain-write", slug="api")
    sprint = "sprint-20261129-1000-be6"
    facade.breath.inhale(sprint, "tech-lead", ["a.md"], session=sat)
    assert signals_from(facade.root, sat) == [] and not [i for i in facade.attention() if i.kind == "breath"]
    facade.breath.inhale(sprint, "tech-lead", ["b.md", "c.md"], session=sat)  # 3 sources: the inhale rule
    (told,) = signals_from(facade.root, sat)
    assert (told["to"], told["type"]) == (pilot, "INFO")
    assert told["payload"].startswith(f"breath alert {sprint}: tech-lead inhaled 3 sources")
    facade.breath.inhale(sprint, "tech-lead", ["c.md"], session=sat)  # the same alert is not new
    assert len(signals_from(facade.root, sat)) == 1
    (item,) = [i for i in facade.attention() if i.kind == "breath"]
    assert item.sess_id == sat and "inhaled 3 sources" in item.summary
    facade.breath.reference(sprint, ["a.md"])  # 3 loaded / 1 referenced: the ratios wait for the expire
    assert len(signals_from(facade.root, sat)) == 1
    facade.breath.expire(sprint, ["a.md"])
    payloads = sorted(s["payload"].split(": ", 1)[1] for s in signals_from(facade.root, sat))
    assert [p.split()[0] for p in payloads] == ["context_load", "exhale_rate", "stale_ratio", "tech-lead"]
    assert {i.summary.split(": ", 1)[1].split()[0] for i in facade.attention() if i.kind == "breath"} == {
        "context_load", "exhale_rate", "stale_ratio", "tech-lead"}
