"""A request the SDK cannot read is still answered (JSON-RPC -32600, with its id): a client waits for every id.

The SDK drops a line it fails to validate, so a request whose text holds a lone
surrogate (`"\\ud800"`, valid JSON, not valid Unicode) or whose params are not an
object got no answer at all, and the client hung on it.
"""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.bsi import NOW, bsi_command, clean_env

INIT: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
LONE = '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"claim_open","arguments":' \
       '{"scope":["src/"],"story":"\\ud800"}}}'


def strict_json(line: str) -> Any:
    """A line as JSON reads it: NaN and Infinity are no JSON (Python's reader takes them, a client's does not)."""
    def refuse(constant: str) -> Any:
        raise AssertionError(f"{constant} on stdout is no JSON: {line[:200]}")

    return json.loads(line, parse_constant=refuse)


def answers(brain: Path, lines: list[str], also: tuple[Any, ...] = ()) -> tuple[list[dict[str, Any]], str]:
    """Every line `bsi mcp` wrote until it answered a last `tools/list` (id "end") and the ids in `also`, and its
    stderr."""
    proc = subprocess.Popen(bsi_command("mcp", brain=brain, now=NOW), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=clean_env())
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out: list[dict[str, Any]] = []
    unanswered = threading.Timer(60, proc.kill)  # a request never answered fails the test, never hangs it
    unanswered.start()
    try:
        proc.stdin.write("".join(line + "\n" for line in lines))
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": "end", "method": "tools/list"}) + "\n")
        proc.stdin.flush()
        while not {"end", *also} <= {doc.get("id") for doc in out}:
            line = proc.stdout.readline()
            assert line, "the server closed stdout"
            out.append(strict_json(line))
    finally:
        unanswered.cancel()
        proc.stdin.close()
        proc.wait(timeout=30)
        err = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    return out, err


def test_a_request_the_sdk_cannot_read_gets_an_error_with_its_id(brain: Path) -> None:
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             LONE % 2,
             json.dumps({"jsonrpc": "2.0", "id": "three", "method": "tools/call", "params": ["claim_open"]}),
             '{"jsonrpc":"2.0","id":"\\udc00","method":"tools/list"}']
    out, err = answers(brain, lines)
    replies = {doc["id"]: doc for doc in out if "id" in doc}
    for ident in (2, "three", "\udc00"):
        assert replies.get(ident, {}).get("error", {}).get("code") == -32600, out
        assert "\\ud800" not in json.dumps(replies[ident]) and "claim_open" not in replies[ident]["error"]["message"]
    assert "result" in replies["end"]
    assert not list((brain / "claims").glob("sess-*.yml"))  # nothing opened
    assert "Traceback" not in err


def test_an_initialize_the_sdk_cannot_read_is_not_answered_as_a_success(brain: Path) -> None:
    """The front answers a plain `initialize` before the SDK reads it: one it cannot read is refused once,
    never answered as a success the SDK then knows nothing of."""
    first = json.dumps(INIT).replace('"name": "t"', '"name": "\\ud800"')
    out, _err = answers(brain, [first])
    ones = [doc for doc in out if doc.get("id") == 1]
    assert len(ones) == 1 and ones[0].get("error", {}).get("code") == -32600, out


def test_a_line_that_is_not_json_gets_a_parse_error_and_the_server_goes_on(brain: Path) -> None:
    """JSON-RPC 2.0: a line that does not parse is answered `-32700` with a null id; the next request is served."""
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             "this is not json", '{"jsonrpc":"2.0","id":5,"method":']
    out, err = answers(brain, lines)
    parse_errors = [doc for doc in out if doc.get("error", {}).get("code") == -32700]
    assert len(parse_errors) == 2 and all(doc["id"] is None for doc in parse_errors), out
    assert all("not json" not in doc["error"]["message"] for doc in parse_errors)
    assert "result" in next(doc for doc in out if doc.get("id") == "end")
    assert "Traceback" not in err


def test_a_request_whose_id_the_sdk_cannot_hold_is_answered(brain: Path) -> None:
    """JSON-RPC 2.0: an id is a string, a number or null. A fractional number is an id the SDK cannot hold; it is
    answered -32600 with that id. An id of another type (true, an object) is answered -32600 with a null id."""
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             '{"jsonrpc":"2.0","id":4.5,"method":"tools/list"}',
             '{"jsonrpc":"2.0","id":true,"method":"tools/list"}',
             '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}']
    out, err = answers(brain, lines)
    invalid = [doc for doc in out if doc.get("error", {}).get("code") == -32600]
    assert [doc["id"] for doc in invalid] == [4.5, None, None], out
    assert "result" in next(doc for doc in out if doc.get("id") == "end")
    assert "Traceback" not in err


def test_calls_in_flight_when_stdin_closes_are_answered(brain: Path) -> None:
    """A client that writes its calls and closes stdin still reads their answers: the claim it opened is named."""
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": "claim_open", "arguments": {"scope": ["src/"]}}})]
    done = subprocess.run(bsi_command("mcp", brain=brain, now=NOW), input="".join(line + "\n" for line in lines),
                          capture_output=True, text=True, env=clean_env(), timeout=60)
    replies = {doc.get("id"): doc for doc in map(json.loads, done.stdout.splitlines())}
    opened = [path.stem for path in (brain / "claims").glob("sess-*.yml")]
    assert len(opened) == 1 and opened[0] in json.dumps(replies.get(2)), done.stdout
    assert done.returncode == 0 and "Traceback" not in done.stderr


