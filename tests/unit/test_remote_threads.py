"""Two synced writes of one Brain in two threads (an MCP server's tool calls on a `sync: auto` brain).

`brain.remote` kept what a sync settled away (the local writes a rebase dropped, the claims lost while offline) on
itself, emptied when a write began: a write begun while another was between its integration and its answer took that
answer's warnings away, and the first call's result no longer said what its sync dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core import facade_remote
from brain_tui.core.brain import Brain
from brain_tui.core.rules import reconcile
from brain_tui.core.sync import remote
from tests.bsi import NOW
from tests.threads import first_then_second


def test_a_write_begun_meanwhile_leaves_the_first_its_warnings(brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = Brain(brain, now=NOW, sync="sync")
    first_integrated, second_began = threading.Event(), threading.Event()

    def write_through(root: Path, lock: Any, reconciler: Any, attempt: Callable[[], Any],
                      now: Callable[[], str]) -> None:
        if threading.current_thread().name == "second":
            second_began.set()
        with lock():
            if threading.current_thread().name == "first":  # its sync dropped a local write
                reconciler._dropped.append("signal sig-1 (INFO)")
            attempt()
        if threading.current_thread().name == "first":
            first_integrated.set()
            second_began.wait(1.0)

    monkeypatch.setattr(remote, "write_through", write_through)
    monkeypatch.setattr(facade_remote.remote_state, "record", lambda *_a, **_k: None)
    warnings: dict[str, list[str]] = {}

    def write() -> None:
        b.mutate(lambda cs: None)
        applied = b.last_applied
        warnings[threading.current_thread().name] = list(applied.warnings) if applied else []

    first_then_second(write, first_integrated)
    assert warnings == {"first": [reconcile.dropped_warning("signal sig-1 (INFO)")], "second": []}
