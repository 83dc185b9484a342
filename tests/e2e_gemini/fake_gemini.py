"""A fake Gemini API on 127.0.0.1 that plays a scripted agent for the real Gemini CLI (0.61.0).

Gemini CLI, pointed here by `GOOGLE_GEMINI_BASE_URL` (with `GEMINI_API_KEY=dummy`), sends
`POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for the agent's loop and reads one
server-sent event per answer. A request offering tools is the loop: it gets the script's step for the
number of `model` turns already in `contents` (a `functionCall` makes the client run the tool and send a
`functionResponse` next; a text ends the turn). A request without tools, or past the script, gets a text
(one asking for JSON gets ``{"next_speaker": "user"}``). Every request is recorded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A step: ``{"call": TOOL, "args": {...}}`` or ``{"text": TEXT}``.
Step = dict[str, Any]


def answer(body: dict[str, Any], script: Sequence[Step]) -> dict[str, Any]:
    """The part to answer `body` with."""
    offered = [d for tool in body.get("tools") or [] for d in tool.get("functionDeclarations") or []]
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json":
        return {"text": json.dumps({"next_speaker": "user", "reasoning": "done"})}
    step = sum(1 for content in body.get("contents") or [] if content.get("role") == "model")
    if not offered or step >= len(script):
        return {"text": "Done."}
    if "call" in script[step]:
        return {"functionCall": {"name": script[step]["call"], "args": script[step]["args"]}}
    return {"text": script[step]["text"]}


class FakeGeminiAPI:
    """The server, in a thread; `requests` holds every POST body, `url` is the base URL."""

    def __init__(self, script: Sequence[Step]) -> None:
        self.requests: list[dict[str, Any]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                api.requests.append(body)
                part = {"text": "ok"} if "countTokens" in self.path else answer(body, script)
                doc = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}],
                       "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
                if "countTokens" in self.path:
                    doc = {"totalTokens": 1}
                out = json.dumps(doc).encode()
                self.send_response(200)
                if "alt=sse" in self.path:
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    self.wfile.write(b"data: " + out + b"\n\n")
                else:
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(out)))
                    self.end_headers()
                    self.wfile.write(out)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def tool_results(self) -> list[Any]:
        """Each tool call's `functionResponse.response` the client sent, in the order of the calls."""
        found: dict[str, Any] = {}
        for body in self.requests:
            for content in body.get("contents") or []:
                for part in content.get("parts") or []:
                    if "functionResponse" in part:
                        found[part["functionResponse"].get("id", "")] = part["functionResponse"]["response"]
        return list(found.values())
