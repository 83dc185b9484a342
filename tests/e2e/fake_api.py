"""A fake Anthropic Messages API on 127.0.0.1 that plays a scripted agent for the real Claude Code CLI.

Claude Code, pointed here by `ANTHROPIC_BASE_URL`, sends only `HEAD /` and `POST /v1/messages?beta=true`
(`stream: true`) and reads the answer as server-sent events. A request whose `tools` hold the main tools
is the agent's loop: it gets the script's step for the number of assistant messages already in
`messages` (a text answer ends the turn; a `tool_use` makes the client run the tool and send its
`tool_result` in the next request). Any other request (a title, a quota check) gets a short text.
Past the end of the script every answer is a short text, so every loop stops by itself.
The client connects MCP servers asynchronously: a step that calls an MCP tool the request does not
offer yet is preceded by the client's own `WaitForMcpServers` (what it tells a model to call), at
most MAX_WAITS times; those waits are not steps of the script.
A session of several prompts (one after `/clear`, say) gets a script per prompt: a mapping from the
prompt's text to its steps, the step counted from the latest scripted prompt in `messages`.
Every request is recorded, so a test reads what the model was told (`tool_results`).
A `Meanwhile` step lets a person act while the agent waits for its model: its action runs once, when the
client asks for that step, before the step is answered (the human's `bsi gate pause` between two tool calls).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Tools the agent's own loop always offers (a request without them is a side request).
MAIN_TOOLS = frozenset({"Bash", "Write", "Edit"})
#: What a request past the script, or a side request, is answered.
DONE_TEXT = "Done."
#: Where every MCP tool of the project's server is named in the model's tool list.
MCP_PREFIX = "mcp__bsi__"
#: Claude Code's tool that waits (up to 5 s a call) for MCP servers still connecting.
WAIT_TOOL = "WaitForMcpServers"
#: How many waits one scripted MCP step may be preceded by before it is played anyway.
MAX_WAITS = 8
#: The `tool_use` IDs of those waits.
WAIT_ID_PREFIX = "toolu_e2e_wait_"


@dataclass(frozen=True)
class Text:
    """A step that answers with text and ends the agent's turn."""

    text: str


@dataclass(frozen=True)
class ToolUse:
    """A step that asks the client to run one tool with this input."""

    name: str
    input: dict[str, Any]


Step = Text | ToolUse


@dataclass(frozen=True)
class Meanwhile:
    """A step played after `action` ran: what a person does while the agent waits for its model. The action runs
    in the server's thread, once; what it raises ends the agent's turn and is raised again when the server stops."""

    action: Callable[[], object]
    then: Step


#: One planned step of a script.
Planned = Step | Meanwhile


def bash(command: str) -> ToolUse:
    """A step that runs `command` in the agent's shell (Claude Code's `Bash` tool)."""
    return ToolUse("Bash", {"command": command, "description": "run a command"})

#: One list of steps, or one list per prompt (keyed by the prompt's exact text).
Script = Sequence[Planned] | Mapping[str, Sequence[Planned]]


@dataclass
class Exchange:
    """One recorded request: method, path and (for a POST) the JSON body."""

    method: str
    path: str
    body: dict[str, Any] = field(default_factory=dict)
    #: (prompt, step) of the script step this request was answered with; None for a wait or a plain text.
    played: tuple[str | None, int] | None = None

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools this request offers the model."""
        return [str(tool.get("name", "")) for tool in self.body.get("tools") or []]

    @property
    def is_agent_loop(self) -> bool:
        """Whether this request is the agent's own loop (its tools hold the main tools)."""
        return self.method == "POST" and set(self.tool_names) >= MAIN_TOOLS

    @property
    def step(self) -> int:
        """How many assistant messages (waits aside) the request already holds (= the step the agent is at)."""
        return _steps_in(self.body.get("messages") or [])

    @property
    def text(self) -> str:
        """Every text the request shows the model (prompts, hook context, tool results), one block a line."""
        parts: list[str] = []
        for message in self.body.get("messages") or []:
            for block in _blocks(message):
                parts.append(str(block.get("text", "")) if block.get("type") == "text" else result_text(block))
        return "\n".join(parts)

    @property
    def waits(self) -> int:
        """How many waits for MCP servers the request already holds."""
        return sum(1 for message in self.body.get("messages") or [] if _is_wait(message))


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return []


