"""Two threads of one process write the same state file under `.brain/` (the closed set a read stores while a write
advances it: `bsi mcp` runs tool calls side by side). The temp file was named by the process only: the second writer
truncated the first one's, renamed it away, and the first writer's rename failed."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from brain_tui.core.records import closed_rows


def test_two_threads_writing_one_state_file_each_write_their_own_whole_text(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "closed-set.json"
    real_replace = os.replace
    second_done = threading.Event()

    def replace(src: str, dst: str) -> None:
        if threading.current_thread().name == "first":  # written, not renamed yet: the second writes meanwhile
            second_done.wait(1.0)
        real_replace(src, dst)

    monkeypatch.setattr(closed_rows.os, "replace", replace)
    errors: list[BaseException] = []

    def write(text: str) -> None:
        try:
            closed_rows.write_atomically(target, text)
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            errors.append(exc)
        if threading.current_thread().name == "second":
            second_done.set()

    first = threading.Thread(target=write, args=("A" * 100,), name="first")
    first.start()
    while not [p for p in tmp_path.iterdir() if p.name.startswith(closed_rows.TEMP_MARK)]:
        threading.Event().wait(0.01)
    second = threading.Thread(target=write, args=("B" * 10,), name="second")
    second.start()
    first.join(10)
    second.join(10)
    assert errors == []
    assert target.read_text(encoding="utf-8") == "A" * 100  # the last rename's whole text
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
