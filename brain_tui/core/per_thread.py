"""An attribute each thread of a process sees on its own: a long-lived Brain (an MCP server's) answers tool calls
side by side in worker threads, and what one call wrote must not stand for another's."""

from __future__ import annotations

import threading
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class PerThread(Generic[T]):
    """A descriptor: each thread reads the value it last set on the object, else `default`."""

    def __init__(self, default: T) -> None:
        self._default = default
        self._slot = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_per_thread_{name}"

    def __get__(self, obj: Any, owner: type | None = None) -> T:
        local = obj.__dict__.get(self._slot)
        return getattr(local, "value", self._default) if local is not None else self._default

    def __set__(self, obj: Any, value: T) -> None:
        obj.__dict__.setdefault(self._slot, threading.local()).value = value
