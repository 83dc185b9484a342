"""N machines (clones of one bare remote) race for overlapping scopes: the remote is the only arbiter.

CI profile: N=6 racers, R=8 rounds. `--long-profile`: N=16, R=200.
"""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain_tui.core.paths.scope import parse_scope, scopes_overlap
from tests.bsi import BSI, bsi_command

from . import forked
from .harness import make_remote, racer_env, remote_claims

BASE = datetime(2026, 11, 29, 8, 0, tzinfo=UTC)
OVERLAPPING = ["*", "area/", "area/x.md", "area/x.md#Part", "area/x.md#Part"]


def _violations(claims: list[dict]) -> list[tuple[str, str]]:
    blocking = [c for c in claims if c["status"] in ("open", "waiting_human", "paused", "stale")
                and c.get("satellite_type") != "search"]
    bad = []
    for a, b in itertools.combinations(blocking, 2):
        if scopes_overlap(parse_scope(a["scope"]), parse_scope(b["scope"])):
            bad.append((a["sess_id"], b["sess_id"]))
    return bad


def test_racing_clones_never_hold_one_scope_twice(tmp_path: Path, long_profile: bool) -> None:
    racers, rounds = (16, 200) if long_profile else (6, 8)
    remote, clones = make_remote(tmp_path, racers)
    acknowledged: list[str] = []
    stats = {"rounds": 0, "wins": 0, "refused": 0, "contended": 0, "violations": 0}
    for r in range(rounds):
        now = (BASE + timedelta(minutes=10 * r)).isoformat()
        scopes = [OVERLAPPING[i % len(OVERLAPPING)] if i < racers - 2 else f"decoy{i}/r{r}.md"
                  for i in range(racers)]
        procs = [  # each racer a `bsi` process of its own, forked from this one (tests/reliability/forked.py)
            forked.start(bsi_command("--sync", "claim", "open", "--scope", scope, "--slug", f"r{r}-{i}",
                                     brain=clone, now=now)[len(BSI):], env=racer_env(f"racer{i}"))
            for i, (clone, scope) in enumerate(zip(clones, scopes, strict=True))
        ]
        results = [(run.code, run.out.strip(), run.err) for run in (p.wait(timeout=180) for p in procs)]
        winners = [out for code, out, _ in results if code == 0]
        assert winners, f"round {r}: nobody won: {results}"
        for code, _out, err in results:
            assert code in (0, 10, 75), f"round {r}: unexpected exit {code}: {err}"
            if code == 10:
                named = set(re.findall(r"sess-[A-Za-z0-9._-]+", err))
                assert named, f"round {r}: a loser was not told who holds the scope: {err}"
                stats["refused"] += 1
            elif code == 75:
                stats["contended"] += 1
        acknowledged.extend(winners)
        stats["wins"] += len(winners)
        claims = remote_claims(remote, tmp_path)
        bad = _violations(claims)
        stats["violations"] += len(bad)
        assert not bad, f"round {r}: two blocking claims intersect in the remote: {bad}"
        # Every loser names a claim that really holds an intersecting scope.
        held = {c["sess_id"] for c in claims if c["status"] == "open"}
        for code, _, err in results:
            if code == 10:
                assert set(re.findall(r"sess-[A-Za-z0-9._-]+", err)) & held
        # The winners close, racing each other too.
        closers = [
            forked.start(bsi_command("--sync", "claim", "close", w, "--status", "ok",
                                     brain=clones[int(w.rsplit("-", 1)[1])], now=now)[len(BSI):],
                         env=racer_env("closer"))
            for w in winners
        ]
        for p in closers:
            closed = p.wait(timeout=180)
            assert closed.code == 0, closed.err
        stats["rounds"] += 1
    final = remote_claims(remote, tmp_path)
    ids = [c["sess_id"] for c in final]
    assert len(ids) == len(set(ids)), "a retry duplicated a claim"
    assert sorted(acknowledged) == sorted(ids), "an acknowledged open is missing from the remote (or extra claims)"
    assert all(c["status"] == "closed" for c in final)
    print(f"race: {stats}")
