"""Several `bsi mcp` servers, each a real process under its own agent process, race one human's shell and the
human's cockpit for overlapping scopes, while `bsi sync` runs against a bare remote (SPEC 5.3, 20, 22).

Each round sends at one instant: `claim_open` through every server and a `bsi claim open` from a shell, on scopes
that overlap (the same file; a folder and a file in it; a `##` section and its file; the whole brain and a file),
and a claim the human pauses (or aborts) in process while its agent closes it. After every round at most one
blocking claim covers any scope (`Brain.snapshot`), and the commit at HEAD says the same as the files.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.paths.scope import scopes_overlap
from tests.bsi import bsi_command, clean_env, git
from tests.hooks.fake_agent import FakeAgent
from tests.reliability.harness import make_remote

SESSIONS = [f"{n}{n}{n}{n}{n}{n}{n}{n}-2222-4000-8000-00000000000{n}" for n in "bcde"]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "race", "version": "1"}}}
#: Per round: the scopes of the three servers and of the shell (r: the round's folder).
GROUPS: list[Callable[[str], tuple[str, str, str, str]]] = [
    lambda r: (f"{r}/f.md", f"{r}/f.md", f"{r}/f.md", f"{r}/f.md"),
    lambda r: (f"{r}/", f"{r}/f.md", f"{r}/sub/", f"{r}/sub/g.md"),
    lambda r: (f"{r}/f.md##Intro", f"{r}/f.md", f"{r}/f.md##Intro", f"{r}/f.md##Other"),
    lambda r: ("*", f"{r}/f.md", f"{r}/", "*"),
]


class Server:
    """One agent process and the `bsi mcp` it runs, spoken to in raw JSON-RPC lines."""

    def __init__(self, folder: Path, brain: Path, session: str) -> None:
        self.agent = FakeAgent(folder)
        env = clean_env(drop=("BRAIN_*", "GIT_*", "CLAUDE*", "GEMINI*", "CODEX*", "BSI_*"),
                        CLAUDE_CODE_SESSION_ID=session)
        self.agent.start("mcp", bsi_command("mcp", brain=brain), env, brain)
        self.ids = 0
        assert "result" in json.loads(self.agent.send("mcp", json.dumps(INIT)))
        self.agent.send_only("mcp", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        """One tool call: (is_error, structured content)."""
        self.ids += 1
        line = self.agent.send("mcp", json.dumps({"jsonrpc": "2.0", "id": self.ids, "method": "tools/call",
                                                  "params": {"name": name, "arguments": arguments}}))
        result = json.loads(line)["result"]
        return bool(result["isError"]), dict(result["structuredContent"])


def _at_once(jobs: list[Callable[[], Any]]) -> list[Any]:
    """Run every job in its own thread, released together; their results in order."""
    gate = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)
    raised: list[BaseException] = []

    def run(i: int) -> None:
        gate.wait()
        try:
            results[i] = jobs[i]()
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            raised.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not raised, raised
    return results


def _blocking_overlaps(brain: Path) -> list[tuple[str, str]]:
    claims = [c for c in Brain(brain).snapshot().claims if c.is_blocking]
    return [(a.sess_id, b.sess_id) for a, b in combinations(claims, 2) if scopes_overlap(a.scope, b.scope)]


def _braking(human: Brain, sess_id: str, *, pause: bool) -> Callable[[], Any]:
    """The human's pause (or abort) of `sess_id`: what it did, or the refusal (the claim closed first)."""
    def brake() -> Any:
        try:
            return human.gates.pause(sess_id, "hold") if pause else human.gates.abort(sess_id, "stop")
        except BsiError as exc:
            return exc
    return brake


def _shell_open(brain: Path, scope: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(bsi_command("--json", "claim", "open", "--scope", scope, "--story", "shell", brain=brain),
                          capture_output=True, text=True, env=clean_env(identity="Human"), cwd=brain, timeout=60)


def test_servers_a_shell_and_a_human_racing_hold_each_scope_once(tmp_path: Path) -> None:
    _remote, (brain,) = make_remote(tmp_path, 1)
    servers = [Server(tmp_path / f"agent{i}", brain, s) for i, s in enumerate(SESSIONS)]
    _at_once([partial(server.call, "brain_state", {}) for server in servers])  # imports done
    syncing = threading.Event()
    synced: list[int] = []

    def sync_loop() -> None:
        while not syncing.is_set():
            done = subprocess.run(bsi_command("sync", brain=brain), capture_output=True, text=True,
                                  env=clean_env(identity="Syncer"), cwd=brain, timeout=60)
            synced.append(done.returncode)

    try:
        for r, group in enumerate(GROUPS):
            scopes = group(f"r{r}")
            jobs: list[Callable[[], Any]] = [
                partial(servers[0].call, "claim_open", {"scope": [scopes[0]], "story": "a"}),
                partial(servers[1].call, "claim_open", {"scope": [scopes[1]], "story": "b"}),
                partial(_shell_open, brain, scopes[3]),
            ]
            if scopes[0] == "*":  # the whole brain against everything: nothing else is held
                jobs += [partial(servers[2].call, "claim_open", {"scope": [scopes[2]], "story": "c"}),
                         partial(servers[3].call, "claim_open", {"scope": ["*"], "story": "d"})]
            else:  # a claim its agent closes while the human brakes it and another agent opens inside it
                held = servers[2].call("claim_open", {"scope": [f"h{r}/"], "story": "held"})
                assert not held[0], held
                pre = held[1]["sess_id"]
                jobs += [partial(servers[2].call, "claim_close", {"sess_id": pre, "status": "ok", "files": []}),
                         partial(servers[3].call, "claim_open", {"scope": [f"h{r}/x.md"], "story": "over held"}),
                         _braking(Brain(brain), pre, pause=bool(r % 2))]
            syncing.clear()
            syncer = threading.Thread(target=sync_loop)
            syncer.start()
            try:
                results = _at_once(jobs)
            finally:
                syncing.set()
                syncer.join(timeout=60)
            assert _blocking_overlaps(brain) == [], (r, scopes, results)
            assert git(brain, "status", "--porcelain", "--", "claims").strip() == "", (r, results)
            for answer in results:
                if isinstance(answer, tuple):
                    assert answer[1].get("exit") != 70, answer
            # the round's claims end: the human aborts what is left
            for claim in Brain(brain).snapshot().claims:
                if claim.is_blocking and claim.parent is None:
                    Brain(brain).gates.abort(claim.sess_id, "round over")
    finally:
        syncing.set()
        for server in servers:
            server.agent.close()
    assert synced and set(synced) == {0}, synced
    done = subprocess.run(bsi_command("sync", brain=brain), capture_output=True, text=True,
                          env=clean_env(identity="Syncer"), cwd=brain, timeout=60)
    assert done.returncode == 0, done
    assert git(brain, "rev-parse", "HEAD") == git(_remote, "rev-parse", "HEAD")
