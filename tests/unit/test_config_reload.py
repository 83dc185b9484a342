"""A long-lived Brain (the cockpit's) decides a write on brain-compose.yml as the file is now, as `bsi` would."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import InvalidData
from brain_tui.demo import build_demo

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
DEPLOY = "sess-20261129-0950-deploy-notes"


def test_a_compose_file_broken_after_start_stops_the_writes_of_a_running_brain(tmp_path: Path) -> None:
    root = build_demo(tmp_path / "brain", NOW)
    brain = Brain(root, clock=lambda: NOW, instance="prod@desktop")  # opened before the file breaks
    compose = root / "brain-compose.yml"
    good = compose.read_text(encoding="utf-8")
    compose.write_text(good + "sync: [unclosed\n", encoding="utf-8")
    # (a pause is the one write that goes on, committed here only: tests/cli/test_pause_without_remote.py)
    with pytest.raises(InvalidData, match="nothing was written"):
        Brain(root, clock=lambda: NOW, instance="prod@laptop").gates.abort(DEPLOY, "stop")  # what `bsi` answers
    with pytest.raises(InvalidData, match="nothing was written"):
        brain.gates.abort(DEPLOY, "stop")
    assert "max_consecutive_fails: 3" in good
    compose.write_text(good.replace("max_consecutive_fails: 3", "max_consecutive_fails: 7"), encoding="utf-8")
    brain.gates.pause(DEPLOY)  # mended: the write goes through, on the new settings
    assert brain.config.max_consecutive_fails == 7


def test_a_launch_command_added_after_start_is_the_one_a_running_brain_launches_with(tmp_path: Path) -> None:
    """The pilot adds `launch:` while the cockpit runs: its next `L` finds the command without a restart."""
    from brain_tui.core.sessions.launch import NoLaunchCommand

    root = build_demo(tmp_path / "brain", NOW)
    brain = Brain(root, clock=lambda: NOW, instance="prod@desktop")
    compose = root / "brain-compose.yml"
    text = compose.read_text(encoding="utf-8")
    assert "launch:" not in text
    with pytest.raises(NoLaunchCommand):
        brain.launches.check_settings()
    compose.write_text(text + "launch:\n  command: [agent-x, \"{prompt}\"]\n  tmux: true\n", encoding="utf-8")
    brain.launches.check_settings()
    assert brain.launches.plan(DEPLOY).argv[0] == "agent-x"


def test_a_rewrite_in_the_same_timestamp_tick_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two same-size writes in one tick of the file system's clock look the same to stat: a key younger than
    the racy window (git's rule, `records.cache.RACY_NS`) vouches for nothing, so the file is read again."""
    import time

    from brain_tui.core.config import ConfigFile

    root = tmp_path / "brain"
    root.mkdir()
    compose = root / "brain-compose.yml"
    compose.write_text("kerneluser: true\n", encoding="utf-8")
    fresh = time.time_ns()
    monkeypatch.setattr(ConfigFile, "_stat", lambda self: (fresh, fresh, 17, 1))  # one tick: one key
    held = ConfigFile(root)
    assert held.current().kerneluser is True
    compose.write_text("kerneluser: nope\n", encoding="utf-8")
    assert held.current().kerneluser is not True
