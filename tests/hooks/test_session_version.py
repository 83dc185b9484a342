"""`bsi hook session-start` gives the brain version, `git log -1 --oneline` (SPEC 16, ADR-017)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.bsi import NOW, clean_env, git, ok, run_bsi
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


def _stale_claim(brain: Path) -> str:
    sess = ok(run_bsi("claim", "open", "--scope", "docs/", "--story", "x", "--ttl", "1h", brain=brain,
                      now="2026-11-29T06:00:00Z"))
    ok(run_bsi("watchdog", brain=brain))
    return sess.split()[-1] if " " in sess else sess


def test_a_session_starting_while_stale_claims_exist_is_told_to_get_a_human(brain: Path) -> None:
    sess = _stale_claim(brain)
    text = _context(brain)
    assert "1 stale claim needs a human's action before going on" in text, text
    assert sess in text and "scope docs/" in text and "bsi claim release" in text


def test_no_stale_claim_no_notice(brain: Path) -> None:
    assert "stale claim" not in _context(brain)


def test_the_mcp_brain_state_names_the_stale_claims(brain: Path) -> None:
    from brain_tui.mcp.tools import Session, brain_state

    assert brain_state(Session(brain, now=NOW, environ=clean_env(), client="c"))["human_action_needed"] is None
    sess = _stale_claim(brain)
    notice = brain_state(Session(brain, now=NOW, environ=clean_env(), client="c"))["human_action_needed"]
    assert sess in notice and "human's action" in notice


def test_session_start_counts_pending_signals_in_words(brain: Path) -> None:
    assert "; 0 signals pending." in _context(brain)
    ok(run_bsi("signal", "send", "--to", "sess-20261129-0900-pilo", "--type", "INFO", "one", brain=brain))
    assert "; 1 signal pending." in _context(brain)
