"""`bsi gate …` and `bsi claim close`: the SPEC 6.3 table, tiers (6.5), exit triggers (6.6), defects of SPEC 14."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.bsi import NOW, Run, commits_since, git, head, last_commit, ok, run_bsi
from tests.conftest import claim_file, load_claim, signal_docs, tree_bytes

Bsi = Callable[..., Run]
HUMAN = "Ada Tester <ada@example.org>"
EARLY = "2026-11-29T07:00:00Z"


def opened(brain: Path, *args: str, now: str = NOW) -> str:
    """Open a claim, return its ID."""
    return ok(run_bsi("claim", "open", *args, brain=brain, now=now))


def status(brain: Path, sess_id: str) -> str:
    """A claim's status as written."""
    return load_claim(brain, sess_id)["status"]


def events(brain: Path, sess_id: str) -> list[str]:
    """The events of a claim's gate_history."""
    return [e["event"] for e in load_claim(brain, sess_id).get("gate_history") or []]


def signals_from(brain: Path, sender: str) -> list[dict[str, Any]]:
    """Signal files sent by `sender`."""
    return [s for s in signal_docs(brain) if s["from"] == sender]


def pure_yaml(path: Path) -> Any:
    """Parse with PyYAML's pure-Python safe loader (another reader than the product's)."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)


@pytest.fixture(scope="module")
def _tree_template(_brain_template: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("tree") / "brain"
    shutil.copytree(_brain_template, root, symlinks=True)
    ids = {"pilot": opened(root, "--scope", "be/", "--type", "pilote", "--slug", "pilot")}
    ids["domain"] = opened(root, "--scope", "be/api/", "--parent", ids["pilot"], "--satellite-type", "domain",
                           "--level", "domain", "--slug", "domain")
    ids["leaf"] = opened(root, "--scope", "be/api/routes.py", "--parent", ids["domain"], "--satellite-type", "code",
                         "--slug", "leaf")
    ids["leaf2"] = opened(root, "--scope", "be/api/README.md", "--parent", ids["domain"],
                          "--satellite-type", "brain-write", "--slug", "leaf2")
    return root, ids


@pytest.fixture
def tree(brain: Path, _tree_template: tuple[Path, dict[str, str]]) -> dict[str, str]:
    """`brain` holding pilot → domain → leaf (code) and leaf2 (brain-write), all open."""
    shutil.rmtree(brain)
    shutil.copytree(_tree_template[0], brain, symlinks=True)
    return dict(_tree_template[1])


# -- the allowed rows of SPEC 6.3 ----------------------------------------------------------------------
def test_request_then_approve(brain: Path, bsi: Bsi, tree: dict[str, str]) -> None:
    leaf, pilot = tree["leaf"], tree["pilot"]
    before = head(brain)
    run = bsi("--json", "gate", "request", leaf, "deploy to staging?", brain=brain)
    assert run.code == 0 and run.json()["status"] == "waiting_human"
    doc = load_claim(brain, leaf)
    assert doc["status"] == "waiting_human"
    assert doc["gate_history"][-1] == {"ts": "2026-11-29T10:00:00+00:00", "event": "HUMAN_GATE", "by": leaf,
                                       "message": "deploy to staging?"}
    (sig,) = signals_from(brain, leaf)
    assert (sig["type"], sig["to"], sig["payload"], sig["state"]) == ("HUMAN_GATE", pilot, "deploy to staging?",
                                                                       "pending")
    assert commits_since(brain, before) == [f"bsi: gate HUMAN_GATE {leaf}"]
    assert last_commit(brain)[1] == sorted(["BRAIN-INDEX.md", f"claims/{leaf}.yml", f"signals/{sig['sig_id']}.yml"])
    before = head(brain)
    ok(bsi("gate", "approve", leaf, "go", brain=brain, now="2026-11-29T10:05:00Z"))
    doc = load_claim(brain, leaf)
    assert doc["status"] == "open"
    assert doc["gate_history"][-1] == {"ts": "2026-11-29T10:05:00+00:00", "event": "APPROVED", "by": HUMAN,
                                       "message": "go"}
    assert signals_from(brain, leaf)[0]["state"] == "delivered"  # the gate is decided
    assert commits_since(brain, before) == [f"bsi: gate APPROVED {leaf}"]


def test_reject_needs_a_reason_and_fails_with_blocked_on_to_the_parent(brain: Path, bsi: Bsi,
                                                                        tree: dict[str, str]) -> None:
    leaf, domain = tree["leaf"], tree["domain"]
    ok(bsi("gate", "request", leaf, "merge?", brain=brain))
    files = tree_bytes(brain)
    for reason in ([], [""], ["  "]):
        run = bsi("gate", "reject", leaf, *reason, brain=brain)
        assert run.code == 65 and "reason" in run.err
    assert tree_bytes(brain) == files
    ok(bsi("gate", "reject", leaf, "tests are flaky", brain=brain))
    doc = load_claim(brain, leaf)
    assert doc["status"] == "failed" and doc["gate_history"][-1]["event"] == "REJECTED"
    assert doc["gate_history"][-1]["message"] == "tests are flaky" and doc["gate_history"][-1]["by"] == HUMAN
    # SPEC 6.3: BLOCKED_ON to the parent, signed by the human; it never rings that human as "needs you"
    blocked = [s for s in signal_docs(brain) if s["type"] == "BLOCKED_ON"]
    assert len(blocked) == 1 and blocked[0]["to"] == domain and "tests are flaky" in blocked[0]["payload"]
    assert blocked[0]["from"] == f"human:{HUMAN}"
    assert bsi("--json", "attention", brain=brain).json()["items"] == []
    assert last_commit(brain)[0] == f"bsi: gate REJECTED {leaf}"


def test_abort_needs_a_reason_and_cascades_recursively(brain: Path, bsi: Bsi) -> None:
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--ttl", "8h", "--slug", "pilot", now=EARLY)
    crashed = opened(brain, "--scope", "be/old.py", "--parent", pilot, "--satellite-type", "brain-write",
                     "--ttl", "1h", "--slug", "crashed", now=EARLY)
    domain = opened(brain, "--scope", "be/api/", "--parent", pilot, "--satellite-type", "domain", "--slug", "dom")
    waiting = opened(brain, "--scope", "be/api/a.py", "--parent", domain, "--satellite-type", "code", "--slug", "wait")
    paused = opened(brain, "--scope", "be/api/b.py", "--parent", domain, "--satellite-type", "code", "--slug", "pau")
    done = opened(brain, "--scope", "be/api/c.md", "--parent", domain, "--satellite-type", "brain-write",
                  "--slug", "done")
    ok(bsi("gate", "request", waiting, "ok?", brain=brain))
    ok(bsi("gate", "pause", paused, brain=brain))
    ok(bsi("claim", "close", done, "--status", "ok", brain=brain))
    ok(bsi("watchdog", brain=brain))
    assert status(brain, crashed) == "stale"
    files = tree_bytes(brain)
    assert bsi("gate", "abort", pilot, brain=brain).code == 65
    assert tree_bytes(brain) == files
    done_bytes = claim_file(brain, done).read_bytes()
    run = bsi("--json", "gate", "abort", pilot, "wrong plan", brain=brain)
    assert run.code == 0 and sorted(run.json()["cascade"]) == sorted([domain, waiting, paused])
    assert status(brain, pilot) == "failed" and events(brain, pilot)[-1] == "ABORTED"
    for sess in (domain, waiting, paused):
        doc = load_claim(brain, sess)
        assert doc["status"] == "failed" and doc["gate_history"][-1]["event"] == "ABORTED_CASCADE"
        assert "wrong plan" in doc["gate_history"][-1]["message"]
    assert claim_file(brain, done).read_bytes() == done_bytes  # terminal: untouched
    assert status(brain, crashed) == "stale"  # a stale descendant waits for a decision aimed at it
    assert last_commit(brain)[0] == f"bsi: gate ABORTED {pilot}"
    run = bsi("--json", "gate", "abort", crashed, "session crashed", brain=brain)  # any non-terminal (SPEC 6.3)
    assert run.code == 0 and run.json()["cascade"] == []
    doc = load_claim(brain, crashed)
    assert doc["status"] == "failed" and doc["gate_history"][-1]["event"] == "ABORTED"


def test_watchdog_marks_open_paused_and_waiting_claims_stale(brain: Path, bsi: Bsi) -> None:
    ids = {name: opened(brain, "--scope", f"{name}/", "--ttl", "1h", "--slug", name)
           for name in ("op", "pa", "wa")}
    ok(bsi("gate", "pause", ids["pa"], brain=brain))
    ok(bsi("gate", "request", ids["wa"], "?", brain=brain))
    run = bsi("--json", "watchdog", brain=brain, now="2026-11-29T11:05:00Z")
    assert sorted(run.json()["marked"]) == sorted(ids.values())
    for name, previous in (("op", "open"), ("pa", "paused"), ("wa", "waiting_human")):
        doc = load_claim(brain, ids[name])
        assert (doc["status"], doc["stale_from"]) == ("stale", previous)
        assert doc["gate_history"][-1]["event"] == "STALE"


@pytest.mark.parametrize("word", ["weird", "'[open]'", "Opened"])
def test_watchdog_marks_a_tree_stale_past_a_status_a_hand_edit_left_unknown(brain: Path, bsi: Bsi, word: str) -> None:
    """A hand edit leaves a domain's status a word bsi does not know (it blocks as written: SPEC 22). The watchdog's
    last door read that claim as newly holding once marked stale, refused the whole write (exit 10) against its own
    pilot, and no claim of the tree was ever marked."""
    pilot = opened(brain, "--scope", "a/", "--type", "pilote", "--ttl", "1h", "--slug", "p")
    domain = opened(brain, "--scope", "a/sub/", "--parent", pilot, "--ttl", "1h", "--slug", "d")
    leaf = opened(brain, "--scope", "a/sub/f.md", "--parent", domain, "--ttl", "1h", "--slug", "l")
    path = claim_file(brain, domain)
    path.write_text(path.read_text().replace("status: open", f"status: {word}"))
    git(brain, "commit", "-qam", "hand edit")
    run = bsi("--json", "watchdog", brain=brain, now="2026-11-29T11:05:00Z")
    assert run.code == 0, run.err
    assert sorted(run.json()["marked"]) == sorted([pilot, domain, leaf])
    assert [status(brain, sess) for sess in (pilot, domain, leaf)] == ["stale"] * 3
    assert run_bsi("claim", "open", "--scope", "a/sub/g.md", "--slug", "x", brain=brain,
                   now="2026-11-29T11:06:00Z").code == 10  # stale keeps blocking


# -- refused transitions: exit 12, nothing changed -----------------------------------------------------------
@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One claim in each status: open, waiting_human, paused, stale, closed, failed, released."""
    root = tmp_path_factory.mktemp("states") / "brain"
    ok(run_bsi("init", str(root), cwd=root.parent))
    ids = {
        "stale": opened(root, "--scope", "s/", "--ttl", "1h", "--slug", "stale", now=EARLY),
        "released": opened(root, "--scope", "r/", "--ttl", "1h", "--slug", "released", now=EARLY),
    }
    ok(run_bsi("watchdog", brain=root))
    ok(run_bsi("claim", "release", ids["released"], "--reason", "crashed", brain=root))
    for name in ("open", "waiting", "paused", "closed", "failed"):
        ids[name] = opened(root, "--scope", f"{name}/", "--slug", name)
    ok(run_bsi("gate", "request", ids["waiting"], "?", brain=root))
    ok(run_bsi("gate", "pause", ids["paused"], brain=root))
    ok(run_bsi("claim", "close", ids["closed"], "--status", "ok", brain=root))
    ok(run_bsi("gate", "abort", ids["failed"], "stop", brain=root))
    return {"root": root, "ids": ids}


