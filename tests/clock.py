"""Clocks for tests: the wall clock moved ahead for the modules that time the hook index's racy window,
and waiting on a condition with a deadline instead of sleeping a fixed time."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")


class AheadTime:
    """The `time` module with `time_ns` (and `time`) `offset_ns` ahead; everything else is the real one."""

    def __init__(self, offset_ns: int) -> None:
        self._offset_ns = offset_ns

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)

    def time_ns(self) -> int:
        return time.time_ns() + self._offset_ns

    def time(self) -> float:
        return time.time() + self._offset_ns / 1e9


#: Modules whose `time.time_ns()` says when the hook index was read and built (its racy window).
HOOK_INDEX_CLOCKS = ("brain_tui.core.rules.write_decision", "brain_tui.core.sessions.hook_index")


@contextmanager
def clock_ahead(seconds: float, modules: tuple[str, ...] = HOOK_INDEX_CLOCKS) -> Iterator[None]:
    """Within the block, `modules` read a wall clock `seconds` ahead (in this process only: `bsi` run in
    process by tests/bsi.py sees it, a `bsi` process does not)."""
    import importlib

    loaded = [importlib.import_module(name) for name in modules]
    saved = [module.time for module in loaded]  # type: ignore[attr-defined]
    for module in loaded:
        module.time = AheadTime(int(seconds * 1e9))  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module, original in zip(loaded, saved, strict=True):
            module.time = original  # type: ignore[attr-defined]


def live_now() -> str:
    """The machine's clock now, to the second, as `--now` takes it: the clock of a test whose agent process writes
    or decides on a claim. An agent's process judges a claim at the machine's clock when its own runs behind it
    (SPEC 3, 6.3): a claim opened at the suite's fixed past time (`tests.bsi.NOW`) has run out by then."""
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds")


def in_process() -> bool:
    """True when `run_bsi` calls `bsi` in this process (not under `BSI_TEST_PROCESS=1`)."""
    return os.environ.get("BSI_TEST_PROCESS") != "1"


def wait_for(condition: Callable[[], T], *, timeout: float = 10.0, every: float = 0.02, what: str = "") -> T:
    """Poll `condition` until it returns something truthy, and return that; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")
        time.sleep(every)
