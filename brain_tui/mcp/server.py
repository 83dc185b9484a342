"""`bsi mcp`: the stdio MCP server (official `mcp` SDK, `MCPServer`), one tool per protocol action of SPEC 20.3.

Only JSON-RPC ever reaches stdout: `front` keeps the protocol's own copies of
fd 0 and fd 1 and points fd 1 at stderr while it serves, git subprocesses get
`stdin=DEVNULL`, and the SDK's own logging goes to stderr. `front` answers
`initialize` before this module (and the SDK) is even imported.
"""

from __future__ import annotations

import math
import os
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic import StrictBool, StrictInt  # JSON Schema's integer is no boolean, its boolean no text

from brain_tui.mcp import tools
from brain_tui.mcp.front import INSTRUCTIONS, SERVER_NAME, SERVER_VERSION, read_json
from brain_tui.mcp.tools import Session


def _answer(body: Any, session: Session | None = None) -> CallToolResult:
    """The result of one tool call; with `session`, the warnings of the write it made come with it (`tools.call`)."""
    data, is_error = tools.call(body, session)
    return CallToolResult(content=[TextContent(type="text", text=tools.as_text(data))], structured_content=data,
                          is_error=is_error)


def _refused(doc: dict[str, Any]) -> CallToolResult:
    data = tools.inert(doc)
    return CallToolResult(content=[TextContent(type="text", text=tools.as_text(data))], structured_content=data,
                          is_error=True)


#: How many unknown argument names a refusal repeats (the rest are counted): they are the caller's text.
_SHOWN_UNKNOWN = 10


def unknown_arguments(tool: str, arguments: dict[str, Any], takes: list[str]) -> dict[str, Any] | None:
    """The usage refusal (64) of a call whose `arguments` hold one the tool does not take, else None.

    The SDK's argument models ignore an extra key, so a typo (`session_id` for `sess_id`) would act as if the
    argument was not given: `claim_close` would close the session's own claim. Like the command line's unknown
    flag, it is refused before anything is read or done. The tools' input schemas do not say
    `additionalProperties: false`: some model APIs (Gemini's) have refused that word, so the refusal is the server's.
    """
    unknown = [str(key) for key in arguments if key not in takes]
    if not unknown:
        return None
    shown = [name[:80] for name in unknown[:_SHOWN_UNKNOWN]]
    named = ", ".join(repr(name) for name in shown)
    if len(unknown) > len(shown):
        named += f" and {len(unknown) - len(shown)} more"
    what = f"unknown argument{'s' if len(unknown) > 1 else ''} {named} for {tool}"
    it_takes = f"it takes {', '.join(takes)}" if takes else "it takes no arguments"
    return {"error": f"{what}: {it_takes}; nothing was done", "exit": 64, "kind": "usage", "retryable": False,
            "unknown": shown, "takes": list(takes)}