#: The whole table of refused transitions is asked of `Brain` in tests/rules/test_transitions.py; `bsi` keeps
#: one case of a gate verb and one of a claim verb for the exit code (12), the message and nothing written.
REFUSED = {
    ("gate", "approve"): ["open"],
    ("claim", "close", "{id}", "--status", "ok"): ["paused"],
}


def test_states_fixture_is_what_it_says(states: dict[str, Any]) -> None:
    root, ids = states["root"], states["ids"]
    expected = {"open": "open", "waiting": "waiting_human", "paused": "paused", "stale": "stale",
                "closed": "closed", "failed": "failed", "released": "released"}
    assert {name: status(root, sess) for name, sess in ids.items()} == expected


@pytest.mark.parametrize("action", list(REFUSED), ids=[" ".join(a[:2]) for a in REFUSED])
def test_transitions_not_in_the_table_exit_12_and_change_nothing(states: dict[str, Any],
                                                                 action: tuple[str, ...]) -> None:
    root, ids = states["root"], states["ids"]
    before, files = head(root), tree_bytes(root)
    for name in REFUSED[action]:
        args = [a.replace("{id}", ids[name]) for a in action] if "{id}" in action else [*action, ids[name]]
        run = run_bsi(*args, brain=root)
        assert run.code == 12, (args, name, run.code, run.err)
        assert "cannot" in run.err
        assert tree_bytes(root) == files and head(root) == before, (args, name)


