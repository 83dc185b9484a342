"""An MCP write kept waiting on the brain's writer lock answers, refused and retryable, naming who holds it.

Any process that can open `.brain/lock` can hold it (an agent's program too): a command-line write waits and says
who holds it on stderr, the cockpit in a toast. An MCP server has no one to tell while it waits, and its client
gives up on a call past its own time limit (Codex: 60 s), so the write stops waiting after the server's patience
and answers `contended` (75, retryable), having written nothing; the same call goes through once the lock is free.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from brain_tui.mcp import tools
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, clean_env


def test_an_mcp_write_waiting_on_a_held_writer_lock_is_refused_retryable_then_goes_through(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tools, "LOCK_PATIENCE_S", 0.3)
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    held = os.open(brain / ".brain" / "lock", os.O_RDONLY | os.O_CREAT)  # as a process of another would hold it
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        result, is_error = tools.call(lambda: tools.claim_open(s, ["wiki/"], slug="waits"), s)
        assert is_error, result
        assert (result["exit"], result["kind"], result["retryable"]) == (75, "contended", True), result
        assert "writer lock" in result["error"] and "nothing was written" in result["error"], result
        assert not list((brain / "claims").glob("*waits*"))
        # a read answers while the lock is held
        listed, listed_error = tools.call(lambda: tools.claim_list(s), s)
        assert not listed_error, listed
    finally:
        os.close(held)
    result, is_error = tools.call(lambda: tools.claim_open(s, ["wiki/"], slug="waits"), s)
    assert not is_error, result
    assert list((brain / "claims").glob("*waits*"))


def test_an_mcp_write_waiting_behind_another_call_of_its_server_is_refused_retryable_too(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls of one server wait for each other at a thread gate before the file lock: that wait has the same end."""
    from brain_tui.core import write_path

    monkeypatch.setattr(tools, "LOCK_PATIENCE_S", 0.3)
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    gate = write_path._thread_lock(s.brain)
    with gate:  # as another call of this server would hold it, writing
        result, is_error = tools.call(lambda: tools.claim_open(s, ["wiki/"], slug="waits"), s)
    assert is_error and (result["exit"], result["kind"], result["retryable"]) == (75, "contended", True), result
    assert "nothing was written" in result["error"], result
    assert not list((brain / "claims").glob("*waits*"))
    result, is_error = tools.call(lambda: tools.claim_open(s, ["wiki/"], slug="waits"), s)
    assert not is_error, result
