"""A fake OpenAI Responses API on 127.0.0.1 that plays a scripted agent for the real Codex CLI (0.171.0).

Codex CLI, given a provider ``[model_providers.fake] base_url = "<url>/v1"`` with ``wire_api = "responses"``,
sends ``POST /v1/responses`` (``stream: true``) for each step of the agent's loop and reads server-sent events:
``response.created``, ``response.output_item.done`` per item, ``response.completed``. A request offering the
script's tool gets the script's step for the number of tool outputs already in its `input` (a ``function_call``
(``exec_command``, the MCP tools) or a ``custom_tool_call`` (``apply_patch``, a freeform tool), as the request's
`tools` type it); the client runs the tool and sends its output in the next request. A request past the script gets
a text, which ends the turn. Every request is recorded.

Codex does not wait for its MCP servers before the turn: a call made before a server listed its tools comes back as
``unsupported call: <namespace><tool>``. The fake agent then does what a model does, and calls again, after a pause
(`MCP_RETRY_PAUSE`), at most `MCP_RETRIES` times; `tool_outputs` leaves those early answers out.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A step: ``{"call": TOOL, "args": {...}}`` (a function tool), ``{"call": TOOL, "input": TEXT}`` (a freeform
#: tool such as ``apply_patch``), ``{"call": TOOL, "namespace": NS, "args": {...}}`` (an MCP tool), or
#: ``{"search": QUERY}`` (Codex's `tool_search`, which brings the deferred MCP tools in), or ``{"text": TEXT}``.
Step = dict[str, Any]

OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output", "tool_search_output")
#: How Codex answers a call to a tool no server has listed (yet): the namespace and the tool's name follow.
UNSUPPORTED = "unsupported call: "
MCP_RETRIES = 120
MCP_RETRY_PAUSE = 0.5


def outputs_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool outputs the request's `input` carries, in order."""
    return [item for item in body.get("input") or [] if isinstance(item, dict) and item.get("type") in OUTPUT_TYPES]


def is_early(output: Any, retries: int) -> bool:
    """Whether `output` answers an MCP call made before Codex knew the server's tools, and calls again."""
    return isinstance(output, str) and output.startswith(UNSUPPORTED + "mcp__") and retries < MCP_RETRIES


def script_outputs(outputs: Sequence[Any]) -> list[Any]:
    """The outputs that answer a step of the script: each early answer to an MCP call is left out."""
    kept: list[Any] = []
    retries = 0
    for output in outputs:
        if is_early(output, retries):
            retries += 1
            continue
        kept.append(output)
        retries = 0
    return kept


def steps_done(body: dict[str, Any]) -> int:
    """How many steps of the script the request's outputs answer: the script's step to answer."""
    return len(script_outputs([item.get("output") for item in outputs_of(body)]))


def item_for(body: dict[str, Any], script: Sequence[Step]) -> dict[str, Any]:
    """The output item to answer `body` with."""
    step = steps_done(body)
    outputs = outputs_of(body)
    if outputs and is_early(outputs[-1].get("output"), 0):
        time.sleep(MCP_RETRY_PAUSE)
    if step >= len(script) or "text" in script[step]:
        text = "Done." if step >= len(script) else script[step]["text"]
        return {"type": "message", "id": f"msg_{step}", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
    want = script[step]
    call_id = f"call_{len(outputs)}"
    if "search" in want:
        return {"type": "tool_search_call", "id": f"ts_{len(outputs)}", "status": "completed", "call_id": call_id,
                "execution": "client", "arguments": {"query": want["search"]}}
    if "input" in want:
        return {"type": "custom_tool_call", "id": f"ctc_{len(outputs)}", "status": "completed", "call_id": call_id,
                "name": want["call"], "input": want["input"]}
    item = {"type": "function_call", "id": f"fc_{len(outputs)}", "status": "completed", "call_id": call_id,
            "name": want["call"], "arguments": json.dumps(want.get("args") or {})}
    if "namespace" in want:
        item["namespace"] = want["namespace"]
    return item


def events(body: dict[str, Any], script: Sequence[Step], number: int) -> list[dict[str, Any]]:
    """The server-sent events answering `body`."""
    rid = f"resp_{number}"
    item = item_for(body, script)
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    return [
        {"type": "response.created", "response": {"id": rid, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": rid, "status": "completed", "output": [item],
                                                    "usage": usage}},
    ]


class FakeResponsesAPI:
    """The server, in a thread; `requests` holds every POST body, `url` is the base URL (ending in ``/v1``)."""

    def __init__(self, script: Sequence[Step]) -> None:
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, doc: Any) -> None:
                out = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def do_GET(self) -> None:  # noqa: N802 - the http.server name
                api.paths.append(f"GET {self.path}")
                self._json({"object": "list", "data": [], "models": []})

            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                api.paths.append(f"POST {self.path}")
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"undecodable": len(raw)}
                if not self.path.rstrip("/").endswith("/responses"):
                    self._json({})
                    return
                with lock:
                    api.requests.append(body)
                    number = len(api.requests)
                out = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode()
                               for e in events(body, script, number))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def tool_outputs(self) -> list[Any]:
        """Each step's tool output the client sent back, in the order of the calls (by `call_id`); an early answer
        to an MCP call, called again, is left out."""
        found: dict[str, Any] = {}
        for body in self.requests:
            for item in outputs_of(body):
                found.setdefault(item.get("call_id", ""), item.get("output"))
        return script_outputs([found[key] for key in sorted(found, key=lambda key: int(key.rpartition("_")[2]))])
