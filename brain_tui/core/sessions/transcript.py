"""Reading an agent session's transcript: what its agent last said and did, and its context runway (issue 21).

The hooks record the `transcript_path` their events give (`core.agents`); this
module reads the end of that file — never more than `TAIL_BYTES`, seeking from
the end and dropping the first, partial line — and parses its JSON lines
defensively (a line that does not parse, or is not what is expected, is
skipped). Three shapes are read:

* Claude Code (``~/.claude/projects/…/<session>.jsonl``): ``assistant`` lines
  whose ``message.content`` holds ``text`` and ``tool_use`` blocks, ``user``
  lines holding the ``tool_result`` of each call, and per model turn
  ``message.usage`` (one turn per ``message.id``: a streamed message is written
  one block a line, each with the same usage);
* Codex (``~/.codex/sessions/…/rollout-….jsonl``): ``response_item`` lines
  (``message`` with ``output_text``, ``function_call`` / ``function_call_output``)
  and ``event_msg`` ``token_count`` lines (``info.last_token_usage`` and the
  ``model_context_window``);
* Gemini CLI (a JSON file, ``{"messages": […]}``): ``gemini`` messages with
  ``content``, ``toolCalls`` and ``tokens``; read only when the whole file fits
  in `TAIL_BYTES`.

Context used by one turn = input + cache creation + cache read + output tokens.
The model's window is `DEFAULT_WINDOW` unless the model name ends in ``[1m]``
(1,000,000), the transcript gives one (Codex), or ``agents.context_window`` is
configured. The forecast: the average growth per turn over the last
`FORECAST_TURNS` turns; turns left = what remains / that growth.

Everything returned is inert (SPEC 15): text goes through `text_safety.inert_line`.
Nothing here reads a clock; the caller passes nothing time-dependent and reads the
timestamps the transcript holds.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar

from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.text_safety import ELLIPSIS, inert_line
from brain_tui.core.record import field, record

#: At most this many bytes are read from the end of a transcript.
TAIL_BYTES = 256 * 1024
#: The context window of a model when nothing says otherwise (tokens).
DEFAULT_WINDOW = 200_000
#: A model whose name ends with this suffix has a one-million-token window.
LONG_SUFFIX = "[1m]"
LONG_WINDOW = 1_000_000
#: Turns the forecast averages over.
FORECAST_TURNS = 5
#: Under this share of the window left, a session is an attention item.
LOW_CONTEXT = 0.10
#: The last assistant text is cut to this many lines of at most `TEXT_WIDTH` characters.
TEXT_LINES = 3
TEXT_WIDTH = 200
#: A tool's target is cut to this many characters.
TARGET_WIDTH = 200
#: A token figure above this is no real count (a forged or corrupt line): it is skipped, like a negative one.
MAX_TOKENS = 10**12
#: The `tool_input` keys naming what a tool works on, in order of preference.
TARGET_KEYS = ("file_path", "notebook_path", "path", "command", "cmd", "pattern", "url", "query")


def inert_lines(text: str, lines: int = TEXT_LINES, width: int = TEXT_WIDTH) -> tuple[str, ...]:
    """The first `lines` non-blank lines of `text`, each inert and cut on its own (an ellipsis line when more
    followed): a long line never hides the lines after it. `text` comes from a tail of at most `TAIL_BYTES`."""
    found: list[str] = []
    for raw in text.splitlines():
        line = inert_line(raw, width)
        if not line:
            continue
        if len(found) == lines:
            found[-1] = found[-1] if found[-1].endswith(ELLIPSIS) else found[-1][: width - 1] + ELLIPSIS
            break
        found.append(line)
    return tuple(found)


@record
class ToolCall(JsonShaped):
    """A tool call the agent made: its tool, its target (file, command, pattern), when, and whether it finished."""

    name: str
    target: str
    at: datetime | None
    done: bool


@record
class Runway:
    """The context a session used against its model's window, and the turns left at the recent rate.

    Attributes:
        used: tokens of context in the last model turn.
        window: the model's window (tokens).
        growth: average growth per turn over the recent turns (None: fewer than two turns, or no growth).
        turns_left: `(window - used) / growth`, rounded down (None when `growth` is None).
    """

    used: int
    window: int
    growth: float | None
    turns_left: int | None

    @property
    def used_share(self) -> float:
        """The share of the window used, 0..1 (more than 1 is cut to 1)."""
        return min(1.0, self.used / self.window) if self.window > 0 else 1.0

    @property
    def left_share(self) -> float:
        """The share of the window left, 0..1."""
        return 1.0 - self.used_share

    @property
    def low(self) -> bool:
        """True under `LOW_CONTEXT` left: the pilot should close or hand off."""
        return self.left_share < LOW_CONTEXT

    def describe(self) -> str:
        """``ctx 71% · ~6 turns``, ``~1 turn``, ``<1 turn`` when not one whole turn is left (``ctx 71%`` without a
        forecast)."""
        head = f"ctx {int(self.used_share * 100)}%"
        if self.turns_left is None:
            return head
        if self.turns_left < 1:
            return f"{head} · <1 turn"
        return f"{head} · ~{self.turns_left} turn{'s' if self.turns_left != 1 else ''}"

    def as_dict(self) -> dict[str, Any]:
        """JSON shape."""
        return {"used": self.used, "window": self.window, "used_pct": int(self.used_share * 100),
                "growth_per_turn": round(self.growth, 1) if self.growth is not None else None,
                "turns_left": self.turns_left, "low": self.low, "text": self.describe()}


@record
class Peek(JsonShaped):
    """What a session's agent last said and did, read from its transcript.

    Attributes:
        text: the first lines of the last assistant message (inert), empty when none.
        text_at: when it was written.
        tool: the tool call in progress, else the last one; None when none was read.
        model: the model of the last turn (inert), or "".
        runway: the context runway, or None when no turn recorded its usage.
        at: the newest timestamp read.
        read_bytes: how many bytes were read (at most `TAIL_BYTES`).
    """

    text: tuple[str, ...] = ()
    text_at: datetime | None = None
    tool: ToolCall | None = None
    model: str = ""
    runway: Runway | None = None
    at: datetime | None = None
    read_bytes: int = 0
    turns: tuple[int, ...] = field(default=(), repr=False)

    _json_omit: ClassVar[frozenset[str]] = frozenset({"read_bytes", "turns"})


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _int(value: object) -> int:
    """A positive token figure, else 0 (not an int, a bool, or beyond `MAX_TOKENS`: no count)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_TOKENS else 0


