"""The last write a thread applied through a Brain. A long-lived Brain (an MCP server's) answers tool calls side by
side in worker threads: what one call wrote (its claim, its warnings) must not stand for another's."""

from __future__ import annotations

import threading

# `typing` is not loaded at start-up (tests/cli/test_startup.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from brain_tui.core.write_path import Applied


class LastWrite:
    """A descriptor: each thread reads the write it last applied through the object (None before its first)."""

    def __get__(self, obj: object, owner: type | None = None) -> Applied | None:
        value: Applied | None = getattr(obj.__dict__.get("_last_write"), "value", None)
        return value

    def __set__(self, obj: object, value: Applied | None) -> None:
        obj.__dict__.setdefault("_last_write", threading.local()).value = value
