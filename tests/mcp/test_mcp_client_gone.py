"""A client that goes away mid-call (closes its end of the server's stdout, then stdin) ends the server quietly.

The SDK's writer met the broken pipe inside its task group, so the error came out
as an exception group and the server printed a traceback on stderr (which a
client shows to its user) and exited 1. Whatever the calls in flight wrote is
committed or not written at all (SPEC 22): the brain's work tree stays clean.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.bsi import NOW, bsi_command, clean_env, git

AGENT = "cccccccc-3333-4000-8000-00000000000c"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def test_a_client_gone_mid_call_gets_no_traceback_and_leaves_the_brain_whole(brain: Path) -> None:
    proc = subprocess.Popen(bsi_command("mcp", brain=brain, now=NOW), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=clean_env(CLAUDE_CODE_SESSION_ID=AGENT))
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write((json.dumps(INIT) + "\n").encode())
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    calls = [{"jsonrpc": "2.0", "method": "notifications/initialized"}, *(
        {"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
         "params": {"name": "claim_open", "arguments": {"scope": [f"gone{n}/"], "story": "bye"}}} for n in range(4))]
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in calls).encode())
    proc.stdin.flush()
    proc.stdout.close()  # the client stops reading, then hangs up
    proc.stdin.close()
    code = proc.wait(timeout=90)
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    assert "Traceback" not in err and "BrokenPipe" not in err and "ExceptionGroup" not in err, err
    assert code == 0, err
    assert git(brain, "status", "--porcelain", "--", "claims", "signals", "locks").strip() == ""