# ---------------------------------------------------------------------------------------------
# Reading the file
# ---------------------------------------------------------------------------------------------
def read_tail(path: str, limit: int = TAIL_BYTES) -> bytes:
    """The last `limit` bytes of a regular file (not followed through a final symlink); b"" when unreadable."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return b""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return b""
        start = max(0, info.st_size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        chunks: list[bytes] = []
        left = min(limit, info.st_size)
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if start == 0 else b"\0" + data  # a marker: the first line is partial
    except OSError:
        return b""
    finally:
        os.close(fd)


def tail_lines(data: bytes) -> list[bytes]:
    """The whole lines of a tail read by `read_tail` (its first, partial line dropped when it began mid-file)."""
    partial = data.startswith(b"\0")
    lines = data.split(b"\n")
    if partial:
        lines = lines[1:]
    return [line for line in lines if line.strip()]


def _objects(lines: Iterable[bytes]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for line in lines:
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def target_of(tool_input: object) -> str:
    """What a tool works on (its file, command, pattern…), inert and cut; "" when none."""
    if isinstance(tool_input, str):
        try:
            tool_input = json.loads(tool_input)
        except (ValueError, RecursionError):
            return ""
    if not isinstance(tool_input, dict):
        return ""
    for key in TARGET_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str | list) and value:
            return inert_line(value, TARGET_WIDTH)
    return ""


# ---------------------------------------------------------------------------------------------
# The shapes
# ---------------------------------------------------------------------------------------------
class _Reader:
    """Collects the last text, the tool calls and the per-turn usage while lines are fed in order."""

    def __init__(self) -> None:
        self.text = ""
        self.text_at: datetime | None = None
        self.calls: dict[str, ToolCall] = {}
        self.last_call: ToolCall | None = None
        self.last_id = ""
        self.turns: dict[str, int] = {}
        self.model = ""
        self.window = 0
        self.at: datetime | None = None

    def call(self, use_id: str, name: object, tool_input: object, at: datetime | None) -> None:
        if not isinstance(name, str) or not name:
            return
        call = ToolCall(inert_line(name, 64), target_of(tool_input), at, False)
        self.last_call, self.last_id = call, use_id
        if use_id:
            self.calls[use_id] = call

    def result(self, use_id: object) -> None:
        if not isinstance(use_id, str) or use_id not in self.calls:
            return
        done = self.calls[use_id]
        self.calls[use_id] = ToolCall(done.name, done.target, done.at, True)
        if use_id == self.last_id and self.last_call is not None:
            self.last_call = self.calls[use_id]

    def said(self, text: object, at: datetime | None) -> None:
        if isinstance(text, str) and text.strip():
            self.text, self.text_at = text, at

    def turn(self, key: str, usage: object) -> None:
        if not isinstance(usage, dict):
            return
        used = sum(_int(usage.get(k)) for k in ("input_tokens", "cache_creation_input_tokens",
                                                  "cache_read_input_tokens", "output_tokens"))
        if used:
            self.turns.pop(key, None)
            self.turns[key] = used

    def peek(self, read: int, window: int | None) -> Peek:
        pending = [c for c in self.calls.values() if not c.done]
        tool = pending[-1] if pending else self.last_call
        turns = tuple(self.turns.values())
        size = window or self.window or window_of(self.model)
        return Peek(inert_lines(self.text), self.text_at, tool, inert_line(self.model, 80),
                    runway(turns, size), self.at, read, turns)


def _claude(reader: _Reader, obj: dict[str, Any]) -> None:
    message = obj.get("message")
    if not isinstance(message, dict):
        return
    at = _time(obj.get("timestamp"))
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    if obj.get("type") == "assistant":
        if isinstance(message.get("model"), str) and message["model"] != "<synthetic>":
            reader.model = message["model"]
        for block in blocks:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                reader.said(block.get("text"), at)
            elif block.get("type") == "tool_use":
                reader.call(str(block.get("id") or ""), block.get("name"), block.get("input"), at)
        key = str(message.get("id") or obj.get("uuid") or len(reader.turns))
        reader.turn(key, message.get("usage"))
    elif obj.get("type") == "user":
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                reader.result(block.get("tool_use_id"))


def _codex(reader: _Reader, obj: dict[str, Any]) -> None:
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        return
    at = _time(obj.get("timestamp"))
    kind = payload.get("type")
    if obj.get("type") == "turn_context" and isinstance(payload.get("model"), str):
        reader.model = payload["model"]
    elif kind == "message" and payload.get("role") == "assistant":
        for block in payload.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "output_text":
                reader.said(block.get("text"), at)
    elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
        raw = payload.get("arguments", payload.get("input", payload.get("action")))
        reader.call(str(payload.get("call_id") or ""), payload.get("name") or "shell", raw, at)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        reader.result(payload.get("call_id"))
    elif kind == "token_count" and isinstance(payload.get("info"), dict):
        info = payload["info"]
        reader.window = _int(info.get("model_context_window")) or reader.window
        usage = info.get("last_token_usage")
        if isinstance(usage, dict):
            total = _int(usage.get("total_tokens")) or (_int(usage.get("input_tokens"))
                                                         + _int(usage.get("output_tokens")))
            reader.turn(f"t{len(reader.turns)}-{obj.get('timestamp')}", {"input_tokens": total})


def _gemini(reader: _Reader, doc: dict[str, Any]) -> None:
    messages = doc.get("messages")
    for index, message in enumerate(messages if isinstance(messages, list) else []):
        if not isinstance(message, dict) or message.get("type") != "gemini":
            continue
        at = _time(message.get("timestamp"))
        if isinstance(message.get("model"), str):
            reader.model = message["model"]
        reader.said(message.get("content"), at)
        for call in message.get("toolCalls") or []:
            if isinstance(call, dict):
                reader.call(str(call.get("id") or ""), call.get("name"), call.get("args"), at)
                if call.get("status") in ("success", "error", "cancelled") or "result" in call:
                    reader.result(str(call.get("id") or ""))
        tokens = message.get("tokens")
        if isinstance(tokens, dict):
            reader.turn(str(message.get("id") or index), {"input_tokens": _int(tokens.get("total"))})
        reader.at = at or reader.at


def parse(data: bytes, window: int | None = None) -> Peek:
    """The peek of a transcript's tail (`read_tail`'s bytes): JSON lines, or a Gemini CLI JSON document."""
    reader = _Reader()
    whole = not data.startswith(b"\0")
    if whole and data.lstrip()[:1] == b"{" and b"\n{" not in data.strip():
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError):
            doc = None
        if isinstance(doc, dict) and "messages" in doc:
            _gemini(reader, doc)
            return reader.peek(len(data), window)
    for obj in _objects(tail_lines(data)):
        at = _time(obj.get("timestamp"))
        reader.at = at or reader.at
        if "payload" in obj:
            _codex(reader, obj)
        else:
            _claude(reader, obj)
    return reader.peek(len(data) - (0 if whole else 1), window)


def read_peek(path: str, window: int | None = None, limit: int = TAIL_BYTES) -> Peek | None:
    """The peek of the transcript at `path` (at most `limit` bytes from its end); None when it does not read."""
    data = read_tail(path, limit)
    return parse(data, window) if data else None


def window_of(model: str) -> int:
    """The model's context window: `LONG_WINDOW` for a ``[1m]`` model, else `DEFAULT_WINDOW`.

    The name is the transcript's (text the agent's side wrote): only a plain model name (letters, digits,
    ``.``, ``_``, ``-``, ``:``, ``/``) before the suffix earns the long window; anything else, a control
    character or an escape sequence included, gets the default (the runway's warning comes sooner, never later).
    """
    name = model.strip().lower()
    if not name.endswith(LONG_SUFFIX):
        return DEFAULT_WINDOW
    stem = name[: -len(LONG_SUFFIX)]
    plain = bool(stem) and all(ch.isascii() and (ch.isalnum() or ch in "._-:/") for ch in stem)
    return LONG_WINDOW if plain else DEFAULT_WINDOW


def runway(turns: Sequence[int], window: int) -> Runway | None:
    """The runway from the context used by each turn, oldest first (None when no turn is known)."""
    if not turns or window <= 0:
        return None
    used = turns[-1]
    recent = list(turns[-(FORECAST_TURNS + 1):])
    growth = (recent[-1] - recent[0]) / (len(recent) - 1) if len(recent) > 1 else 0.0
    if growth <= 0:
        return Runway(used, window, None, None)
    return Runway(used, window, growth, max(0, int((window - used) // growth)))
