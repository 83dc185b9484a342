"""Bursts of mixed tool calls sent at once through one in-process server (the SDK runs each in a worker thread, side
by side on one `Session` and one `Brain`): each call gets the answer of what it did, and the brain ends committed.

Claude Code and other clients send several tool calls in one turn. Each round opens a few claims first, then sends at
once: opens of disjoint scopes, opens of one shared scope, lists, checks, `my_claim`, a renew, a signal, a close, a gate
request, a preflight and a lock taken and one released on those claims. The invariants hold whatever order the
threads ran in.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp.client.client import Client

from brain_tui.core.brain import Brain
from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import Session
from tests.bsi import clean_env, git
from tests.clock import live_now
from tests.conftest import load_claim

AGENT = "5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c"
ROUNDS = 3
DISJOINT = 4
OVERLAPPING = 3


async def _call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any], bool, Any]:
    result = await client.call_tool(name, arguments)
    return name, arguments, bool(result.is_error), result.structured_content


async def _opened(client: Client, scope: str, story: str) -> str:
    name, _args, error, doc = await _call(client, "claim_open", {"scope": [scope], "story": story})
    assert not error, (name, doc)
    return str(doc["sess_id"])


async def _round(client: Client, r: int) -> list[tuple[str, dict[str, Any], bool, Any]]:
    renewed, sender, closed, gated = [await _opened(client, f"pre{r}{k}/", f"pre {r} {k}") for k in "abcd"]
    held = await _call(client, "lock_acquire", {"file": f"pre{r}a/held.md", "sess_id": renewed})
    assert not held[2], held
    calls: list[tuple[str, dict[str, Any]]] = [
        *(("claim_open", {"scope": [f"d{r}x{i}/"], "story": f"disjoint {r} {i}"}) for i in range(DISJOINT)),
        *(("claim_open", {"scope": [f"shared{r}/"], "story": f"overlap {r} {i}"}) for i in range(OVERLAPPING)),
        ("claim_list", {}), ("claim_list", {"all": True}),
        ("check_scope", {"scopes": [f"pre{r}a/x.md"]}), ("check_scope", {"scopes": [f"free{r}/"]}),
        ("my_claim", {"sess_id": sender}),
        ("claim_renew", {"sess_id": renewed, "ttl": "2h"}),
        ("signal_send", {"to": renewed, "type": "INFO", "payload": f"round {r}", "sess_id": sender}),
        ("claim_close", {"sess_id": closed, "status": "ok", "files": []}),
        ("gate_request", {"sess_id": gated, "message": f"round {r}: decide"}),
        ("preflight", {"file": f"pre{r}a/x.md", "sess_id": renewed}),
        ("lock_acquire", {"file": f"pre{r}b/y.md", "sess_id": sender}),
        ("lock_release", {"file": f"pre{r}a/held.md", "sess_id": renewed}),
    ]
    answers = list(await asyncio.gather(*(_call(client, name, args) for name, args in calls)))
    answers.append(await _call(client, "claim_list", {"all": True}))  # after the burst: sees every write
    answers.append(await _call(client, "signal_list", {"to": renewed}))
    return [*answers, ("pre", {"renewed": renewed, "sender": sender, "closed": closed, "gated": gated}, False, None)]


def _check_round(brain: Path, r: int, answers: list[tuple[str, dict[str, Any], bool, Any]]) -> None:
    pre = answers[-1][1]
    burst, (after_list, after_signals) = answers[:-3], answers[-3:-1]
    assert not [a for a in burst if a[2] and a[3].get("exit") == 70], burst  # no internal error
    opens = [a for a in burst if a[0] == "claim_open"]
    granted = {a[1]["story"]: a[3]["sess_id"] for a in opens if not a[2]}
    assert {a[3]["exit"] for a in opens if a[2]} <= {10}, opens
    assert all(f"disjoint {r} {i}" in granted for i in range(DISJOINT)), opens
    assert len([s for s in granted if s.startswith("overlap")]) == 1, opens
    for story, sess_id in granted.items():  # each open's result is the claim its call opened
        assert load_claim(brain, sess_id)["story_angle"] == story
    for a in opens:
        if not a[2]:
            assert a[3]["story_angle"] == a[1]["story"] and a[3]["status"] == "open", a
    by_name = {a[0]: a for a in burst if a[0] not in ("claim_open", "claim_list", "check_scope")}
    for name, (_n, args, error, doc) in by_name.items():
        assert not error, (name, doc)
        if "sess_id" in args and name in ("my_claim", "claim_renew", "claim_close"):
            assert doc["sess_id"] == args["sess_id"], (name, doc)
    assert by_name["claim_close"][3]["status"] == "closed"
    assert load_claim(brain, pre["closed"])["status"] == "closed"
    assert load_claim(brain, pre["gated"])["status"] == "waiting_human"
    assert by_name["claim_renew"][3]["expires_at"] == load_claim(brain, pre["renewed"])["expires_at"]
    checks = [a for a in burst if a[0] == "check_scope"]
    assert [c["sess_id"] for c in checks[0][3]["conflicts"]] == [pre["renewed"]]
    assert checks[1][3]["conflicts"] == []
    seen = {c["sess_id"]: c for c in after_list[3]["claims"]}
    assert set(granted.values()) | set(pre.values()) <= set(seen)
    assert seen[pre["closed"]]["status"] == "closed" and seen[pre["gated"]]["status"] == "waiting_human"
    assert [s["from"] for s in after_signals[3]["signals"]] == [pre["sender"]]
    assert by_name["signal_send"][3]["sig_id"] == after_signals[3]["signals"][0]["sig_id"]
    assert by_name["lock_acquire"][3]["holder"] == pre["sender"]
    assert by_name["preflight"][3]["sess_id"] == pre["renewed"]
    held = {(lock.file, lock.holder) for lock in Brain(brain, now=live_now()).snapshot().locks}
    assert (f"pre{r}b/y.md", pre["sender"]) in held and not {h for h in held if h[0] == f"pre{r}a/held.md"}


def _check_brain(brain: Path) -> None:
    held: dict[str, str] = {}
    for path in sorted((brain / "claims").glob("sess-*.yml")):
        doc = load_claim(brain, path.stem)
        if doc["status"] in ("open", "waiting_human", "paused"):
            scope = str(doc["scope"])
            assert scope not in held, (scope, held[scope], path.stem)  # no scope held twice
            held[scope] = path.stem
    assert git(brain, "status", "--porcelain").strip() == ""  # every write committed, nothing left over
    tracked = set(git(brain, "ls-files", "claims").split())
    assert {f"claims/{p.name}" for p in (brain / "claims").glob("sess-*.yml")} <= tracked


def test_bursts_of_mixed_calls_each_get_their_own_answer(brain: Path) -> None:
    # the claims opened here are renewed, locked and gated: at the machine's clock, as an agent's server judges them
    session = Session(brain, now=live_now(), environ={**clean_env(), "CLAUDE_CODE_SESSION_ID": AGENT}, client="")

    async def main() -> list[list[tuple[str, dict[str, Any], bool, Any]]]:
        async with Client(build_server(session)) as client:
            return [await _round(client, r) for r in range(ROUNDS)]

    for r, answers in enumerate(asyncio.run(main())):
        _check_round(brain, r, answers)
    _check_brain(brain)
