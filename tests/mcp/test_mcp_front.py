"""`bsi mcp`'s front answers `initialize` before the SDK loads, exactly as the SDK would (issue 19)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from brain_tui.mcp import front
from brain_tui.mcp.server import build_server, run_streams
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, bsi_command, clean_env


def init(version: str, ident: Any = 7) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}


def test_the_front_knows_the_sdks_handshake_revisions() -> None:
    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == front.HANDSHAKE_VERSIONS


@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS, "1999-01-01"])
def test_the_fast_answer_is_the_sdks_answer(brain: Path, version: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The SDK serves the same `initialize`; its answer is compared with the front's and dropped."""
    message = init(version, ident="a-1")
    sent = front.initialize_reply(message)
    assert sent is not None and sent["result"]["serverInfo"] == {"name": "bsi", "version": front.SERVER_VERSION}
    written = io.BytesIO()
    out = front._Out(written, sent)
    run_streams(build_server(Session(brain, now=NOW, client="")),
                front._Lines(json.dumps(message).encode() + b"\n", io.BytesIO(b"")), out)
    assert out.same is True  # the SDK answered the same `initialize` (else False, or None: no answer)
    assert written.getvalue() == b""  # and its answer was dropped
    assert "differs" not in capsys.readouterr().err


@pytest.mark.parametrize("message", [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    {"jsonrpc": "2.0", "method": "initialize", "params": {}},
    {"jsonrpc": "2.0", "id": True, **{k: v for k, v in init("2025-06-18").items() if k != "id"}},
    {**init("2025-06-18"), "params": {"protocolVersion": "2025-06-18", "capabilities": {}}},
    {**init("2025-06-18"), "params": {**init("2025-06-18")["params"], "unknown": 1}},
    ["not", "an", "object"],
])
def test_anything_but_a_plain_initialize_is_left_to_the_sdk(message: Any) -> None:
    assert front.initialize_reply(message) is None


def test_only_a_bare_mcp_command_line_takes_the_front() -> None:
    assert front.serve_command(["mcp"]) == {}
    assert front.serve_command(["--brain", "/b", "--now=2026-01-01T00:00:00Z", "mcp"]) == {
        "brain": "/b", "now": "2026-01-01T00:00:00Z"}
    for argv in (["mcp", "install"], ["--json", "mcp"], ["claim", "mcp"], ["--brain"], []):
        assert front.serve_command(argv) is None


def test_the_front_imports_neither_the_sdk_nor_the_core() -> None:
    code = ("import sys, brain_tui.mcp.front, brain_tui.cli.main; "
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types', "
            "'brain_tui.core.brain', 'brain_tui.core.records.store', 'pydantic'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(), check=True)
    assert done.stdout.strip() == "[]"


def test_a_real_server_answers_initialize_first_and_then_serves(brain: Path) -> None:
    proc = subprocess.Popen(bsi_command("mcp", brain=brain, now=NOW), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=clean_env())
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write(json.dumps(init("2025-06-18", 1)) + "\n")
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        assert first == front.initialize_reply(init("2025-06-18", 1))
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + "\n")
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n")
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(2)]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        err = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    assert [r["id"] for r in replies] == [1, 2]  # the SDK's answer to initialize (id 1) was not repeated
    assert replies[0]["result"] == {} and "claim_open" in {t["name"] for t in replies[1]["result"]["tools"]}
    assert proc.returncode == 0 and "differs" not in err


def test_no_brain_is_the_clis_one_line_and_66(tmp_path: Path) -> None:
    done = subprocess.run(bsi_command("mcp", brain=tmp_path / "none"), input="", capture_output=True, text=True,
                          env=clean_env(), check=False)
    assert done.returncode == 66 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1


def test_the_server_is_built_without_the_core(brain: Path) -> None:
    code = ("import sys; from brain_tui.mcp.server import build_server; from brain_tui.mcp.tools import Session; "
            f"build_server(Session({str(brain)!r}, client='')); "
            "print('brain_tui.core.brain' in sys.modules, 'brain_tui.core.records.store' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(), check=True)
    assert done.stdout.split() == ["False", "False"]
