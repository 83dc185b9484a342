"""Two threads of one process, the second started once the first reached a point (as an MCP server's worker
threads run a client's tool calls side by side)."""

from __future__ import annotations

import threading
from collections.abc import Callable


def first_then_second(target: Callable[[], None], first_reached: threading.Event, timeout: float = 10.0) -> None:
    """Run `target` in a thread named "first"; once it sets `first_reached`, in a thread named "second"; wait for
    both (a thread still running after `timeout` fails the caller's asserts on what it left)."""
    first = threading.Thread(target=target, name="first")
    first.start()
    assert first_reached.wait(timeout), "the first thread never reached its point"
    second = threading.Thread(target=target, name="second")
    second.start()
    first.join(timeout)
    second.join(timeout)
