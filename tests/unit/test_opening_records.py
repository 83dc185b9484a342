"""A binding written before its claim's commit (`core.sessions.opening`) binds only the claim its open committed."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from brain_tui.core.sessions import agent_files, agents, opening
from brain_tui.core.sessions.handover import session_claims
from tests.bsi import NOW, ok, run_bsi

A = "aaaaaaaa-1111-4000-8000-000000000001"
B = "bbbbbbbb-2222-4000-8000-000000000002"


def _claim(brain: Path, sess_id: str) -> dict[str, str]:
    out = json.loads(ok(run_bsi("claim", "show", sess_id, "--json", brain=brain)))
    return {"opened_at": out["opened_at"], "instance": out["instance"]}


#: The brain's clock in these tests (`run_bsi`'s `--now`).
AT = datetime.fromisoformat(NOW.replace("Z", "+00:00"))


def test_a_record_of_an_id_another_claim_holds_binds_nothing(brain: Path) -> None:
    """The open that wrote it never committed, and another session's claim took the ID since: it stays theirs."""
    theirs = ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", B, brain=brain))
    held = _claim(brain, theirs)
    now = AT
    # the same ID and the same opened_at and instance, but another agent session: not the open that wrote it
    opening.intend(brain, theirs, now, agent_session=A, process="", client="", **held)
    assert session_claims(brain, A, lambda: now) == [] and agent_files.has_opening(brain)
    # an MCP open's record (no agent session) for a claim written at another instant: not that open's claim either
    opening.intend(brain, theirs, now, agent_session=None, process="", client="1:2",
                   opened_at="2026-01-01T00:00:00+00:00", instance=held["instance"])
    assert session_claims(brain, A, lambda: now) == [] and not agent_files.has_pending(brain)
    # a record too old is dropped
    assert session_claims(brain, A, lambda: now + timedelta(hours=9)) == [] and not agent_files.has_opening(brain)
    assert agents.bound_claims(brain, B) == [theirs]


def test_a_record_of_a_committed_claim_binds_it_once(brain: Path) -> None:
    """The open committed and was killed before its binding: the session's next read binds it, and the record goes."""
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", A, brain=brain))
    (brain / ".brain" / "agents" / "sessions" / f"{A}.json").unlink()  # as if killed before the binding
    now = AT
    opening.intend(brain, sess, now, agent_session=A, process="", client="", **_claim(brain, sess))
    assert session_claims(brain, A, lambda: now) == [sess] and not agent_files.has_opening(brain)


def test_a_claim_only_a_commit_made_in_git_alone_holds_binds_nothing(brain: Path) -> None:
    """An open killed before its commit leaves its record; a claim under that ID committed with git's plumbing (an
    agent's shell can write `.git`, never `claims/`) is not the open's commit: the work tree does not hold it."""
    import subprocess

    ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", B, brain=brain))
    sess, opened_at = "sess-20261129-1000-forg", "2026-11-29T10:00:00+00:00"
    opening.intend(brain, sess, AT, agent_session=A, process="", client="", opened_at=opened_at, instance="brain@vm")
    text = (f"sess_id: {sess}\ntype: solo\ninstance: brain@vm\nscope: src/app.py\nstatus: open\n"
            f"opened_at: {opened_at}\nttl: 2h\nagent_session: {A}\n")

    def git(*argv: str, stdin: str | None = None) -> str:
        return subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *argv], cwd=brain, input=stdin, text=True,
                              capture_output=True, check=True).stdout.strip()

    blob = git("hash-object", "-w", "--stdin", stdin=text)
    git("update-index", "--add", "--cacheinfo", f"100644,{blob},claims/{sess}.yml")
    git("commit", "-q", "-m", "forged")
    assert not (brain / "claims" / f"{sess}.yml").exists()
    assert session_claims(brain, A, lambda: AT) == [] and agents.bound_claims(brain, A) == []
