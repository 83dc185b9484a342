"""`bsi mcp install` starts the server once before writing any client's file: does it answer `initialize`?

The check runs the very command the client will run (`bsi mcp`, or what `--bsi`
says) in the brain's folder, sends the MCP `initialize` request on stdin, waits
for the answer at most `TIMEOUT_S` seconds, then closes stdin and ends the
process. A server that cannot start (the `mcp` package missing, `bsi` not on
PATH, a crash) is refused with exit 69 and one line saying why; nothing is
written.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import time
from pathlib import Path

from brain_tui.core.errors import BsiError

#: How long the server may take to answer `initialize` (an interpreter start and the SDK's import).
TIMEOUT_S = 30.0
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "bsi-mcp-install", "version": "1"}},
}


class ServerDidNotStart(BsiError):
    """`bsi mcp` did not answer `initialize` (exit 69: the service is unavailable)."""

    exit_code = 69


def _last_line(text: bytes) -> str:
    lines = [line.strip() for line in text.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def check_server(argv: list[str], cwd: str | os.PathLike[str], timeout: float = TIMEOUT_S) -> str:
    """Start `argv` (the MCP server's command line) in `cwd`, ask `initialize`, close it.

    Returns:
        The server's name and version as it answered (`bsi 0.1.0`).

    Raises:
        ServerDidNotStart: the program is not found, exits, writes something else, or stays silent.
    """
    command = " ".join(argv)
    try:
        process = subprocess.Popen(argv, cwd=str(Path(cwd)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
    except OSError as exc:
        raise ServerDidNotStart(f"`{command}` cannot start ({exc.strerror or exc}): "
                                "nothing was written") from None
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    answer = b""
    early: int | None = None
    try:
        process.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        process.stdin.flush()
        answer = _read_line(process, timeout)
    except OSError:  # it is gone already (a broken pipe): its exit code says why
        pass
    finally:
        early = None if b"\n" in answer else _exit_code_now(process)
        stderr = _finish(process)
    reason = _verdict(answer, stderr, early, timeout)
    if isinstance(reason, ServerDidNotStart):
        raise ServerDidNotStart(f"`{command}` did not start as an MCP server: {reason}; nothing was written")
    return reason


def _read_line(process: subprocess.Popen[bytes], timeout: float) -> bytes:
    """The first line the server writes, or what it wrote before exiting or the timeout."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while b"\n" not in buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                break
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
    return buffer


def _exit_code_now(process: subprocess.Popen[bytes]) -> int | None:
    """Its exit code if it ended by itself (waiting a moment for one that closed its stdout), else None."""
    try:
        return process.wait(timeout=1)
    except subprocess.TimeoutExpired:
        return None


def _finish(process: subprocess.Popen[bytes]) -> bytes:
    """Close stdin (the client going away ends a stdio server), then end it if it lingers; its stderr."""
    assert process.stdin is not None and process.stderr is not None
    with contextlib.suppress(OSError):
        process.stdin.close()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return process.stderr.read()


def _verdict(answer: bytes, stderr: bytes, code: int | None, timeout: float) -> str | ServerDidNotStart:
    """The server's name from its answer, or why it is not a server."""
    line = answer.split(b"\n", 1)[0].strip()
    if not line:
        said = _last_line(stderr)
        if code is not None and said:
            return ServerDidNotStart(f"it exited with code {code}: {said}")
        if code is not None:
            return ServerDidNotStart(f"it exited with code {code} without answering `initialize`")
        return ServerDidNotStart(f"no answer to `initialize` within {timeout:g} s")
    try:
        doc = json.loads(line)
    except ValueError:
        return ServerDidNotStart(f"it wrote {line[:80].decode('utf-8', 'replace')!r}, not JSON-RPC")
    result = doc.get("result") if isinstance(doc, dict) else None
    if not isinstance(result, dict):
        error = doc.get("error") if isinstance(doc, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        return ServerDidNotStart(f"it refused `initialize`{': ' + str(message)[:120] if message else ''}")
    info = result.get("serverInfo")
    if not isinstance(info, dict):
        info = {}
    return f"{info.get('name', '?')} {info.get('version', '')}".strip()