# -- pause / resume: defects 14.1 and 14.2 -----------------------------------------------------------------------
def test_pause_cascades_recursively_by_exact_parent_match(brain: Path, bsi: Bsi) -> None:
    pilote = opened(brain, "--scope", "a/", "--type", "pilote", "--slug", "pilote")
    wrap = opened(brain, "--scope", "b/", "--type", "pilote", "--slug", "pilote-be5-wrap")
    assert wrap.startswith(pilote)  # the prefix trap of defect 14.1
    child = opened(brain, "--scope", "a/x/", "--parent", pilote, "--satellite-type", "domain", "--slug", "child")
    grand = opened(brain, "--scope", "a/x/y.py", "--parent", child, "--satellite-type", "code", "--slug", "grand")
    other = opened(brain, "--scope", "b/z.py", "--parent", wrap, "--satellite-type", "code", "--slug", "other")
    ok(bsi("gate", "request", grand, "ok?", brain=brain))
    before = head(brain)
    run = bsi("--json", "gate", "pause", pilote, "urgent", brain=brain)
    assert run.code == 0 and sorted(run.json()["cascade"]) == sorted([child, grand])
    assert [status(brain, s) for s in (pilote, child, grand)] == ["paused"] * 3
    assert status(brain, wrap) == "open" and status(brain, other) == "open"
    assert events(brain, other) == [] and events(brain, wrap) == []
    for sess, previous in ((child, "open"), (grand, "waiting_human")):
        doc = load_claim(brain, sess)
        assert (doc["paused_by"], doc["paused_from"]) == (pilote, previous)
        assert doc["gate_history"][-1]["event"] == "PAUSED_CASCADE"
    assert events(brain, pilote)[-1] == "PAUSED"
    subject, files = last_commit(brain)
    assert commits_since(brain, before) == [f"bsi: gate PAUSED {pilote}"]
    paused_signal = [s for s in signal_docs(brain) if s["type"] == "PAUSED"]
    assert len(paused_signal) == 1
    assert files == sorted(["BRAIN-INDEX.md", *(f"claims/{s}.yml" for s in (pilote, child, grand)),
                            f"signals/{paused_signal[0]['sig_id']}.yml"])


