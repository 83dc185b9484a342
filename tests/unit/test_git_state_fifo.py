"""What git is in the middle of (`git_state.stall`) is read from the git directory's files, which a program an
agent runs may replace: a FIFO in HEAD's place (read between two git commands) must not hold `bsi env`, the cockpit's
environment pane or a human's pause for ever."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from brain_tui.core.sync import git_state


def test_a_fifo_in_heads_place_does_not_block_the_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    gdir = tmp_path / ".git"
    (gdir / "HEAD").unlink()
    os.mkfifo(gdir / "HEAD")
    # git itself, asked when HEAD's file does not say, answers at once here (its own reading is bounded by a timeout)
    answer = subprocess.CompletedProcess([], 0, "refs/heads/main\n", "")
    monkeypatch.setattr(git_state, "run_git", lambda *a, **k: answer)
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(git_state._no_branch(tmp_path, gdir)), daemon=True)
    reader.start()
    reader.join(timeout=5)
    blocked = reader.is_alive()
    if blocked:  # let the stuck open go: a writer opens the FIFO and closes it at once
        os.close(os.open(gdir / "HEAD", os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=5)
    assert not blocked, "reading HEAD blocked on a FIFO"
    assert found == [None]