DEEP = "[" * 100_000 + "]" * 100_000


def test_a_line_nested_too_deep_to_read_gets_a_parse_error_and_the_server_goes_on(brain: Path) -> None:
    """Arrays nested 100,000 deep: the server's own reading of the line hit Python's recursion limit, printed a
    traceback and died, and every call in flight with it. Now it is a line that cannot be read (`-32700`, null
    id), in a request or as a line of its own, and the next request is served."""
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"claim_open","arguments":'
             '{"scope":' + DEEP + '}}}', DEEP]
    out, err = answers(brain, lines)
    parse_errors = [doc for doc in out if doc.get("error", {}).get("code") == -32700]
    assert len(parse_errors) == 2 and all(doc["id"] is None for doc in parse_errors), out
    assert "result" in next(doc for doc in out if doc.get("id") == "end")
    assert not list((brain / "claims").glob("sess-*.yml"))
    assert "Traceback" not in err, err[-2000:]


def test_a_first_line_nested_too_deep_does_not_stop_the_server(brain: Path) -> None:
    """The same line as the very first one (read by the front before the SDK): a parse error, then service."""
    out, err = answers(brain, [DEEP, json.dumps(INIT)])
    assert [doc["error"]["code"] for doc in out if "error" in doc] == [-32700], out
    assert any(doc.get("id") == 1 and "result" in doc for doc in out)
    assert "Traceback" not in err, err[-2000:]


def test_a_batch_is_served_one_message_at_a_time_and_an_empty_one_is_refused(brain: Path) -> None:
    """JSON-RPC 2.0 batches (MCP 2025-03-26, which the server negotiates, says a server MUST accept them): each
    request in the array is answered with its own id, so a client waiting for those ids is not left hanging; an
    empty array, and an entry that is no object, are answered -32600 with a null id (JSON-RPC 2.0's examples)."""
    batch = [{"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "claim_list", "arguments": {}}},
             {"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": "x", "progress": 1}},
             {"jsonrpc": "2.0", "id": 11, "method": "tools/list"}, 7]
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             json.dumps(batch), "[]", "{}"]
    out, err = answers(brain, lines, also=(10, 11))
    replies = {doc["id"]: doc for doc in out if doc.get("id") is not None}
    assert replies[10]["result"]["structuredContent"] == {"claims": [], "corrupt": []}, out
    assert "result" in replies[11] and "result" in replies["end"]
    refused = [doc for doc in out if doc.get("id") is None]
    assert [doc["error"]["code"] for doc in refused] == [-32600, -32600, -32600], out
    assert "Traceback" not in err


def test_numbers_python_cannot_hold_never_put_a_non_json_answer_on_stdout(brain: Path) -> None:
    """An id of 1e400 (valid JSON, past a float) was answered with `"id":Infinity`, and NaN or Infinity (no JSON
    at all) were echoed back the same way: lines no client can read on the protocol stream. Now an id that no
    number can hold is answered with a null id, and a line holding NaN or Infinity is a parse error (-32700)."""
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             '{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}',
             '{"jsonrpc":"2.0","id":-1e400,"method":"tools/list"}',
             '{"jsonrpc":"2.0","id":NaN,"method":"tools/list"}',
             '{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":Infinity}}']
    out, err = answers(brain, lines)
    errors = [(doc["id"], doc["error"]["code"]) for doc in out if "error" in doc]
    assert errors == [(None, -32600), (None, -32600), (None, -32700), (None, -32700)], out
    assert "result" in next(doc for doc in out if doc.get("id") == "end")
    assert "Traceback" not in err


def test_an_integer_too_long_for_python_still_gets_an_answer_with_the_requests_id(brain: Path) -> None:
    """A 5,000-digit integer is valid JSON but past what Python and the SDK read (4,300 digits): the request was
    answered -32700 with a null id, so its client waited for ever on id 2. Now it is answered -32600 with its id;
    an id of that many digits, which no answer can repeat, with a null id."""
    huge = "9" * 5000
    lines = [json.dumps(INIT), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lock_acquire","arguments":'
             '{"file":"src/a.py","ttl_min":' + huge + '}}}',
             '{"jsonrpc":"2.0","id":' + huge + ',"method":"tools/list"}']
    out, err = answers(brain, lines, also=(2,))
    errors = [(doc["id"], doc["error"]["code"]) for doc in out if "error" in doc]
    assert errors == [(2, -32600), (None, -32600)], out
    assert not list((brain / "locks").glob("*.yml"))
    assert "Traceback" not in err


def test_a_first_initialize_holding_nan_is_not_answered_as_a_success(brain: Path) -> None:
    """The front reads the first line as the server does: an `initialize` holding NaN is a parse error, never a
    success answered by the front that the SDK, refusing the line, knows nothing of."""
    first = json.dumps(INIT).replace('"capabilities": {}', '"capabilities": {"x": NaN}')
    out, _err = answers(brain, [first])
    assert [doc.get("id") for doc in out if doc.get("id") != "end"] == [None], out
    assert out[0]["error"]["code"] == -32700