def test_pause_then_resume_restores_waiting_human(brain: Path, bsi: Bsi, tree: dict[str, str]) -> None:
    pilot, leaf, leaf2 = tree["pilot"], tree["leaf"], tree["leaf2"]
    ok(bsi("gate", "request", leaf, "deploy?", brain=brain))
    ok(bsi("gate", "pause", pilot, brain=brain))
    run = bsi("--json", "gate", "resume", pilot, "back", brain=brain)
    assert run.code == 0 and leaf in run.json()["cascade"]
    assert status(brain, leaf) == "waiting_human"  # the gate is not bypassed
    assert status(brain, leaf2) == "open" and status(brain, pilot) == "open"
    assert events(brain, leaf) == ["HUMAN_GATE", "PAUSED_CASCADE", "RESUMED_CASCADE"]
    assert "paused_by" not in load_claim(brain, leaf)
    assert bsi("claim", "close", leaf, "--tests-total", "1", "--tests-passed", "1", "--tests-failed", "0",
               brain=brain).code == 12  # still needs the human
    # the waiting claim paused on its own resumes to waiting_human too
    ok(bsi("gate", "pause", leaf, brain=brain))
    ok(bsi("gate", "resume", leaf, brain=brain))
    assert status(brain, leaf) == "waiting_human"
    assert last_commit(brain)[0] == f"bsi: gate RESUMED {leaf}"


