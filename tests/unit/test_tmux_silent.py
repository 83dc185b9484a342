"""A tmux that never answers (a stopped server, a hung client) is a refusal (65) within the time limit, for the
launch and for the keys to a launched agent: never an internal error, never a wait without end. `A` in the cockpit
inside tmux says so within that limit too, never a cockpit frozen on its UI thread."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from brain_tui.core.errors import InvalidData
from brain_tui.core.sessions import pane_keys, tmux
from brain_tui.core.sessions.launch import LaunchPlan, LaunchRecord, argv_file
from brain_tui.core.sessions.tmux import AttachCommand
from brain_tui.tui.screens.launch import attach


@pytest.fixture
def silent_tmux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `tmux` first on PATH that waits without end; tmux calls give up after 0.3 s."""
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "tmux"
    fake.write_text("#!/bin/sh\nexec sleep 60\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.setattr(tmux, "TMUX_TIMEOUT_S", 0.3)
    return fake


@pytest.mark.parametrize("verb", ["answer", "interrupt", "stop"])
def test_keys_to_a_silent_tmux_are_refused(silent_tmux: Path, verb: str) -> None:
    record = LaunchRecord(sess_id="sess-x", mode="tmux", pid=4242, create_time=0.0, started_at="", window="@4",
                          target="bsi-b:2", socket="", name="x", pane="%7")
    with pytest.raises(InvalidData, match=r"tmux [a-z-]+ did not answer within 0.3 s"):
        if verb == "answer":
            pane_keys.answer(record, "yes")
        else:
            getattr(pane_keys, verb)(record)


def test_a_launch_into_a_silent_tmux_is_refused_and_leaves_nothing(silent_tmux: Path, tmp_path: Path) -> None:
    (tmp_path / ".brain").mkdir()
    plan = LaunchPlan(sess_id="sess-x", argv=("/bin/cat",), env={"BSI_SESSION": "sess-x", "BRAIN_ROOT": str(tmp_path)},
                      cwd=str(tmp_path), tmux=True, name="x")
    with pytest.raises(InvalidData, match=r"tmux [a-z-]+ did not answer within 0.3 s"):
        tmux.start_tmux(plan, brain_name="b", started_at="2026-11-29T10:00:00+00:00")
    assert not argv_file(tmp_path, "sess-x").exists() and not list((tmp_path / ".brain").rglob("*.argv.json"))


def test_a_switch_to_a_silent_tmux_is_said_not_waited_for(silent_tmux: Path) -> None:
    told: list[tuple[str, dict[str, Any]]] = []
    launches = SimpleNamespace(attach_command=lambda *_a, **_k: AttachCommand(("tmux", "switch-client", "-t", "@4"),
                                                                               takes_terminal=False))
    app = SimpleNamespace(brain=SimpleNamespace(launches=launches), readonly=False,
                          notify=lambda message, **kw: told.append((message, kw)))
    started = time.monotonic()
    attach(app, "sess-20261129-1000-a")  # type: ignore[arg-type]
    assert time.monotonic() - started < 4
    assert len(told) == 1 and "did not answer within 0.3 s" in told[0][0] and told[0][1]["severity"] == "error", told
