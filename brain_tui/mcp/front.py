"""`bsi mcp` answers `initialize` at once, while the MCP SDK loads behind it (the core waits for a tool call).

Importing the SDK takes most of a second on an idle machine and several under
load (its HTTP transports and every protocol revision's types come with it);
a client gives up on a silent server (Gemini CLI's `mcp list` after 5 s). So
this front, standard library only, is what `bsi mcp` runs first:

1. It takes fd 0 and fd 1 for the protocol (fd 1 then points at stderr and fd 0
   at the null device: nothing but JSON-RPC ever reaches the client, and no
   child reads the client's messages).
2. A thread imports the SDK and builds the server (`server.build_server`).
3. Meanwhile the first message, when it is a plain `initialize`, is answered
   here with exactly what the SDK answers (`initialize_reply`; a test holds the
   two equal for every protocol revision).
4. Then the SDK serves the stream from its first message on: it sees the
   `initialize` too (its state needs it) and its own answer to it is dropped,
   after a check that it is the one already sent (else a line on stderr).
"""

from __future__ import annotations

import json
import os
import sys
import threading

from brain_tui import __version__

TYPE_CHECKING = False  # not `typing`: the front imports only what answering `initialize` needs
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, BinaryIO

#: What the server tells a client when it connects.
INSTRUCTIONS = (
    "BSI coordinates parallel coding sessions on one brain. Before writing, hold a claim on what you change "
    "(claim_open); writes outside it are refused. Close it with claim_close under its tier's rule. A human "
    "decides gates: after gate_request, stop and wait. When brain_state names stale claims in "
    "human_action_needed, get a human's action on them before going on."
)
SERVER_NAME = "bsi"
SERVER_VERSION = __version__
#: The revisions the SDK negotiates through `initialize` (`mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS`), oldest
#: first; a client asking another one gets the newest. Kept equal to the SDK's by a test.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
#: The server's capabilities as the SDK states them for this server (tools, one resource, no prompts).
CAPABILITIES: dict[str, Any] = {"prompts": {"listChanged": False},
                                "resources": {"listChanged": False, "subscribe": False},
                                "tools": {"listChanged": False}}
_INIT_KEYS = {"protocolVersion", "capabilities", "clientInfo", "_meta"}
_GLOBAL_VALUE_FLAGS = ("--brain", "--now")


#: The most digits an integer read from the client keeps (Python's own limit to reading one, and the SDK's).
_MAX_DIGITS = 4300


def read_json(line: str | bytes) -> Any:
    """`line` as JSON, the way an answer to it can be written back: NaN and Infinity (no JSON) refused as unreadable
    (ValueError), an integer longer than Python reads (valid JSON) read as an infinite float, never repeated in an
    answer (`unreadable_request`)."""
    def number(text: str) -> int | float:
        return int(text) if len(text.lstrip("-")) <= _MAX_DIGITS else float(text)

    def no_constant(text: str) -> Any:
        raise ValueError(f"{text} is no JSON")

    return json.loads(line, parse_int=number, parse_constant=no_constant)


def initialize_reply(message: object) -> dict[str, Any] | None:
    """The SDK's answer to a plain `initialize` request, or None (not one: the SDK answers it itself)."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or message.get("method") != "initialize":
        return None
    ident = message.get("id")
    params = message.get("params")
    if isinstance(ident, bool) or not isinstance(ident, str | int) or not isinstance(params, dict):
        return None
    version, info = params.get("protocolVersion"), params.get("clientInfo")
    if set(params) - _INIT_KEYS or not isinstance(version, str) or not isinstance(params.get("capabilities"), dict) \
            or not isinstance(info, dict) or not isinstance(info.get("name"), str) \
            or not isinstance(info.get("version"), str):
        return None
    try:  # a lone surrogate (`"\ud800"`): valid JSON, yet the SDK cannot read the message and answers it itself
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return None
    negotiated = version if version in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {"jsonrpc": "2.0", "id": ident, "result": {
        "capabilities": CAPABILITIES, "instructions": INSTRUCTIONS, "protocolVersion": negotiated,
        "serverInfo": {"name": SERVER_NAME, "version": SERVER_VERSION}}}


def serve_command(argv: Sequence[str]) -> dict[str, str] | None:
    """`--brain`/`--now` of a bare `bsi [--brain P] [--now T] mcp` command line, or None for anything else."""
    from brain_tui.core.command_line import split_flags

    try:
        flags, rest = split_flags(argv, _GLOBAL_VALUE_FLAGS)
    except ValueError:
        return None
    return flags if rest == ["mcp"] and argv[-1] == "mcp" else None


class _Lines:
    """The SDK's stdin: the first message already read, then the protocol stream, one line at a time."""

    def __init__(self, first: bytes, stream: BinaryIO) -> None:
        self._first: bytes | None = first
        self._stream = stream

    def readline(self) -> str:
        line, self._first = (self._first, None) if self._first is not None else (self._stream.readline(), None)
        return line.decode("utf-8", errors="replace")


