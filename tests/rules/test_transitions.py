"""The status transitions SPEC 6.3 does not allow, asked of `Brain` in process: each one refused (exit 12,
"cannot …") and nothing written. tests/cli/test_gates.py keeps one `bsi` case for the exit code and message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from brain_tui.core.brain import Brain, CloseRequest
from tests.bsi import ok, run_bsi
from tests.conftest import load_claim, tree_bytes
from tests.rules.facade import at, open_in, refused

EARLY = "2026-11-29T07:00:00Z"


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One claim in each status: open, waiting_human, paused, stale, closed, failed, released."""
    root = tmp_path_factory.mktemp("states") / "brain"
    ok(run_bsi("init", str(root), cwd=root.parent))
    ids = {
        "stale": open_in(root, "s/", ttl="1h", slug="stale", now=EARLY),
        "released": open_in(root, "r/", ttl="1h", slug="released", now=EARLY),
    }
    brain = at(root)
    brain.watchdog()
    brain.release_claim(ids["released"], "crashed")
    for name in ("open", "waiting", "paused", "closed", "failed"):
        ids[name] = open_in(root, f"{name}/", slug=name)
    brain.gates.request(ids["waiting"], "?")
    brain.gates.pause(ids["paused"])
    brain.close_claim(ids["closed"], CloseRequest(status="ok"))
    brain.gates.abort(ids["failed"], "stop")
    return {"root": root, "ids": ids}


Action = Callable[[Brain, str], object]
#: verb → (the call, the claims in a status from which the verb is not a transition of SPEC 6.3).
REFUSED: dict[str, tuple[Action, list[str]]] = {
    "gate approve": (lambda b, s: b.gates.approve(s), ["open", "paused", "stale", "closed", "failed", "released"]),
    "gate reject": (lambda b, s: b.gates.reject(s, "no"), ["open", "paused", "stale", "closed"]),
    "gate request": (lambda b, s: b.gates.request(s, "?"),
                     ["waiting", "paused", "stale", "closed", "failed", "released"]),
    "gate pause": (lambda b, s: b.gates.pause(s), ["paused", "stale", "closed", "failed", "released"]),
    "gate resume": (lambda b, s: b.gates.resume(s), ["open", "waiting", "stale", "closed"]),
    "gate abort": (lambda b, s: b.gates.abort(s, "stop"), ["closed", "failed", "released"]),
    "claim renew": (lambda b, s: b.renew_claim(s), ["stale", "closed"]),
    "claim close": (lambda b, s: b.close_claim(s, CloseRequest(status="ok")),
                    ["waiting", "paused", "closed", "failed", "released"]),
    "claim release": (lambda b, s: b.release_claim(s, "why"),
                      ["open", "waiting", "paused", "closed", "failed", "released"]),
}


def test_states_fixture_is_what_it_says(states: dict[str, Any]) -> None:
    root, ids = states["root"], states["ids"]
    expected = {"open": "open", "waiting": "waiting_human", "paused": "paused", "stale": "stale",
                "closed": "closed", "failed": "failed", "released": "released"}
    assert {name: load_claim(root, sess)["status"] for name, sess in ids.items()} == expected


@pytest.mark.parametrize("verb", list(REFUSED))
def test_transitions_not_in_the_table_are_refused_and_change_nothing(states: dict[str, Any], verb: str) -> None:
    root, ids = states["root"], states["ids"]
    call, names = REFUSED[verb]
    files = tree_bytes(root)
    for name in names:
        error = refused(lambda: call(at(root), ids[name]), 12)  # noqa: B023 - called at once
        assert "cannot" in str(error), (verb, name, str(error))
        assert tree_bytes(root) == files, (verb, name)