def test_resume_restores_only_descendants_paused_by_the_same_ancestor(brain: Path, bsi: Bsi,
                                                                       tree: dict[str, str]) -> None:
    pilot, domain, leaf, leaf2 = tree["pilot"], tree["domain"], tree["leaf"], tree["leaf2"]
    ok(bsi("gate", "pause", domain, "domain hold", brain=brain))  # pauses leaf and leaf2, by domain
    sibling = opened(brain, "--scope", "be/other.md", "--parent", pilot, "--satellite-type", "brain-write",
                     "--slug", "sib")
    run = bsi("--json", "gate", "pause", pilot, brain=brain)
    assert run.json()["cascade"] == [sibling]  # already-paused claims keep their own pauser
    assert load_claim(brain, leaf)["paused_by"] == domain
    run = bsi("--json", "gate", "resume", pilot, brain=brain)
    assert run.json()["cascade"] == [sibling]
    assert [status(brain, s) for s in (pilot, sibling)] == ["open", "open"]
    assert [status(brain, s) for s in (domain, leaf, leaf2)] == ["paused"] * 3
    run = bsi("--json", "gate", "resume", domain, brain=brain)
    assert sorted(run.json()["cascade"]) == sorted([leaf, leaf2])
    assert [status(brain, s) for s in (domain, leaf, leaf2)] == ["open"] * 3


def test_gate_status_shows_the_claim_and_its_subtree(brain: Path, bsi: Bsi, tree: dict[str, str]) -> None:
    ok(bsi("gate", "request", tree["leaf"], "look at this", brain=brain))
    doc = bsi("--json", "gate", "status", tree["domain"], brain=brain).json()
    assert doc["claim"]["sess_id"] == tree["domain"]
    assert sorted(c["sess_id"] for c in doc["subtree"]) == sorted([tree["leaf"], tree["leaf2"]])
    text = bsi("gate", "status", tree["pilot"], brain=brain).out
    assert all(tree[k] in text for k in ("pilot", "domain", "leaf", "leaf2")) and "waiting_human" in text


# -- gate_history stays YAML (14.3), hostile messages (14.10) -------------------------------------------------------
def test_gate_history_after_a_result_block_stays_valid_yaml(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "g/", "--satellite-type", "brain-write", "--on-done",
                  'gate:human → "deploy \\"prod\\" ?"  # ask first')
    ok(bsi("claim", "close", sess, "--status", "ok", "--files", "g/a.md", "g/b c.md", "--notes",
           'notes: "quoted" # not a comment\nsecond line', brain=brain))
    assert status(brain, sess) == "waiting_human"
    for action in (("pause",), ("resume",), ("approve", 'ok "go"\nnow')):
        ok(bsi("gate", action[0], sess, *action[1:], brain=brain))
    path = claim_file(brain, sess)
    doc = pure_yaml(path)
    assert doc["status"] == "closed" and doc["closed_at"]
    assert doc["result"]["files_modified"] == ["g/a.md", "g/b c.md"]
    assert doc["result"]["notes"] == 'notes: "quoted" # not a comment\nsecond line'
    assert [e["event"] for e in doc["gate_history"]] == ["HUMAN_GATE", "PAUSED", "RESUMED", "APPROVED"]
    assert doc["gate_history"][0]["message"] == 'deploy "prod" ?'
    assert doc["gate_history"][-1]["message"] == 'ok "go"\nnow'