class _Out:
    """The SDK's stdout: the protocol stream, minus the SDK's own answer to the `initialize` already answered."""

    def __init__(self, stream: BinaryIO, sent: dict[str, Any] | None) -> None:
        self._stream = stream
        self._sent = sent
        self._partial = ""
        #: None until the SDK answered the `initialize` already sent; then whether it was the same answer.
        self.same: bool | None = None

    def write(self, text: str) -> int:
        self._partial += text
        while "\n" in self._partial:
            line, self._partial = self._partial.split("\n", 1)
            if self._sent is not None and self._is_answer_to_sent(line):
                continue
            self._stream.write(line.encode("utf-8") + b"\n")
        return len(text)

    def _is_answer_to_sent(self, line: str) -> bool:
        assert self._sent is not None
        try:
            doc = json.loads(line)
        except ValueError:
            return False
        if not isinstance(doc, dict) or doc.get("id") != self._sent["id"] or "method" in doc:
            return False
        self.same = doc == self._sent
        if not self.same:
            sys.stderr.write("bsi mcp: the SDK's answer to initialize differs from the one sent: "
                             f"{line[:300]}\n")
        self._sent = None
        return True

    def flush(self) -> None:
        self._stream.flush()


def _claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The protocol's own copies of fd 0 and fd 1; fd 0 then reads the null device and fd 1 writes to stderr."""
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout.flush()
    os.dup2(2, 1)
    return protocol_in, protocol_out


def serve(root: str, now: str | None = None) -> int:
    """Serve over stdio until the client closes stdin; answer the exit code."""
    protocol_in, protocol_out = _claim_stdio()
    loaded: dict[str, Any] = {}

    def load() -> None:
        try:
            from brain_tui.mcp.server import build_server
            from brain_tui.mcp.tools import Session

            loaded["server"] = build_server(Session(root, now=now))
        except BaseException as exc:  # noqa: BLE001 - said on stderr below, never a traceback
            loaded["error"] = exc

    loader = threading.Thread(target=load, name="bsi-mcp-load", daemon=True)
    loader.start()
    try:
        first = protocol_in.readline()
        sent = None
        if first:
            try:
                sent = initialize_reply(read_json(first))
            except (ValueError, RecursionError):  # not JSON, or nested too deep: the SDK's side refuses it
                sent = None
            if sent is not None:
                protocol_out.write(json.dumps(sent, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
                protocol_out.flush()
        loader.join()
        if "error" in loaded:
            exc = loaded["error"]
            sys.stderr.write(f"bsi mcp: the server could not start ({type(exc).__name__}: {str(exc)[:200]})\n")
            return 70
        if not first:
            return 0
        from brain_tui.mcp.server import run_streams

        run_streams(loaded["server"], _Lines(first, protocol_in), _Out(protocol_out, sent),
                    answered=sent["id"] if sent is not None else None)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return 0


def main(argv: Sequence[str]) -> int | None:
    """`bsi [--brain P] [--now T] mcp` served by the front; None when the brain is not found here (the full
    command line then says why, with its exit code)."""
    flags = serve_command(argv)
    if flags is None:
        return None
    from brain_tui.core.errors import InvalidData, NotFound
    from brain_tui.core.paths.layout import find_root

    try:
        root = find_root(flags.get("brain"))
    except (NotFound, InvalidData):
        return None
    return serve(str(root), flags.get("now"))
