"""`bsi hook session-start` gives the brain version, `git log -1 --oneline` (SPEC 16, ADR-017)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.bsi import git
from tests.hooks.test_pre_tool_use import hook


def _context(brain: Path) -> str:
    event = {"session_id": "s-version", "transcript_path": "/tmp/s.jsonl", "cwd": str(brain),
             "hook_event_name": "SessionStart", "source": "startup"}
    done = hook(brain, "session-start", event)
    assert done.returncode == 0, done
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str)
    return text


def test_session_start_names_the_head_commit(brain: Path) -> None:
    head = git(brain, "log", "-1", "--oneline").strip()
    assert head
    text = _context(brain)
    assert f"(version {head})" in text, text
    assert "not a git repository" not in text


def test_session_start_outside_git_says_so(brain: Path) -> None:
    shutil.rmtree(brain / ".git")
    assert "(version not a git repository)" in _context(brain)
