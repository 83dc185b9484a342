"""The session's context names the brain's version truly when git cannot give it.

`git log` fails alike in a repository without commits and in one git cannot run in (a bad `.git/config` line) or
whose HEAD names no branch (`ref: refs/tags/v1`, an agent's program can write either): the context said "version no
commit yet" of a brain with history, while every bsi write refused. It now says why the version is unknown, in the
words a refused write uses (`git_state.stall`), and a brain without commits still says "no commit yet".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import ok
from tests.cli.test_git_failures import bsi
from tests.cli.test_pause_while_git_stalled import _BROKEN
from tests.hooks.test_pre_tool_use import AGENT, hook
from tests.reliability.harness import make_remote


def _context(brain: Path) -> str:
    done = hook(brain, "session-start", {"session_id": AGENT, "cwd": str(brain), "hook_event_name": "SessionStart",
                                         "source": "startup", "transcript_path": ""})
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


@pytest.mark.parametrize("how", ["config", "tag", "no-ref"])
def test_a_brain_git_cannot_commit_in_is_not_said_to_have_no_commit(tmp_path: Path, how: str) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "one", "--agent-session", AGENT)).strip()
    name, text, told, _code = _BROKEN[how]
    target = a / ".git" / name
    target.write_bytes(target.read_bytes() + text[1:].encode() if text.startswith("+") else text.encode())
    assert bsi(a, "gate", "pause", sess, "stop writing").code == 0  # held back: not committed

    context = _context(a)
    assert "no commit yet" not in context, context
    assert f"(version unknown: {told}" in context, context
    assert f"BSI claim {sess}: status paused" in context, context


def test_a_brain_without_commits_still_says_so(tmp_path: Path) -> None:
    from tests.bsi import run_bsi
    from tests.reliability.harness import git

    (tmp_path / "b").mkdir()
    git(tmp_path / "b", "init", "-q")
    ok(run_bsi("--no-commit", "init", str(tmp_path / "b")))
    assert "(version no commit yet)" in _context(tmp_path / "b")
