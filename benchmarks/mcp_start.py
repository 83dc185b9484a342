"""How fast `bsi mcp` answers a client that connects: `initialize`, then the first `tools/list`.

A client gives up on a silent server (Gemini CLI's `mcp list` after 5 s), so
the time that counts is process start → the `initialize` answer on stdout. The
first `tools/list` answer comes once the SDK and the core have loaded (the
front of `brain_tui/mcp/front.py` answers `initialize` before that). Each run
is a fresh `bsi mcp` process; runs alternate with `python -c pass` so a slow
moment of the machine shows on both.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def one_start(command: Sequence[str], root: Path, env: dict[str, str]) -> tuple[float, float]:
    """``(seconds to the initialize answer, seconds to the tools/list answer)`` of one fresh server.

    Raises:
        RuntimeError: the server answered something else, or nothing.
    """
    start = time.perf_counter()
    proc = subprocess.Popen([*command, "--brain", str(root), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(INITIALIZE) + "\n")
        proc.stdin.flush()
        first: dict[str, Any] = json.loads(proc.stdout.readline() or "{}")
        initialized = time.perf_counter() - start
        proc.stdin.write(json.dumps(INITIALIZED) + "\n" + json.dumps(TOOLS_LIST) + "\n")
        proc.stdin.flush()
        second: dict[str, Any] = json.loads(proc.stdout.readline() or "{}")
        listed = time.perf_counter() - start
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
        err = proc.stderr.read() if proc.stderr else ""
        if proc.stderr:
            proc.stderr.close()
    if first.get("id") != 1 or "result" not in first or second.get("id") != 2 or not second["result"].get("tools"):
        raise RuntimeError(f"bsi mcp answered {str(first)[:200]} / {str(second)[:200]}; stderr: {err[-300:]}")
    return initialized, listed


def measure_mcp(results: Any, root: Path, size: int, repeat: int, command: Sequence[str],
                env: dict[str, str]) -> None:
    """Rows: `bsi mcp` start → initialize answer, → first tools/list answer, and `python -c pass` beside them."""
    one_start(command, root, env)  # warm-up: bytecode and page cache
    inits, lists, bare = [], [], []
    for _ in range(max(repeat, 3)):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True, timeout=60)
        bare.append(time.perf_counter() - started)
        initialized, listed = one_start(command, root, env)
        inits.append(initialized)
        lists.append(listed)
    results.put("bsi mcp: start → initialize answered", size, sorted(inits)[len(inits) // 2] * 1000)
    results.put("bsi mcp: start → first tools/list answered", size, sorted(lists)[len(lists) // 2] * 1000)
    results.put("python -c pass (beside bsi mcp)", size, sorted(bare)[len(bare) // 2] * 1000)