def test_appending_to_a_hand_written_history_placed_before_result(brain: Path, bsi: Bsi) -> None:
    path = brain / "claims" / "sess-20261129-0955-legacy.yml"
    path.write_text(
        "sess_id: sess-20261129-0955-legacy\ntype: satellite\nscope: legacy/\nstatus: waiting_human\n"
        'opened_at: "2026-11-29T09:55"\n'
        "gate_history:\n"
        '  - { ts: "2026-11-29T09:56", event: HUMAN_GATE, message: "première gate" }\n'
        "result:\n  status: ok\n  files_modified: [legacy/x.md]\n  tests:\n    total: 1\n    passed: 1\n"
        "    failed: 0\n  signal_id: null\n")
    ok(bsi("gate", "reject", "sess-20261129-0955-legacy", 'bad "idea": no', brain=brain))
    doc = pure_yaml(path)
    assert [e["event"] for e in doc["gate_history"]] == ["HUMAN_GATE", "REJECTED"]
    assert doc["gate_history"][1]["message"] == 'bad "idea": no'
    assert doc["result"]["tests"] == {"total": 1, "passed": 1, "failed": 0} and doc["status"] == "failed"


HOSTILE_MESSAGES = ['deploy "prod" ?', "it's: a # trap", ":@ ?# {a: [b]} & *x !t",
                    "line 1\nline 2\n", "esc \x1b[2J and nel \x85", "- [ ] yes"]


def test_messages_with_quotes_and_newlines_are_stored_exactly(brain: Path, bsi: Bsi) -> None:
    sessions = [opened(brain, "--scope", f"m{i}/", "--slug", f"m{i}") for i in range(len(HOSTILE_MESSAGES))]
    for sess, message in zip(sessions, HOSTILE_MESSAGES, strict=True):
        ok(bsi("gate", "request", sess, message, brain=brain))
        ok(bsi("gate", "reject", sess, message, brain=brain))
        doc = pure_yaml(claim_file(brain, sess))
        assert [e["message"] for e in doc["gate_history"]] == [message, message]
        assert doc["gate_message"] == message
    payloads = {s["payload"] for s in signal_docs(brain) if s["type"] == "HUMAN_GATE"}
    assert payloads == set(HOSTILE_MESSAGES)


# -- tiered close (SPEC 6.5) -------------------------------------------------------------------------------------------
def test_tier_1_needs_a_result_status(brain: Path, bsi: Bsi, tree: dict[str, str]) -> None:
    leaf2 = tree["leaf2"]
    files = tree_bytes(brain)
    run = bsi("claim", "close", leaf2, brain=brain)
    assert run.code == 11 and "Tier 1" in run.err
    assert tree_bytes(brain) == files
    assert bsi("claim", "close", leaf2, "--status", "done", brain=brain).code == 65
    out = bsi("--json", "claim", "close", leaf2, "--status", "ok", "--files", "be/api/README.md", brain=brain).json()
    assert (out["status"], out["tier"]) == ("closed", 1)
    doc = load_claim(brain, leaf2)
    assert doc["result"]["status"] == "ok" and doc["result"]["files_modified"] == ["be/api/README.md"]
    assert last_commit(brain)[0] == f"bsi: close satellite {leaf2}"
    solo = opened(brain, "--scope", "solo/")
    assert bsi("claim", "close", solo, brain=brain).code == 11
    real = head(brain)[:7]
    for made_up in ("deadbee", "nothex", "", " "):  # seed 002: "hash réel uniquement"; a blank one is no hash
        assert bsi("claim", "close", solo, "--status", "partial", "--commit", made_up, brain=brain).code == 65
    ok(bsi("claim", "close", solo, "--status", "partial", "--commit", real, brain=brain))
    assert last_commit(brain)[0] == f"bsi: close claim {solo}"
    assert load_claim(brain, solo)["result"] == {"status": "partial", "commit": real}