def _is_wait(message: dict[str, Any]) -> bool:
    return message.get("role") == "assistant" and any(
        str(block.get("id", "")).startswith(WAIT_ID_PREFIX) for block in _blocks(message))


def _steps_in(messages: list[dict[str, Any]]) -> int:
    return sum(1 for message in messages if message.get("role") == "assistant" and not _is_wait(message))


def _texts(message: dict[str, Any]) -> set[str]:
    return {str(block.get("text", "")).strip() for block in _blocks(message) if block.get("type") == "text"}


def result_text(block: dict[str, Any]) -> str:
    """The text of a `tool_result` block (its content is a string or a list of text blocks)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


class FakeMessagesAPI:
    """The scripted server: `with FakeMessagesAPI(script) as api: … api.base_url …`."""

    def __init__(self, script: Script) -> None:
        self.scripts: dict[str | None, list[Planned]] = (
            {prompt: list(steps) for prompt, steps in script.items()} if isinstance(script, Mapping)
            else {None: list(script)})
        self.exchanges: list[Exchange] = []
        #: What each `Meanwhile` action raised (the first is raised again on leaving the `with`).
        self.failures: list[BaseException] = []
        self._acted: set[tuple[str | None, int]] = set()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-messages-api", daemon=True)

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT` (the port is the one the OS gave)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeMessagesAPI:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        if kind is None and self.failures:
            raise self.failures[0]

    # What the tests read -------------------------------------------------------------------------

    def agent_requests(self) -> list[Exchange]:
        """The agent-loop requests, in arrival order."""
        with self._lock:
            return [exchange for exchange in self.exchanges if exchange.is_agent_loop]

    def tool_results(self) -> dict[str, dict[str, Any]]:
        """Every `tool_result` the client sent, by `tool_use_id` (the last copy of each wins)."""
        found: dict[str, dict[str, Any]] = {}
        for exchange in self.agent_requests():
            for message in exchange.body.get("messages") or []:
                if message.get("role") != "user":
                    continue
                for block in _blocks(message):
                    if block.get("type") == "tool_result":
                        found[str(block.get("tool_use_id"))] = block
        return found

    def result_of(self, step: int, prompt: str | None = None) -> dict[str, Any]:
        """The `tool_result` of step `step` (a `ToolUse`) of the script (of `prompt`'s script); fails if never sent."""
        results = self.tool_results()
        key = tool_use_id(step, self._number(prompt))
        assert key in results, f"no tool_result for step {step} ({self.scripts[prompt][step]}); got {sorted(results)}"
        return results[key]

    def position(self, exchange: Exchange) -> tuple[str | None, int]:
        """(the scripted prompt the request answers, the step it is at): assistant messages since that prompt."""
        messages = exchange.body.get("messages") or []
        if None in self.scripts:
            return None, exchange.step
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if message.get("role") != "user":
                continue
            found = [prompt for prompt in self.scripts if prompt in _texts(message)]
            if found:
                return found[0], _steps_in(messages[index + 1:])
        return None, exchange.step

    def _number(self, prompt: str | None) -> int:
        return list(self.scripts).index(prompt)

    # Serving -------------------------------------------------------------------------------------

    def _record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)

    def past_script(self) -> list[Exchange]:
        """The agent-loop requests that came after their script's last step (a Stop hook that held the agent)."""
        found = []
        for exchange in self.agent_requests():
            prompt, step = self.position(exchange)
            if prompt in self.scripts and step >= len(self.scripts[prompt]):
                found.append(exchange)
        return found

    def offered(self, step: int, prompt: str | None = None) -> list[str]:
        """The tool names of the request that was answered with step `step` (of `prompt`'s script)."""
        for exchange in self.agent_requests():
            if exchange.played == (prompt, step):
                return exchange.tool_names
        raise AssertionError(f"step {step} of {prompt!r} was never played")

    def _answer(self, exchange: Exchange) -> tuple[Step, str]:
        """The step to play and the `tool_use` ID to give it."""
        prompt, step = self.position(exchange)
        steps = self.scripts.get(prompt) if exchange.is_agent_loop else None
        if steps is None or step >= len(steps):
            return Text(DONE_TEXT), tool_use_id(step, -1)
        planned = steps[step]
        action = planned.action if isinstance(planned, Meanwhile) else None
        planned = planned.then if isinstance(planned, Meanwhile) else planned
        if (isinstance(planned, ToolUse) and planned.name.startswith("mcp__")
                and planned.name not in exchange.tool_names and exchange.waits < MAX_WAITS):
            server = planned.name.split("__")[1]
            return ToolUse(WAIT_TOOL, {"servers": [server]}), f"{WAIT_ID_PREFIX}{exchange.waits:03d}"
        if action is not None and not self._act((prompt, step), action):
            return Text(DONE_TEXT), tool_use_id(step, -1)
        exchange.played = (prompt, step)
        return planned, tool_use_id(step, self._number(prompt))

    def _act(self, where: tuple[str | None, int], action: Callable[[], object]) -> bool:
        """Run a `Meanwhile` action once (a repeated request does not run it again); False when it raised."""
        with self._lock:
            if where in self._acted:
                return True
            self._acted.add(where)
        try:
            action()
        except BaseException as exc:  # kept for the test's own thread: this one only serves requests
            self.failures.append(exc)
            return False
        return True

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_HEAD(self) -> None:
                api._record(Exchange("HEAD", self.path))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                api._record(Exchange("GET", self.path))
                self._plain(404, b"not found")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                exchange = Exchange("POST", self.path, body if isinstance(body, dict) else {})
                api._record(exchange)
                if not self.path.startswith("/v1/messages") or self.path.startswith("/v1/messages/count_tokens"):
                    self._plain(404, b"not found")
                    return
                step, use_id = api._answer(exchange)
                payload = b"".join(sse_events(step, use_id, str(body.get("model", "fake")), len(raw)))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _plain(self, code: int, text: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

        return Handler


def tool_use_id(step: int, script: int = 0) -> str:
    """The `tool_use` ID the server gives step `step` of script number `script` (echoed in the result)."""
    return f"toolu_e2e_{script}_{step:03d}" if script >= 0 else f"toolu_e2e_done_{step:03d}"


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()


def usage_of(request_bytes: int) -> dict[str, int]:
    """The `usage` a real API would give a request of this size (about 4 bytes a token), most of it a cache read:
    so a transcript records a context that grows turn by turn (`core.transcript` reads it)."""
    context = max(16, request_bytes // 4)
    created = context // 10
    return {"input_tokens": 4, "cache_creation_input_tokens": created,
            "cache_read_input_tokens": context - created - 4, "output_tokens": 1}


def sse_events(step: Step, use_id: str, model: str, request_bytes: int = 0) -> Iterator[bytes]:
    """The server-sent events of one streamed answer: `message_start` … `message_stop`, with a `usage`."""
    yield _event("message_start", {"message": {
        "id": use_id.replace("toolu_", "msg_"), "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": usage_of(request_bytes)}})
    if isinstance(step, ToolUse):
        block: dict[str, Any] = {"type": "tool_use", "id": use_id, "name": step.name, "input": {}}
        delta: dict[str, Any] = {"type": "input_json_delta", "partial_json": json.dumps(step.input)}
        stop_reason = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": step.text}
        stop_reason = "end_turn"
    yield _event("content_block_start", {"index": 0, "content_block": block})
    yield _event("content_block_delta", {"index": 0, "delta": delta})
    yield _event("content_block_stop", {"index": 0})
    yield _event("message_delta", {"delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                   "usage": {"output_tokens": 25}})
    yield _event("message_stop", {})
