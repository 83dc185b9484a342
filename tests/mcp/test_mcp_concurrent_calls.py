"""Tool calls a client sends at once run in the SDK's worker threads, side by side in one process.

The brain's local writer lock was re-entrant per `Brain` object, not per thread:
a second call walked into a write the first was making. Ten `claim_open` of
`src/` sent together through one server granted src/ to several claims at once,
left claim files uncommitted and answered internal errors (a journal file gone).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import NOW, bsi_command, clean_env, git
from tests.conftest import load_claim

CALLS = 10


def test_claim_opens_sent_at_once_grant_a_scope_once(brain: Path) -> None:
    env = {**clean_env(), "CLAUDE_CODE_SESSION_ID": "bbbbbbbb-2222-4000-8000-00000000000b"}
    proc = subprocess.Popen(bsi_command("mcp", brain=brain, now=NOW), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "warm", "method": "tools/call", "params": {"name": "claim_list", "arguments": {}}}]
    burst = [
        *({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
            "name": "claim_open", "arguments": {"scope": ["src/"], "story": f"call {n}"}}} for n in range(CALLS))]
    replies: dict[Any, dict[str, Any]] = {}
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        while "warm" not in replies:  # the server's brain is open: the calls below share it
            line = proc.stdout.readline()
            assert line, "the server closed stdout"
            doc = json.loads(line)
            replies[doc.get("id")] = doc
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in burst))
        proc.stdin.flush()
        while len([k for k in replies if k not in ("init", "warm")]) < CALLS:
            line = proc.stdout.readline()
            assert line, "the server closed stdout"
            doc = json.loads(line)
            replies[doc.get("id")] = doc
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
    results = [replies[n]["result"] for n in range(CALLS)]
    granted = [r["structuredContent"]["sess_id"] for r in results if not r["isError"]]
    refused = [r["structuredContent"] for r in results if r["isError"]]
    assert len(granted) == 1, results
    assert {(doc["exit"], doc["kind"]) for doc in refused} == {(10, "conflict")}, refused
    assert load_claim(brain, granted[0])["status"] == "open"
    assert sorted(p.name for p in (brain / "claims").glob("sess-*.yml")) == [f"{granted[0]}.yml"]
    assert git(brain, "status", "--porcelain", "--", "claims").strip() == ""


def test_first_calls_sent_at_once_share_one_brain(brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The brain opens at the first tool call; two first calls side by side must not each open their own (a call's
    result reads the write it made from the session's brain)."""
    from brain_tui.core import brain as brain_module
    from brain_tui.mcp.tools import Session

    made: list[object] = []
    real_init = brain_module.Brain.__init__

    def slow_init(self: brain_module.Brain, *args: Any, **kwargs: Any) -> None:
        time.sleep(0.3)  # wide enough for the other thread to ask meanwhile
        real_init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(brain_module.Brain, "__init__", slow_init)
    session = Session(brain, now=NOW, environ=clean_env(), client="")
    start = threading.Barrier(2)
    got: list[object] = []

    def ask() -> None:
        start.wait(5)
        got.append(session.brain)

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(made) == 1 and got == [made[0], made[0]]
