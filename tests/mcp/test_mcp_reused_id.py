"""A request whose id is already in use by a request in flight (MCP: an id is never reused in a session) is
answered -32600 and not run: the SDK ran both, so a resent `claim_open` opened its claim and then answered the
resend "conflict" with that very claim (two answers of one id, the second naming the caller's own claim)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from brain_tui.mcp.server import build_server, run_streams
from brain_tui.mcp.tools import Session
from tests.bsi import NOW


def _lines(*messages: dict[str, Any]) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


def test_a_reused_id_in_flight_is_refused_and_runs_nothing(brain: Path) -> None:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}

    def open_(scope: str) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": "claim_open", "arguments": {"scope": [scope], "story": scope}}}

    stdin = io.StringIO(_lines(init, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                               open_("wiki/"), open_("notes/")))
    stdout = io.StringIO()
    run_streams(build_server(Session(brain, now=NOW, client="")), stdin, stdout)
    answers = [json.loads(line) for line in stdout.getvalue().splitlines()]
    fives = [a for a in answers if a.get("id") == 5]
    assert len(fives) == 2, answers
    refused = [a for a in fives if "error" in a]
    assert len(refused) == 1 and refused[0]["error"]["code"] == -32600, fives
    assert "in use" in refused[0]["error"]["message"], refused
    opened = [a for a in fives if "result" in a]
    assert len(opened) == 1 and not opened[0]["result"].get("isError"), opened
    claims = sorted((brain / "claims").glob("sess-*.yml"))
    assert len(claims) == 1 and "wiki/" in claims[0].read_text(encoding="utf-8"), claims  # the first ran, once


def test_an_id_answered_may_be_used_again() -> None:
    """Only an id still in flight is refused: once answered (and the front's `initialize`, answered before the SDK
    runs it), a client may use it again, as many do, counting from 1 per connection."""
    from brain_tui.mcp.server import _Checked

    def request(ident: int) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/list"}) + "\n"

    lines = [request(1), request(3), request(3), request(3), request(1)]
    stdin = type("Lines", (), {"readline": lambda self: lines.pop(0) if lines else ""})()
    out = io.StringIO()
    checked = _Checked(stdin, out, answered=1)
    assert checked.readline() == request(1)  # the front's initialize: answered already
    assert checked.readline() == request(3)
    assert checked.readline() == request(1)  # the next two 3s were refused (in flight), the 1 is free again
    refused = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["id"], r["error"]["code"]) for r in refused] == [(3, -32600), (3, -32600)], refused
    checked.write(json.dumps({"jsonrpc": "2.0", "id": 3, "result": {}}) + "\n")  # 3 answered: free again
    lines.append(request(3))
    assert checked.readline() == request(3)


def test_the_sdks_answer_to_the_fronts_initialize_frees_no_new_request() -> None:
    """The client reused the id of the front's `initialize` while the SDK still ran its replay: the SDK's answer to
    that replay (dropped by the front) does not free the id of the new request still in flight."""
    from brain_tui.mcp.server import _Checked

    def request(ident: int) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "ping"}) + "\n"

    def answer(ident: int) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": ident, "result": {}}) + "\n"

    lines = [request(1), request(1)]
    stdin = type("Lines", (), {"readline": lambda self: lines.pop(0) if lines else ""})()
    out = io.StringIO()
    checked = _Checked(stdin, out, answered=1)
    assert checked.readline() == request(1)  # the replayed initialize
    assert checked.readline() == request(1)  # the client's ping, reusing the id it got its answer for
    checked.write(answer(1))  # the SDK's answer to the replayed initialize
    lines.append(request(1))  # a third request of id 1, the ping still in flight
    lines.append(request(2))
    assert checked.readline() == request(2)
    assert [json.loads(line)["id"] for line in out.getvalue().splitlines()][-1] == 1  # refused, with its id
    checked.write(answer(1))  # the ping answered: 1 is free
    lines.append(request(1))
    assert checked.readline() == request(1)
