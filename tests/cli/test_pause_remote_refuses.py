"""A human's pause in a brain that syncs, when the remote takes no push (`write_path.mutate`): a remote that keeps
moving (Contended, 75, for any other write), a local commit that conflicts with the remote's (RebaseConflict, 21), a
remote that declines the push (PushDeclined, 24), a brain-compose.yml that does not parse (65). Each time the pause is
committed here, in force (the claim reads paused, the hook refuses the agent), the command exits 0 with one warning
saying what happened to the pause, and the commit is recorded as pending (`.brain/sync.json`'s `pending_since`).
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.bsi import Run
from tests.cli.test_git_failures import bsi, commit_file
from tests.cli.test_pause_while_git_stalled import _claim_status
from tests.hooks.test_pre_tool_use import AGENT, assert_denied, event, hook
from tests.reliability.harness import git, make_remote

#: A pre-receive hook that moves the branch under every push: the push's own ref update then fails (a lost race),
#: every time. It works outside the push's quarantine (where git refuses ref updates).
_MOVING = """#!/bin/sh
unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
tip=$(git rev-parse refs/heads/main)
new=$(GIT_AUTHOR_NAME=mover GIT_AUTHOR_EMAIL=m@example.org GIT_COMMITTER_NAME=mover \
GIT_COMMITTER_EMAIL=m@example.org git commit-tree "$tip^{tree}" -p "$tip" -m moved)
git update-ref refs/heads/main "$new" "$tip"
exit 0
"""


def _auto(clone: Path) -> None:
    (clone / "brain-compose.yml").write_text("sync: auto\n", encoding="utf-8")
    git(clone, "add", "brain-compose.yml")
    git(clone, "commit", "-q", "-m", "sync auto")
    git(clone, "push", "-q", "origin", "main")


def _opened(clone: Path, slug: str) -> str:
    sess = bsi(clone, "claim", "open", "--scope", "wiki/", "--slug", slug, "--agent-session", AGENT).out.strip()
    assert sess.startswith("sess-"), sess
    return sess


def _hook(remote: Path, text: str) -> Path:
    path = remote / "hooks" / "pre-receive"
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _warning(res: Run) -> str:
    """The one line of stderr that tells of the pause (exit 0, no traceback)."""
    assert res.code == 0, res.err
    assert "Traceback" not in res.err
    lines = [line for line in res.err.splitlines() if "pause" in line]
    assert len(lines) == 1, res.err
    return lines[0]


def _in_force_and_pending(clone: Path, sess: str, before: str) -> None:
    """The pause is one local commit since `before` (on top of what the remote brought in, if anything), the claim
    reads paused, the hook refuses its agent, and the commit waits to be pushed."""
    subjects = git(clone, "log", "--format=%s", f"{before}..HEAD").split("\n")[:-1]
    assert subjects[0] == f"bsi: gate PAUSED {sess}" and subjects.count(subjects[0]) == 1, subjects
    assert git(clone, "branch", "-r", "--contains", "HEAD").strip() == ""  # not pushed
    assert _claim_status((clone / f"claims/{sess}.yml").read_text()) == "paused"
    assert json.loads(bsi(clone, "--json", "--offline", "claim", "show", sess).out)["status"] == "paused"
    assert_denied(hook(clone, "pre-tool-use", event(clone, "Edit", str(clone / "wiki" / "a.md"))), "paused")
    assert json.loads((clone / ".brain" / "sync.json").read_text()).get("pending_since")


def test_a_pause_whose_remote_keeps_moving_is_committed_here_pending_and_exits_0(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from brain_tui.core.sync import remote as remote_sync

    monkeypatch.setattr(remote_sync, "_backoff", lambda attempt: None)  # 8 rejected pushes, without their waits
    remote, (a,) = make_remote(tmp_path, 1)
    _auto(a)
    sess = _opened(a, "busy")
    moving = _hook(remote, _MOVING)
    assert bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello").code == 75  # any other write
    before = git(a, "rev-parse", "HEAD").strip()
    line = _warning(bsi(a, "gate", "pause", sess, "stop"))
    assert "committed here" in line and "not pushed" in line and "`bsi sync`" in line
    assert "nothing was changed" not in line and "Try again" not in line
    _in_force_and_pending(a, sess, before)

    moving.unlink()
    assert bsi(a, "sync").code == 0
    assert "pending_since" not in json.loads((a / ".brain" / "sync.json").read_text())
    assert git(a, "log", "-1", "--format=%s", "origin/main").strip() == f"bsi: gate PAUSED {sess}"


def test_a_pause_whose_rebase_conflicts_is_committed_here_pending_and_exits_0(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    _auto(a)
    sess = _opened(a, "clash")
    git(b, "pull", "-q", "--no-rebase", "origin", "main")
    commit_file(b, "notes/plan.md", "from B\n", "plan B")
    git(b, "push", "-q", "origin", "main")
    commit_file(a, "notes/plan.md", "from A\n", "plan A")  # a local commit the remote's conflicts with
    assert bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello").code == 21  # any other write
    before = git(a, "rev-parse", "HEAD").strip()
    line = _warning(bsi(a, "gate", "pause", sess, "stop"))
    assert "committed here" in line and "not pushed" in line and "notes/plan.md" in line and "`bsi sync`" in line
    _in_force_and_pending(a, sess, before)
    assert (a / "notes" / "plan.md").read_text() == "from A\n"  # the user's commit is left as it was
    assert not (Path(git(a, "rev-parse", "--absolute-git-dir").strip()) / "rebase-merge").exists()


def test_a_pause_whose_push_is_declined_says_it_is_committed_here_not_taken_back(tmp_path: Path) -> None:
    remote, (a,) = make_remote(tmp_path, 1)
    _auto(a)
    sess = _opened(a, "frozen")
    _hook(remote, "#!/bin/sh\necho 'policy: the brain is frozen for the release' >&2\nexit 1\n")
    assert bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello").code == 24  # any other write
    before = git(a, "rev-parse", "HEAD").strip()
    line = _warning(bsi(a, "gate", "pause", sess, "stop"))
    assert "committed here" in line and "not pushed" in line
    assert "declined" in line and "policy: the brain is frozen for the release" in line  # why, in the remote's words
    assert "taken back" not in line and "nothing was pushed" not in line
    assert "`bsi sync`" in line  # what to do
    _in_force_and_pending(a, sess, before)


def test_a_pause_in_a_brain_set_to_sync_whose_config_breaks_is_recorded_pending(tmp_path: Path) -> None:
    """brain-compose.yml said `sync: auto` at the last commit; the work tree's copy no longer parses: the pause is
    committed here only, and recorded as waiting to be pushed, as the other ways past the remote are."""
    _, (a,) = make_remote(tmp_path, 1)
    _auto(a)
    sess = _opened(a, "cfg")
    (a / "brain-compose.yml").write_text("sync: [auto\n", encoding="utf-8")
    before = git(a, "rev-parse", "HEAD").strip()
    line = _warning(bsi(a, "gate", "pause", sess, "stop"))
    assert "brain-compose.yml" in line and "committed here only, not synced: fix the file, then `bsi sync`" in line
    assert git(a, "log", "--format=%s", f"{before}..HEAD").split("\n")[:-1] == [f"bsi: gate PAUSED {sess}"]
    assert json.loads((a / ".brain" / "sync.json").read_text()).get("pending_since")


def test_a_pause_in_a_local_brain_whose_config_breaks_is_not_pending(tmp_path: Path) -> None:
    """A brain that never synced on its own (no `sync: auto` committed) keeps its pushes the user's: no pending mark."""
    _, (a,) = make_remote(tmp_path, 1)
    sess = _opened(a, "cfg")
    (a / "brain-compose.yml").write_text("sync: [auto\n", encoding="utf-8")
    _warning(bsi(a, "gate", "pause", sess, "stop"))
    state = a / ".brain" / "sync.json"
    assert not state.exists() or "pending_since" not in json.loads(state.read_text())


def test_a_pause_whose_remote_shares_no_history_is_committed_here_pending_and_exits_0(tmp_path: Path) -> None:
    """The remote's branch replaced by an unrelated history (a force push, a remote pointed elsewhere): git cannot
    bring it in (no merge base, a GitError of no listed kind). The pause is a human's: it goes on here all the same."""
    _, (a, b) = make_remote(tmp_path, 2)
    _auto(a)
    sess = _opened(a, "unrelated")
    git(b, "checkout", "-q", "--orphan", "other")
    git(b, "rm", "-rq", "--cached", ".")
    commit_file(b, "x.md", "x\n", "an unrelated history")
    git(b, "push", "-qf", "origin", "other:main")
    before = git(a, "rev-parse", "HEAD").strip()
    line = _warning(bsi(a, "gate", "pause", sess, "stop"))
    assert "committed here" in line and "not pushed" in line and "`bsi sync`" in line
    _in_force_and_pending(a, sess, before)
