"""`A` in the cockpit inside tmux switches its client to the agent's window: a tmux that never answers is said,
within the time limit (`tmux.TMUX_TIMEOUT_S`), never a cockpit frozen on its UI thread."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from brain_tui.core.sessions import tmux
from brain_tui.core.sessions.tmux import AttachCommand
from brain_tui.tui.screens.launch import attach


def test_a_switch_to_a_silent_tmux_is_said_not_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "tmux"
    fake.write_text("#!/bin/sh\nexec sleep 5\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(tmux, "TMUX_TIMEOUT_S", 0.3)
    told: list[tuple[str, dict[str, Any]]] = []
    launches = SimpleNamespace(attach_command=lambda *_a, **_k: AttachCommand(("tmux", "switch-client", "-t", "@4"),
                                                                               takes_terminal=False))
    app = SimpleNamespace(brain=SimpleNamespace(launches=launches), readonly=False,
                          notify=lambda message, **kw: told.append((message, kw)))
    started = time.monotonic()
    attach(app, "sess-20261129-1000-a")  # type: ignore[arg-type]
    assert time.monotonic() - started < 4
    assert len(told) == 1 and "did not answer within 0.3 s" in told[0][0] and told[0][1]["severity"] == "error", told