class _Server(MCPServer[Any]):
    """The SDK's server, whose own refusals (an unknown tool or argument, arguments off the schema) take the
    protocol's shape (SPEC 20.3: ``{"error", "exit", "kind", "retryable", …}``), like every refusal of the core."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """Call `name`; an unknown tool or argument is refused as a usage error (64), arguments off its schema as
        invalid (65).

        The refusal names the fields, never the values sent (they are the caller's, hostile or huge).
        """
        from mcp.server.mcpserver.exceptions import ToolError
        from pydantic import ValidationError

        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return _refused({"error": f"unknown tool {name[:80]!r}: see tools/list (a human's decisions are no tool)",
                             "exit": 64, "kind": "usage", "retryable": False})
        unknown = unknown_arguments(name, arguments or {}, list(tool.parameters.get("properties", {})))
        if unknown is not None:
            return _refused(unknown)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            problems = exc.__cause__.errors()
            fields = sorted({".".join(str(part) for part in err["loc"]) or "(arguments)" for err in problems})
            said = "; ".join(sorted({f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in problems}))
            return _refused({"error": f"invalid arguments for {name}: {said}", "exit": 65, "kind": "invalid",
                             "retryable": False, "fields": fields})

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
        """No prompt is served: any name is refused as INVALID_PARAMS, in one line and without a traceback."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import INVALID_PARAMS

        del name, arguments, context  # the SDK's signature; nothing of them is echoed
        raise MCPError(INVALID_PARAMS, "unknown prompt: this server serves no prompts (see tools/list)")

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        """A resource it lists; any other URI is refused as INVALID_PARAMS (the URI is never echoed)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import INVALID_PARAMS

        if str(uri) not in {str(resource.uri) for resource in await self.list_resources()}:
            raise MCPError(INVALID_PARAMS, "unknown resource: see resources/list")
        return await super().read_resource(uri, context)


def build_server(session: Session) -> MCPServer[Any]:
    """The server with every tool bound to `session`."""
    server: MCPServer[Any] = _Server(name=SERVER_NAME, instructions=INSTRUCTIONS, version=SERVER_VERSION,
                                     log_level="WARNING")
    s = session

    def _result(body: Any) -> CallToolResult:
        return _answer(body, s)

    @server.tool(description="The environment of the brain (SPEC 16): host, git state, pm2, ports, system. "
                             "Read-only.")
    def brain_state() -> CallToolResult:
        return _result(lambda: tools.brain_state(s))

    @server.tool(description="This session's claim: ID, status, scope, TTL left, tier, parent, triggers, "
                             "liveness. sess_id is optional (default: the session's own claim).")
    def my_claim(sess_id: str | None = None) -> CallToolResult:
        return _result(lambda: tools.my_claim(s, sess_id))

    @server.tool(description="Open a claim on scope entries (dir/, file, file#Section, *) before writing them. "
                             "Refused (isError, exit 10) when it overlaps a blocking claim: the holders are named. "
                             "The claim is bound to this agent session for the hooks.")
    def claim_open(scope: list[str], story: str = "", ttl: str | None = None, type: str | None = None,
                   satellite_type: str | None = None, level: str | None = None, parent: str | None = None,
                   slug: str | None = None, on_done: str | None = None, on_partial: str | None = None,
                   on_fail: str | None = None) -> CallToolResult:
        return _result(lambda: tools.claim_open(s, scope, story, ttl, type, satellite_type, level, parent, slug,
                                                on_done, on_partial, on_fail))

    @server.tool(description="Extend the session's open claim (never past 8 h after opening).")
    def claim_renew(sess_id: str | None = None, ttl: str | None = None) -> CallToolResult:
        return _result(lambda: tools.claim_renew(s, sess_id, ttl))

    @server.tool(description="Close the session's claim under its tier's rule: Tier 1 needs status ok|partial|"
                             "failed, Tier 2 green tests (tests_total, tests_passed, tests_failed=0), Tier 3 every "
                             "child closed. files default to the files this session wrote.")
    def claim_close(sess_id: str | None = None, status: str | None = None, files: list[str] | None = None,
                    commit: str | None = None, tests_total: StrictInt | None = None,
                    tests_passed: StrictInt | None = None, tests_failed: StrictInt | None = None,
                    notes: str | None = None) -> CallToolResult:
        return _result(lambda: tools.claim_close(s, sess_id, status, files, commit, tests_total, tests_passed,
                                                 tests_failed, notes))

    @server.tool(description="The claims (blocking ones by default; all=true adds closed, failed, released).")
    def claim_list(status: list[str] | None = None, all: StrictBool = False) -> CallToolResult:
        return _result(lambda: tools.claim_list(s, status, all))

    @server.tool(description="The conflicts a claim on these scopes would meet (opens nothing), judged as "
                             "claim_open judges them (give the same parent and ttl): "
                             "{\"conflicts\": [...]}, empty when free.")
    def check_scope(scopes: list[str], parent: str | None = None, satellite_type: str | None = None,
                    ttl: str | None = None) -> CallToolResult:
        return _result(lambda: tools.check_scope(s, scopes, parent, satellite_type, ttl))

    @server.tool(description="May the session's claim write this brain-relative file (or ## section of a markdown "
                             "file: plan.md#Alpha) now? go, or a refusal with the preflight code (exit 1 scope, "
                             "2 locked, 3 breaker, 4 claim not open, 5 kernel zone, 6 branch) and what unblocks it.")
    def preflight(file: str, sess_id: str | None = None) -> CallToolResult:
        return _result(lambda: tools.preflight(s, file, sess_id))

    @server.tool(description="Send a signal (READY_FOR_REVIEW, BLOCKED_ON, HANDOFF, CHECKPOINT, INFO, …) to a "
                             "claim, `pilote` or `parent`, from the session's claim.")
    def signal_send(to: str, type: str, payload: str, scope: str = "",
                    sess_id: str | None = None) -> CallToolResult:
        return _result(lambda: tools.signal_send(s, to, type, payload, scope, sess_id))

    @server.tool(description="Signals, optionally only pending ones and only those to one claim.")
    def signal_list(pending: StrictBool = False, to: str | None = None) -> CallToolResult:
        return _result(lambda: tools.signal_list(s, pending, to))

    @server.tool(description="Acknowledge a signal addressed to this session (pending → delivered).")
    def signal_ack(sig_id: str) -> CallToolResult:
        return _result(lambda: tools.signal_ack(s, sig_id))

    @server.tool(description="Ask a human to decide (human gate). Returns at once with status waiting_human: "
                             "then stop working and wait. Writes are refused until a human approves or "
                             "rejects in the cockpit or with `bsi gate`; gate_status shows the decision.")
    def gate_request(message: str, sess_id: str | None = None) -> CallToolResult:
        return _result(lambda: tools.gate_request(s, message, sess_id))

    @server.tool(description="The session's claim and its subtree, with their statuses and gate history.")
    def gate_status(sess_id: str | None = None) -> CallToolResult:
        return _result(lambda: tools.gate_status(s, sess_id))

    @server.tool(description="Lock one file for the session's claim (TTL in minutes, default 60).")
    def lock_acquire(file: str, ttl_min: StrictInt | None = None, sess_id: str | None = None) -> CallToolResult:
        return _result(lambda: tools.lock_acquire(s, file, ttl_min, sess_id))

    @server.tool(description="Release the session's lock of one file.")
    def lock_release(file: str, sess_id: str | None = None) -> CallToolResult:
        return _result(lambda: tools.lock_release(s, file, sess_id))

    @server.resource("brain://state", name="brain_state", description="The brain's environment (SPEC 16), JSON.",
                     mime_type="application/json")
    def state_resource() -> str:
        data, _error = tools.call(lambda: tools.brain_state(s))
        return tools.as_text(data)

    return server


#: How long the server, its stdin closed, still waits for the answers to the calls in flight.
DRAIN_S = 60.0


def unreadable_request(line: str) -> dict[str, Any] | None:
    """The error answer (JSON-RPC -32600 with the request's id, -32700) to a line the SDK cannot read, else None.

    The SDK drops a line it fails to validate without a word: a request with a lone surrogate in its text
    (`"\\ud800"`: valid JSON, not valid Unicode) or params that are not an object would never be answered, and
    its client would wait for ever. So would a request whose id the SDK cannot hold (4.5), answered with that id,
    or one whose id is no string or number (true), or a number no answer can repeat (1e400, 5,000 digits), answered
    with a null id. A line that is not JSON (NaN and Infinity included) gets -32700
    with a null id (JSON-RPC 2.0), and so does one nested deeper than Python's recursion limit (its reading would
    raise, and end the server). A line that is no message at all (`[]`, `{}`, `7`) gets -32600 with a null id; a
    notification, or an answer to the server, is left to the SDK.
    """
    from mcp_types import jsonrpc_message_adapter

    try:
        doc = read_json(line)
    except (ValueError, RecursionError):  # JSON-RPC 2.0: a parse error is answered with a null id
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error: not JSON, or "
                                                                                   "nested too deep to read"}}
    if not isinstance(doc, dict) or not {"method", "result", "error"} & set(doc):
        return _invalid(None)  # JSON-RPC 2.0: `[]`, `{}`, `7` are invalid requests, answered with a null id
    request = isinstance(doc.get("method"), str) and "id" in doc
    ident = doc["id"] if request else None
    held = isinstance(ident, str | int) and not isinstance(ident, bool)
    if not request or held:
        try:
            jsonrpc_message_adapter.validate_json(line, by_name=False)
            return None
        except ValueError:
            if not request:
                return None  # a notification, or no request at all: the SDK's to drop
    if not held and not (isinstance(ident, float) and math.isfinite(ident)):
        ident = None  # JSON-RPC 2.0: an id that cannot be read (or written back: 1e400) is answered with a null id
    return _invalid(ident)


def _invalid(ident: Any, why: str = "not a well-formed MCP message (an object with a method, params an object, and "
                                    "every text valid Unicode: no lone surrogate)") -> dict[str, Any]:
    """JSON-RPC's -32600 answer to a request that cannot be served, with `ident` as its id."""
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32600, "message": f"invalid request: {why}"}}


