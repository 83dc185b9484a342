"""Live sessions (SPEC 20.4): state and last tool from the hooks, the last commit in the brain by the session."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.claims import OpenRequest
from brain_tui.core.sessions import agents
from tests.bsi import clean_env, git

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def commit(root: Path, rel: str, message: str, when: datetime) -> str:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(message + "\n", encoding="utf-8")
    git(root, "add", rel)
    stamp = when.isoformat()
    import subprocess

    subprocess.run(["git", "commit", "-q", "-m", message], cwd=root, check=True, capture_output=True,
                   env=clean_env(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp))
    return git(root, "rev-parse", "--short", "HEAD").strip()


def open_claim(brain: Brain, scope: str, slug: str) -> str:
    return brain.open_claim(OpenRequest(scope=parse_scope(scope, brain.root), ttl=parse_duration("2h"),
                                        instance="prod@desktop", slug=slug))


def test_state_tool_and_last_commit_by_the_session(brain: Path) -> None:
    b = Brain(brain, clock=lambda: NOW)
    mine = open_claim(b, "wiki/", "mine")
    other = open_claim(b, "todo/", "other")
    agents.record_binding(brain, mine, "agent-1", NOW)
    agents.record_activity(brain, mine, "agent-1", NOW + timedelta(minutes=5), tool="Edit",
                           touched=["wiki/a.md"])
    live = Brain(brain, clock=lambda: NOW + timedelta(minutes=6)).live_sessions()
    assert set(live) == {mine}  # `other` has no bound agent and no launch
    entry = live[mine]
    assert entry.state == "working" and entry.liveness is not None and entry.liveness.last_tool == "Edit"
    assert entry.last_commit is not None and entry.last_commit.message == f"bsi: open claim {mine}"
    # its agent commits a file it wrote: that is its last commit; a file it did not write is not
    work = commit(brain, "wiki/a.md", "wiki: glossary", NOW + timedelta(minutes=7))
    commit(brain, "todo/x.md", "todo: someone else", NOW + timedelta(minutes=8))
    # a human's decision naming it is not its commit
    Brain(brain, clock=lambda: NOW + timedelta(minutes=9)).gates.pause(mine, "hold", by="Ada <ada@x>")
    live = Brain(brain, clock=lambda: NOW + timedelta(minutes=30)).live_sessions()
    assert live[mine].last_commit is not None and live[mine].last_commit.commit == work
    assert live[mine].state == "idle"  # quiet for more than 10 minutes
    assert other not in live


def test_trailer_names_the_session_and_ended_claims_are_left_out(brain: Path) -> None:
    b = Brain(brain, clock=lambda: NOW)
    mine = open_claim(b, "wiki/", "mine")
    agents.record_state(brain, mine, "agent-1", "needs_input", NOW + timedelta(minutes=1))
    sha = commit(brain, "notes/n.md", f"notes\n\nBSI-Session: {mine}", NOW + timedelta(minutes=2))
    live = Brain(brain, clock=lambda: NOW + timedelta(minutes=3)).live_sessions()
    assert live[mine].state == "needs_input" and live[mine].last_commit is not None
    assert live[mine].last_commit.commit == sha
    Brain(brain, clock=lambda: NOW + timedelta(minutes=4)).gates.abort(mine, "stop", by="Ada <ada@x>")
    assert Brain(brain, clock=lambda: NOW + timedelta(minutes=5)).live_sessions() == {}
