"""One `BrainStore` read by two threads at once (an MCP server's tool calls share one `Brain`).

A snapshot kept the links, FIFOs and sockets its scan met on the store itself, emptied when a snapshot began: a second
read starting in the middle of a first one wiped the first one's list, so the first snapshot lost the corrupt row of
a link in claims/, the row that holds the whole brain (SPEC 22), and a claim could be granted over it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.records.model import BrainSnapshot
from tests.bsi import NOW
from tests.threads import first_then_second


def test_a_read_begun_meanwhile_keeps_the_first_reads_corrupt_rows(brain: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    os.symlink("/etc/hostname", brain / "claims" / "sess-20260101-0900-link.yml")
    b = Brain(brain, now=NOW)
    store = b.store
    real_breath, real_scan = store._read_breath, store._scan
    first_collects, second_scans, first_done = threading.Event(), threading.Event(), threading.Event()

    def breath(files: Any) -> Any:  # the first read, after its scans, before it collects what they met
        if threading.current_thread().name == "first":
            first_collects.set()
            second_scans.wait(1.0)  # a store reading for one thread at a time makes the second wait: time out
        return real_breath(files)

    def scan(folder: str, suffixes: tuple[str, ...]) -> Any:  # the second read, begun, before its own scans
        if threading.current_thread().name == "second" and not second_scans.is_set():
            second_scans.set()
            first_done.wait(1.0)
        return real_scan(folder, suffixes)

    monkeypatch.setattr(store, "_read_breath", breath)
    monkeypatch.setattr(store, "_scan", scan)
    got: dict[str, BrainSnapshot] = {}

    def read() -> None:
        got[threading.current_thread().name] = b.snapshot()
        if threading.current_thread().name == "first":
            first_done.set()

    first_then_second(read, first_collects)
    for name in ("first", "second"):
        assert [c.path for c in got[name].corrupt] == ["claims/sess-20260101-0900-link.yml"], name
