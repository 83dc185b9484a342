"""The exact `--json` shapes (key order included) of records whose `as_dict` comes from their fields."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from brain_tui.core.rules.gate_review import ChangedFile
from brain_tui.core.rules.repair import Repair
from brain_tui.core.sessions.agents import Liveness
from brain_tui.core.sessions.launch import LaunchPlan, LaunchRecord
from brain_tui.core.sessions.live import LiveSession
from brain_tui.core.sync.audit import LogEntry

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def test_a_repair_gives_none_for_no_commit() -> None:
    assert json.dumps(Repair("claims/x.yml", False, "sess-x", "open").as_dict()) == (
        '{"path": "claims/x.yml", "repaired": false, "sess_id": "sess-x", "status": "open", "commit": null}')
    assert json.dumps(Repair("claims/x.yml", True, "sess-x", "done", "abc").as_dict()) == (
        '{"path": "claims/x.yml", "repaired": true, "sess_id": "sess-x", "status": "done", "commit": "abc"}')


def test_a_changed_file_gives_its_fields() -> None:
    assert json.dumps(ChangedFile("a.py", "?", committed=False).as_dict()) == (
        '{"path": "a.py", "how": "?", "added": "", "deleted": "", "committed": false}')


def test_a_launch_plan_names_its_window_and_gives_none_for_no_settings() -> None:
    bare = LaunchPlan("sess-x", ("claude", "-p"), {"BSI_SESSION": "sess-x"}, "/b", True, "wiki")
    assert json.dumps(bare.as_dict()) == (
        '{"sess_id": "sess-x", "argv": ["claude", "-p"], "env": {"BSI_SESSION": "sess-x"}, "cwd": "/b", '
        '"tmux": true, "window": "wiki", "settings_path": null, "settings": null}')
    full = LaunchPlan("sess-x", (), {}, "/b", False, "w", "/b/.claude/settings.json",
                      {"hooks": {"Stop": [{"matcher": "", "hooks": ["x"]}]}, "n": (1, 2)})
    assert json.dumps(full.as_dict()) == (
        '{"sess_id": "sess-x", "argv": [], "env": {}, "cwd": "/b", "tmux": false, "window": "w", '
        '"settings_path": "/b/.claude/settings.json", "settings": {"hooks": {"Stop": [{"matcher": "", '
        '"hooks": ["x"]}]}, "n": [1, 2]}}')


def test_a_live_session_puts_its_state_after_its_id() -> None:
    alone = LiveSession("sess-x", None, None, None)
    assert json.dumps(alone.as_dict()) == (
        '{"sess_id": "sess-x", "state": "unknown", "liveness": null, "last_commit": null, "launch": null, '
        '"peek": null}')
    liveness = Liveness("sess-x", "agent", "working", T0, "Edit", ("a.md",))
    commit = LogEntry("abc", T0.isoformat(), "a <a@x>", "work", ())
    launch = LaunchRecord("sess-x", "tmux", 12, 1.5, T0.isoformat(), "@3")
    full = LiveSession("sess-x", liveness, commit, launch).as_dict()
    assert list(full) == ["sess_id", "state", "liveness", "last_commit", "launch", "peek"]
    assert full["state"] == "working" and full["liveness"] == liveness.as_dict()
    assert full["last_commit"] == commit.as_dict() and full["launch"] == launch.as_dict()