def batch_entries(line: str) -> list[str] | None:
    """The entries of a JSON-RPC batch (a non-empty array), one JSON line each; None when `line` is no batch.

    The SDK reads one message per line and drops an array without a word, so the requests in a batch (which
    MCP 2025-03-26 says a server must accept) would never be answered. Each entry is served as a message of its
    own and answered on its own line (clients match answers by id); an entry that is no object is answered
    -32600 by `unreadable_request`.
    """
    import json

    if not line.lstrip().startswith("["):
        return None
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError):
        return None  # `unreadable_request` answers it
    if not isinstance(doc, list) or not doc:
        return None
    return [json.dumps(entry) + "\n" for entry in doc]


class _Checked:
    """The server's stdin, answering itself the requests the SDK cannot read (`unreadable_request`), and its stdout,
    written by one thread at a time (the SDK's writer and those answers).

    At the end of stdin it waits until every request read has been answered: a client that sends its calls and
    closes stdin still learns, for instance, the id of the claim it opened (up to :data:`DRAIN_S` seconds). A client
    that stops reading (its end of stdout closed) gets nothing more: the answers are dropped, no broken pipe
    reaches the SDK's task group (a traceback on stderr), and the server ends with stdin.
    """

    def __init__(self, stdin: Any, stdout: Any, answered: Any = None) -> None:
        import threading

        self._in, self._out, self._lock = stdin, stdout, threading.Lock()
        #: the id of the first request, answered already (the front's `initialize`): its client may use it again
        self._answered_first = answered
        #: that request's id once read, until the SDK's own answer to it (dropped by the front) goes by: that
        #: answer frees nothing, as the id may be a new request's already
        self._owed: Any = None
        #: the entries of a batch read, not yet handed to the SDK (`batch_entries`)
        self._batch: list[str] = []
        self._answered = threading.Condition()
        self._pending: set[str | int] = set()
        #: the client stopped reading (a broken pipe): answers are dropped, the calls in flight still end
        self._gone = False

    def readline(self) -> Any:
        import json

        while True:
            if self._batch:
                line = self._batch.pop(0)
            else:
                line = self._in.readline()
                if not line:
                    with self._answered:
                        self._answered.wait_for(lambda: not self._pending, timeout=DRAIN_S)
                    return line
                entries = batch_entries(line)
                if entries is not None:
                    self._batch = entries
                    continue
            answer = unreadable_request(line) if line.strip() else None
            if answer is None:
                reused = self._note(line, read=True)
                if reused is None:
                    return line
                answer = _invalid(reused, f"request id {str(reused)[:80]!r} is already in use by a request in "
                                          "flight: an id is never reused while its request runs (this one was not run)")
            # ASCII: the id may hold a surrogate; a reused id's answer leaves its request in flight counted
            self._send(json.dumps(answer, separators=(",", ":")) + "\n")
            self.flush()

    def _note(self, text: str, read: bool) -> str | int | None:
        """Count a request read (an id and a method) in, an answer written (an id, no method) or a cancel out.

        Returns the id of a request read whose id a request in flight holds (not counted: it is not to run), else
        None. The SDK would run both and answer twice with one id (a resent `claim_open` opening its claim, then
        refused as a conflict with it)."""
        import json

        for line in text.splitlines():
            try:
                doc = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if not isinstance(doc, dict):
                continue
            ident, method = doc.get("id"), doc.get("method")
            if read and method == "notifications/cancelled" and isinstance(doc.get("params"), dict):
                ident, read = doc["params"].get("requestId"), False  # the SDK answers no cancelled request
            elif (method is not None) != read:
                continue
            if isinstance(ident, str | int) and not isinstance(ident, bool):
                with self._answered:
                    if read and method is not None and ident in self._pending:
                        return ident
                    if read and ident == self._answered_first:
                        self._answered_first, self._owed = None, ident  # (never counted in flight)
                        continue
                    if not read and method is None and ident == self._owed:
                        self._owed = None  # the SDK's answer to the front's request: not the new request's
                        continue
                    (self._pending.add if read else self._pending.discard)(ident)
                    self._answered.notify_all()
        return None

    def write(self, text: str) -> int:
        self._note(text, read=False)
        return self._send(text)

    def _send(self, text: str) -> int:
        with self._lock:
            if not self._gone:
                try:
                    return int(self._out.write(text))
                except (BrokenPipeError, ConnectionResetError):
                    self._gone = True
            return len(text)

    def flush(self) -> None:
        with self._lock:
            if not self._gone:
                try:
                    self._out.flush()
                except (BrokenPipeError, ConnectionResetError):
                    self._gone = True


def run_streams(server: MCPServer[Any], stdin: Any, stdout: Any, answered: Any = None) -> None:
    """Serve `server` over two line streams (objects with `readline`, and `write`/`flush`) until stdin ends.
    `answered`: the id of the first request, which the front answered already (its `initialize`)."""
    import anyio
    from mcp.server.stdio import stdio_server

    checked: Any = _Checked(stdin, stdout, answered)  # a line stream, like the two it wraps

    async def main() -> None:
        async with stdio_server(stdin=anyio.wrap_file(checked), stdout=anyio.wrap_file(checked)) as (read, write):
            # `MCPServer.run_stdio_async` with our streams: the SDK offers no public door for them
            low = server._lowlevel_server
            await low.run(read, write, low.create_initialization_options())

    anyio.run(main)


def serve(root: str | os.PathLike[str], now: str | None = None, stdout: Any = None) -> int:
    """Serve over stdio until the client closes stdin (through `front`); answer the exit code."""
    from brain_tui.mcp import front

    del stdout  # the front owns fd 1 while it serves
    return front.serve(os.fspath(root), now)
