"""Each thread sees its own last write: an MCP server runs a client's tool calls side by side in worker threads,
and a call's result (the claim as its write left it, the warnings of that write) must never be another call's."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.paths.scope import parse_scope

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def test_a_write_in_another_thread_does_not_replace_this_threads_last_write(tmp_path: Path) -> None:
    for folder in ("claims", "signals", "locks", "breath"):
        (tmp_path / folder).mkdir()
    brain = Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")
    first_done, second_done = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def first() -> None:
        sess_id = brain.open_claim(OpenRequest(scope=parse_scope("a/"), ttl=timedelta(hours=1), instance="t@test"))
        mine = brain.last_applied
        first_done.set()
        second_done.wait(10)
        seen["first"] = (sess_id, mine, brain.last_applied)

    def second() -> None:
        first_done.wait(10)
        sess_id = brain.open_claim(OpenRequest(scope=parse_scope("b/"), ttl=timedelta(hours=1), instance="t@test"))
        seen["second"] = (sess_id, brain.last_applied)
        second_done.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    first_id, mine, after = seen["first"]  # type: ignore[misc]
    second_id, theirs = seen["second"]  # type: ignore[misc]
    assert mine is not None and theirs is not None and mine is not theirs
    assert after is mine, "the other thread's write took this thread's place"
    assert brain.last_applied is None  # this (main) thread wrote nothing
    assert first_id != second_id
