"""`bsi preflight check|fail|reset|status`: every SPEC 10 code, its precedence, the circuit breaker (SPEC 9)."""

from __future__ import annotations

import json
import shutil
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import bsi as runner
from tests.bsi import INHERITED_ENV, bsi_at, ok, run_bsi
from tests.paths import LEGACY

NOW = "2026-11-29T10:10:00Z"
LEGACY_COMPOSE = LEGACY / "brain-compose.yml"

bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)
git = partial(runner.git, env=INHERITED_ENV)



def preflight(brain: Path, sess_id: str, file: str, now: str = NOW) -> tuple[int, dict[str, Any], str]:
    """`bsi --json preflight check`: (exit code, JSON document, stderr)."""
    proc = bsi(brain, "--json", "preflight", "check", sess_id, file, now=now)
    return proc.code, json.loads(proc.out), proc.err


def claim_file(brain: Path, sess_id: str) -> dict[str, Any]:
    """A claim file, parsed."""
    return yaml.safe_load((brain / "claims" / f"{sess_id}.yml").read_text(encoding="utf-8"))


def signal_docs(brain: Path) -> list[dict[str, Any]]:
    """Every signal file, parsed."""
    return [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((brain / "signals").glob("sig-*.yml"))]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A brain with a pilot, a brain-write satellite under it, a solo claim and a themed satellite."""
    root = tmp_path_factory.mktemp("base") / "brain"
    ok(run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None))
    ids = {}
    ids["pil"] = ok(bsi(root, "claim", "open", "--scope", "brain-engine/", "--scope", "agents/",
                        "--scope", "docs/", "--type", "pilote", "--slug", "pil", now="2026-11-29T10:00:00Z"))
    ids["sat"] = ok(bsi(root, "claim", "open", "--scope", "brain-engine/", "--scope", "agents/",
                        "--parent", ids["pil"], "--satellite-type", "brain-write", "--slug", "sat",
                        now="2026-11-29T10:05:00Z"))
    ids["solo"] = ok(bsi(root, "claim", "open", "--scope", "profil/", "--type", "solo", "--slug", "solo",
                         now="2026-11-29T10:05:00Z"))
    ids["theme"] = ok(bsi(root, "claim", "open", "--scope", "docs/", "--parent", ids["pil"],
                          "--satellite-type", "brain-write", "--theme-branch", "theme/be6", "--slug", "theme",
                          now="2026-11-29T10:05:00Z"))
    return root, ids


@pytest.fixture
def brain(base: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A private copy of the base brain (git history included) and its claim IDs."""
    target = tmp_path / "brain"
    shutil.copytree(base[0], target, symlinks=True)
    return target, base[1]