def test_tier_2_needs_green_tests_and_tells_the_parent_when_red(brain: Path, bsi: Bsi, tree: dict[str, str]) -> None:
    leaf, domain = tree["leaf"], tree["domain"]
    files = tree_bytes(brain)
    for tests in ([], ["--status", "ok"], ["--tests-total", "0", "--tests-passed", "0", "--tests-failed", "0"]):
        run = bsi("claim", "close", leaf, *tests, brain=brain)
        assert run.code == 11 and "Tier 2" in run.err, tests
    assert bsi("claim", "close", leaf, "--tests-total", "2", "--tests-passed", "3", brain=brain).code == 65
    assert tree_bytes(brain) == files
    claim_bytes = claim_file(brain, leaf).read_bytes()
    before = head(brain)
    red = bsi("claim", "close", leaf, "--tests-total", "12", "--tests-passed", "10", "--tests-failed", "2",
              brain=brain)
    assert red.code == 11 and "stays open" in red.err
    assert claim_file(brain, leaf).read_bytes() == claim_bytes
    (blocked,) = signals_from(brain, leaf)
    assert (blocked["type"], blocked["to"]) == ("BLOCKED_ON", domain) and "10/12" in blocked["payload"]
    assert commits_since(brain, before) == [f"bsi: signal {blocked['sig_id']} pending"]
    before = head(brain)
    out = bsi("--json", "claim", "close", leaf, "--tests-total", "12", "--tests-passed", "12", "--tests-failed", "0",
              "--files", "be/api/routes.py", brain=brain).json()
    assert (out["status"], out["tier"]) == ("closed", 2)
    result = load_claim(brain, leaf)["result"]
    assert result["tests"] == {"total": 12, "passed": 12, "failed": 0} and result["status"] == "ok"
    assert commits_since(brain, before) == [f"bsi: close satellite {leaf} [validated]"]


def test_tier_3_waits_for_every_descendant_and_aggregates(brain: Path, bsi: Bsi, tree: dict[str, str]) -> None:
    pilot, domain, leaf, leaf2 = tree["pilot"], tree["domain"], tree["leaf"], tree["leaf2"]
    files = tree_bytes(brain)
    run = bsi("claim", "close", domain, "--status", "ok", brain=brain)
    assert run.code == 11 and leaf in run.err and leaf2 in run.err
    assert bsi("claim", "close", pilot, "--status", "ok", brain=brain).code == 11  # grandchildren count too
    assert tree_bytes(brain) == files
    ok(bsi("claim", "close", leaf, "--tests-total", "3", "--tests-passed", "3", "--tests-failed", "0",
           "--files", "be/api/routes.py", "be/api/shared.py", brain=brain))
    ok(bsi("claim", "close", leaf2, "--status", "failed", "--files", "be/api/README.md", "be/api/shared.py",
           brain=brain))
    before = head(brain)
    out = bsi("--json", "claim", "close", domain, "--files", "be/api/__init__.py", brain=brain).json()
    assert (out["status"], out["tier"]) == ("closed", 3)
    result = load_claim(brain, domain)["result"]
    assert result["status"] == "partial" and out["result"]["status"] == "partial"  # a failed child
    assert result["children"] == [leaf, leaf2]  # the seeds' contract: a list of IDs, the detail beside it
    assert [(c["sess_id"], c["result"]) for c in result["children_detail"]] == [(leaf, "ok"), (leaf2, "failed")]
    assert sorted(result["files_modified"]) == sorted(["be/api/__init__.py", "be/api/routes.py",
                                                       "be/api/shared.py", "be/api/README.md"])
    assert commits_since(brain, before) == [f"bsi: close satellite {domain} [orchestrated]"]
    ok(bsi("claim", "close", pilot, "--status", "ok", brain=brain))  # --status overrides the aggregate
    presult = load_claim(brain, pilot)["result"]
    assert presult["status"] == "ok" and presult["children"] == [domain]
    assert "be/api/routes.py" in presult["files_modified"]
    assert last_commit(brain)[0] == f"bsi: close pilote {pilot} [orchestrated]"