# -- 0 and 1 -------------------------------------------------------------------------------------
def test_go_exit_0(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    code, doc, _ = preflight(root, ids["sat"], "./brain-engine//server.py")
    assert code == 0
    assert doc == {"sess_id": ids["sat"], "file": "brain-engine/server.py", "code": 0, "check": "go"}
    assert "go" in ok(bsi(root, "preflight", "check", ids["sat"], "brain-engine/server.py"))


def test_scope_violation_exit_1_including_dotdot_and_absolute(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    # the table of spellings outside the scope is asked of `Brain` in tests/rules/test_preflight_scope.py
    for path in ("brain-engine/../agents/x.md",):
        code, doc, err = preflight(root, ids["sat"], path)
        assert (code, doc["check"]) == (1, "scope"), path
        assert "scope violation" in err


# -- 4 ---------------------------------------------------------------------------------------------
def test_unknown_claim_exit_4(brain: tuple[Path, dict[str, str]]) -> None:
    root, _ = brain
    code, doc, err = preflight(root, "sess-20261129-0000-nope", "other.md")
    assert (code, doc["check"]) == (4, "claim")
    assert "unknown" in err and "bsi claim open" in err


def test_waiting_human_exit_4_before_scope_and_names_the_unblock(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    ok(bsi(root, "gate", "request", ids["sat"], "deploy ok?"))
    for path in ("brain-engine/x.py", "outside.md"):
        code, doc, err = preflight(root, ids["sat"], path)
        assert (code, doc["status"]) == (4, "waiting_human")
        assert "waiting_human" in err and f"bsi gate approve {ids['sat']}" in err


def test_paused_claim_and_paused_parent_exit_4(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    ok(bsi(root, "gate", "pause", ids["pil"], "hold on"))
    code, doc, err = preflight(root, ids["sat"], "brain-engine/x.py")
    assert (code, doc["status"]) == (4, "paused")
    assert f"bsi gate resume {ids['pil']}" in err  # paused by the pilot's cascade: resume the pilot
    run = bsi(root, "gate", "resume", ids["sat"])  # not alone while the pilot that paused it is still paused
    assert run.code == 12 and f"bsi gate resume {ids['pil']}" in run.err
    assert claim_file(root, ids["sat"])["status"] == "paused"
    ok(bsi(root, "gate", "resume", ids["pil"]))
    assert preflight(root, ids["sat"], "brain-engine/x.py")[0] == 0


def test_failed_parent_exit_4(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    ok(bsi(root, "gate", "request", ids["pil"], "go?"))
    ok(bsi(root, "gate", "reject", ids["pil"], "no"))
    assert claim_file(root, ids["sat"])["status"] == "open"
    code, doc, err = preflight(root, ids["sat"], "brain-engine/x.py")
    assert (code, doc["blocked_by"]) == (4, ids["pil"])
    assert "failed" in err


def test_stale_claim_exit_4_names_release(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    late = "2026-11-29T13:00:00Z"
    ok(bsi(root, "watchdog", now=late))
    code, doc, err = preflight(root, ids["sat"], "brain-engine/x.py", now=late)
    assert (code, doc["status"]) == (4, "stale")
    assert f"bsi claim release {ids['sat']}" in err


# -- 5 ---------------------------------------------------------------------------------------------
def test_kernel_zone_fires_for_a_satellite_only(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    code, doc, err = preflight(root, ids["sat"], "agents/helper.md")
    assert (code, doc["check"]) == (5, "zone")
    assert "kernel zone" in err
    assert preflight(root, ids["pil"], "agents/helper.md")[0] == 0
    assert preflight(root, ids["solo"], "profil/x.md")[0] == 0
    # Scope comes before zone: a kernel file outside the scope is a scope violation.
    assert preflight(root, ids["sat"], "scripts/run.sh")[0] == 1


def test_kerneluser_true_lifts_the_zone(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    (root / "brain-compose.yml").write_text("kerneluser: true\n", encoding="utf-8")
    assert preflight(root, ids["sat"], "agents/helper.md")[0] == 0


def test_kernel_zone_overridden_in_brain_compose(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    (root / "brain-compose.yml").write_text("zones:\n  kernel: [brain-engine/, docs/ADR.md]\n", encoding="utf-8")
    assert preflight(root, ids["sat"], "brain-engine/server.py")[0] == 5
    assert preflight(root, ids["sat"], "agents/helper.md")[0] == 0
    assert preflight(root, ids["theme"], "docs/ADR.md")[0] == 5
    assert preflight(root, ids["theme"], "docs/ADR.md.bak")[0] != 5


# -- 2 ---------------------------------------------------------------------------------------------
def test_locked_by_another_session_exit_2(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    ok(bsi(root, "lock", "acquire", "brain-engine/server.py", ids["pil"], "30"))
    code, doc, err = preflight(root, ids["sat"], "brain-engine/server.py")
    assert (code, doc["check"], doc["holder"]) == (2, "lock", ids["pil"])
    assert ids["pil"] in err
    assert preflight(root, ids["pil"], "brain-engine/server.py")[0] == 0  # its own lock
    assert preflight(root, ids["sat"], "brain-engine/other.py")[0] == 0
    assert preflight(root, ids["sat"], "brain-engine/server.py", now="2026-11-29T10:41:00Z")[0] == 0  # expired
    ok(bsi(root, "lock", "acquire", "agents/helper.md", ids["pil"]))
    assert preflight(root, ids["sat"], "agents/helper.md")[0] == 5  # zone before lock


# -- 3 and the circuit breaker ------------------------------------------------------------------------
def test_circuit_breaker_trips_once_and_resets(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    sat = ids["sat"]
    for expected in (1, 2):
        state = json.loads(ok(bsi(root, "--json", "preflight", "fail", sat)))
        assert (state["fails"], state["max"], state["tripped"], state["signal"]) == (expected, 3, False, None)
        assert preflight(root, sat, "brain-engine/x.py")[0] == 0
    assert git(root, "log", "-1", "--format=%s").strip() == f"bsi: circuit fail {sat}"
    state = json.loads(ok(bsi(root, "--json", "preflight", "fail", sat)))
    assert state["tripped"] is True and state["signal"]
    ok(bsi(root, "preflight", "fail", sat))  # a fourth failure sends nothing more
    breaks = [s for s in signal_docs(root) if s["type"] == "CIRCUIT_BREAK"]
    assert len(breaks) == 1
    assert (breaks[0]["from"], breaks[0]["to"], breaks[0]["sig_id"]) == (sat, ids["pil"], state["signal"])
    circuit = claim_file(root, sat)["circuit"]
    assert circuit["fails"] == 4 and circuit["tripped"] is True and circuit["last_fail_at"]
    code, doc, err = preflight(root, sat, "brain-engine/x.py")
    assert (code, doc["check"]) == (3, "circuit")
    assert f"bsi preflight reset {sat}" in err
    status = json.loads(ok(bsi(root, "--json", "preflight", "status", sat)))
    assert (status["fails"], status["max"], status["tripped"]) == (4, 3, True)
    ok(bsi(root, "lock", "acquire", "brain-engine/x.py", ids["pil"]))
    assert preflight(root, sat, "brain-engine/x.py")[0] == 2  # lock before circuit
    ok(bsi(root, "preflight", "reset", sat))
    assert git(root, "log", "-1", "--format=%s").strip() == f"bsi: circuit reset {sat}"
    assert claim_file(root, sat)["circuit"] == {"fails": 0, "last_fail_at": None}
    assert preflight(root, sat, "brain-engine/y.py")[0] == 0
    status = json.loads(ok(bsi(root, "--json", "preflight", "status", sat)))
    assert (status["fails"], status["tripped"]) == (0, False)


def test_a_second_trip_after_a_reset_sends_a_new_signal(brain: tuple[Path, dict[str, str]]) -> None:
    """SPEC 9: each trip sends its CIRCUIT_BREAK once, and `reset` clears the breaker; so a trip after a reset is a
    new event with its own signal, even while the first trip's is still pending (it may have been acted on, the
    cause "fixed", and the human must learn it failed again). It is no duplicate (SPEC 7): it names its own trip."""
    root, ids = brain
    sat = ids["sat"]
    for _ in range(3):
        first = json.loads(ok(bsi(root, "--json", "preflight", "fail", sat)))
    assert first["tripped"] is True and first["signal"]
    ok(bsi(root, "preflight", "reset", sat, now="2026-11-29T10:20:00Z"))
    for minute in (21, 22, 23):
        run = bsi(root, "--json", "preflight", "fail", sat, now=f"2026-11-29T10:{minute}:00Z")
        second = json.loads(ok(run))
    assert second["tripped"] is True and second["signal"] and second["signal"] != first["signal"], second
    assert f"CIRCUIT_BREAK signal {second['signal']} sent" in run.err, run.err
    breaks = [s for s in signal_docs(root) if s["type"] == "CIRCUIT_BREAK"]
    assert sorted(s["sig_id"] for s in breaks) == sorted([first["signal"], second["signal"]])
    assert all((s["from"], s["to"], s["state"]) == (sat, ids["pil"], "pending") for s in breaks), breaks
    assert git(root, "show", "--name-only", "--format=", "HEAD").split().count(f"signals/{second['signal']}.yml") == 1


@pytest.mark.parametrize("end", [("claim", "close", "{id}", "--status", "ok"),
                                 ("gate", "abort", "{id}", "done with it")])
def test_the_breaker_of_a_finished_claim_is_neither_failed_nor_reset(brain: tuple[Path, dict[str, str]],
                                                                     end: tuple[str, ...]) -> None:
    """SPEC 6.3: a finished claim (closed, failed, released) takes no action (12, nothing changed). `fail`
    refuses it; `reset` does too, rather than rewrite the finished record and commit it."""
    root, ids = brain
    solo = ids["solo"]
    ok(bsi(root, *(word.format(id=solo) for word in end)))
    before, text = git(root, "rev-parse", "HEAD"), (root / "claims" / f"{solo}.yml").read_bytes()
    for verb in ("fail", "reset"):
        run = bsi(root, "preflight", verb, solo)
        assert run.code == 12 and run.out == "" and len(run.err.splitlines()) == 1, (verb, run)
    assert git(root, "rev-parse", "HEAD") == before and (root / "claims" / f"{solo}.yml").read_bytes() == text
    assert git(root, "status", "--porcelain", "--", "claims") == ""


def test_max_consecutive_fails_read_under_a_mode(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    text = LEGACY_COMPOSE.read_text(encoding="utf-8")
    assert "    circuit_breaker:\n      max_consecutive_fails: 3" in text  # nested under modes.rendering
    (root / "brain-compose.yml").write_text(text.replace("max_consecutive_fails: 3", "max_consecutive_fails: 2"),
                                            encoding="utf-8")
    first = json.loads(ok(bsi(root, "--json", "preflight", "fail", ids["theme"])))
    assert (first["max"], first["tripped"]) == (2, False)
    second = json.loads(ok(bsi(root, "--json", "preflight", "fail", ids["theme"])))
    assert second["tripped"] is True and second["signal"]
    assert [s["to"] for s in signal_docs(root) if s["type"] == "CIRCUIT_BREAK"] == [ids["pil"]]


# -- 6 ---------------------------------------------------------------------------------------------
def test_theme_branch_exit_6_then_go_on_the_branch(brain: tuple[Path, dict[str, str]]) -> None:
    root, ids = brain
    code, doc, err = preflight(root, ids["theme"], "docs/guide.md")
    assert (code, doc["check"], doc["theme_branch"]) == (6, "branch", "theme/be6")
    assert "git checkout theme/be6" in err
    ok(bsi(root, "preflight", "fail", ids["theme"]))
    ok(bsi(root, "preflight", "fail", ids["theme"]))
    ok(bsi(root, "preflight", "fail", ids["theme"]))
    assert preflight(root, ids["theme"], "docs/guide.md")[0] == 3  # circuit before branch
    ok(bsi(root, "preflight", "reset", ids["theme"]))
    git(root, "checkout", "--quiet", "-b", "theme/be6")
    assert preflight(root, ids["theme"], "docs/guide.md")[0] == 0