def test_test_counts_given_at_any_close_are_kept_in_the_result(brain: Path, bsi: Bsi, tree: dict[str, str]) -> None:
    """SPEC 6.1: `result.tests` holds what `--tests-*` gave, whatever the tier; counts that do not add up are 65."""
    counts = ("--tests-total", "4", "--tests-passed", "3", "--tests-failed", "1")
    solo = opened(brain, "--scope", "solo/")
    assert bsi("claim", "close", solo, "--status", "ok", "--tests-total", "2", "--tests-passed", "3",
               brain=brain).code == 65
    ok(bsi("claim", "close", solo, "--status", "partial", *counts, brain=brain))
    assert load_claim(brain, solo)["result"]["tests"] == {"total": 4, "passed": 3, "failed": 1}
    ok(bsi("claim", "close", tree["leaf2"], "--status", "ok", "--tests-total", "2", "--tests-passed", "2",
           brain=brain))
    assert load_claim(brain, tree["leaf2"])["result"]["tests"] == {"total": 2, "passed": 2, "failed": 0}
    ok(bsi("claim", "close", tree["leaf"], "--tests-total", "1", "--tests-passed", "1", "--tests-failed", "0",
           brain=brain))
    ok(bsi("claim", "close", tree["domain"], *counts, brain=brain))
    result = load_claim(brain, tree["domain"])["result"]
    assert result["tests"] == {"total": 4, "passed": 3, "failed": 1} and result["status"] == "ok"


# -- exit triggers (SPEC 6.6) ----------------------------------------------------------------------------------------
# The table of which trigger sends what to whom runs in process: tests/unit/test_claim_rules.py.
def test_an_invalid_trigger_is_refused_at_open(brain: Path, bsi: Bsi) -> None:
    files = tree_bytes(brain)
    for flag, value in (("--on-done", "signal → ONLYTYPE"), ("--on-fail", "shout → pilote"),
                        ("--on-partial", "trigger → type:test")):
        run = bsi("claim", "open", "--scope", "x/", flag, value, brain=brain)
        assert run.code == 65, (flag, value, run.err)
    assert tree_bytes(brain) == files


def test_gate_timestamps_come_from_now_in_the_brain_zone(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "x/", now="2031-01-02T03:00:00+02:00")
    ok(bsi("gate", "request", sess, "?", brain=brain, now="2031-01-02T03:04:00+02:00"))
    assert load_claim(brain, sess)["gate_history"][-1]["ts"] == "2031-01-02T01:04:00+00:00"


def test_approving_a_close_gate_whose_result_lists_no_files(brain: Path, bsi: Bsi) -> None:
    """A hand-edited result with `files_modified: null` is approved like any other (no traceback)."""
    pilot = ok(bsi("claim", "open", "--type", "pilote", "--scope", "app/", brain=brain))
    sess = ok(bsi("claim", "open", "--parent", pilot, "--satellite-type", "deploy", "--scope", "app/x.md",
                  "--on-done", 'gate:human → "ship?"', brain=brain))
    ok(bsi("claim", "close", sess, "--status", "ok", brain=brain))
    path = claim_file(brain, sess)
    text = path.read_text(encoding="utf-8")
    assert "files_modified" not in text
    path.write_text(text.replace("result:", "result:\n  files_modified:", 1) if "result:\n" in text
                    else text.replace("result: {", "result: {files_modified: null, ", 1), encoding="utf-8")
    assert load_claim(brain, sess)["result"]["files_modified"] is None
    run = bsi("gate", "approve", sess, brain=brain)
    assert run.code == 0, run.err
    assert "Traceback" not in run.err
    assert load_claim(brain, sess)["status"] == "closed"


def test_tier_3_always_fills_in_files_modified(brain: Path, bsi: Bsi) -> None:
    """SPEC 6.5: the product fills in `result.children` and the aggregated `files_modified` of an orchestrated
    close, an empty list when no satellite (nor the close) names a file, as Tier 2 writes its empty list."""
    pilot = opened(brain, "--scope", "be/", "--type", "pilote", "--slug", "pilot")
    child = opened(brain, "--scope", "be/x.md", "--parent", pilot, "--satellite-type", "brain-write")
    ok(bsi("claim", "close", child, "--status", "ok", brain=brain))
    out = bsi("--json", "claim", "close", pilot, brain=brain).json()
    result = load_claim(brain, pilot)["result"]
    assert (result["children"], result["files_modified"]) == ([child], [])
    assert out["result"]["files_modified"] == []
