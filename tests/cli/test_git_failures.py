"""Git failures through `bsi`: each has its own exit code (never 1, SPEC 19 keeps it for preflight/locks).

20 an operation in progress, 21 rebase conflict, 22 failed fast-forward, 23 failed
commit, 24 push declined by the server, 69 remote unreachable or silent.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from tests.bsi import Run, ok, run_bsi
from tests.reliability.harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"


def bsi(clone: Path, *args: str, now: str = NOW, env: dict[str, str] | None = None, timeout: float = 120) -> Run:
    """`bsi --brain CLONE --now NOW ARGS…` as the tester, `env` added to the racer's environment."""
    return run_bsi(*args, brain=clone, now=now, env={**racer_env("tester"), **(env or {})}, timeout=timeout)


def claim_files(clone: Path) -> list[str]:
    return sorted(p.name for p in (clone / "claims").iterdir())


def commit_file(clone: Path, rel: str, text: str, message: str) -> None:
    (clone / rel).parent.mkdir(parents=True, exist_ok=True)
    (clone / rel).write_text(text)
    git(clone, "add", rel)
    git(clone, "commit", "-q", "-m", message)


def test_push_declined_by_a_server_hook_is_reported_at_once_with_its_message(tmp_path: Path) -> None:
    remote, (a,) = make_remote(tmp_path, 1)
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'policy: the brain is frozen for the release' >&2\nexit 1\n")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    head = git(a, "rev-parse", "HEAD")
    before = claim_files(a)
    res = bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "frozen")
    assert res.code == 24, res.err
    assert "policy: the brain is frozen for the release" in res.err
    assert "declined" in res.err
    # One try, not eight: the remote got exactly one push attempt, and nothing stayed behind locally.
    assert git(a, "rev-parse", "HEAD") == head
    assert claim_files(a) == before
    assert git(a, "status", "--porcelain").strip() == ""


def test_a_remote_that_does_not_answer_is_69_not_a_hang(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    git(a, "remote", "set-url", "origin", "ssh://silent.invalid/brain.git")
    # the user's own ssh command (bsi's git runs none the repository's config names: `core.sshCommand` there is not)
    res = bsi(a, "--sync", "claim", "open", "--scope", "wiki/", timeout=30,
              env={"BSI_NETWORK_TIMEOUT": "2", "GIT_SSH_COMMAND": "sh -c 'sleep 60'"})
    assert res.code == 69, res.err
    assert "did not answer within 2s" in res.err
    assert "Traceback" not in res.err


def test_a_rebase_conflict_is_21_and_aborted(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    commit_file(a, "notes/plan.md", "from A\n", "plan A")
    git(a, "push", "-q", "origin", "main")
    commit_file(b, "notes/plan.md", "from B\n", "plan B")
    local = git(b, "rev-parse", "HEAD")
    res = bsi(b, "sync")
    assert res.code == 21, res.err
    assert "conflict" in res.err and "notes/plan.md" in res.err
    assert "['" not in res.err
    assert git(b, "rev-parse", "HEAD") == local
    assert not (Path(git(b, "rev-parse", "--absolute-git-dir").strip()) / "rebase-merge").exists()


def test_a_failed_fast_forward_is_22_names_the_file_and_shows_no_list_repr(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    commit_file(a, "notes/todo.md", "from A\n", "todo")
    git(a, "push", "-q", "origin", "main")
    (b / "notes").mkdir()
    (b / "notes" / "todo.md").write_text("B's own, never committed\n")
    res = bsi(b, "--sync", "claim", "open", "--scope", "wiki/")
    assert res.code == 22, res.err
    assert "notes/todo.md" in res.err
    assert "['" not in res.err and "Aborting" not in res.err
    assert (b / "notes" / "todo.md").read_text() == "B's own, never committed\n"
    assert claim_files(b) == [".gitkeep"]


def test_a_failed_commit_is_23_and_leaves_nothing_written(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    git(a, "config", "commit.gpgsign", "true")
    git(a, "config", "gpg.program", "false")
    index_before = (a / "BRAIN-INDEX.md").read_text()
    res = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "unsigned")
    assert res.code == 23, res.err
    assert "commit failed" in res.err
    assert claim_files(a) == [".gitkeep"]
    assert (a / "BRAIN-INDEX.md").read_text() == index_before
    assert git(a, "status", "--porcelain").strip() == ""


def test_no_git_failure_exits_1(tmp_path: Path) -> None:
    """A broken repository (HEAD pointing nowhere git can read) is a git failure: 25, never 1."""
    brain = tmp_path / "b"
    ok(run_bsi("init", str(brain), now=None, env=racer_env("t"), timeout=None))
    objects = brain / ".git" / "objects"
    for folder in objects.iterdir():
        if len(folder.name) == 2:
            for obj in folder.iterdir():
                os.chmod(obj, 0o644)
                obj.write_bytes(b"garbage")
    res = bsi(brain, "claim", "open", "--scope", "wiki/")
    assert res.code not in (0, 1), res.err
    assert res.code == 25, res.err
    assert "Traceback" not in res.err


def test_sync_and_offline_together_are_a_usage_error(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    res = bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--offline")
    assert res.code == 64, res.err
    assert "--offline" in res.err
    assert claim_files(a) == [".gitkeep"]


def _stop_mid(clone: Path, operation: str) -> None:
    """Leave `operation` stopped on a conflict in `clone` (as a user's own git work would)."""
    base = git(clone, "rev-parse", "HEAD").strip()
    commit_file(clone, "notes/x.md", "main side\n", "main side")
    git(clone, "checkout", "-q", "-b", "topic", base)
    commit_file(clone, "notes/x.md", "topic side\n", "topic side")
    topic = git(clone, "rev-parse", "HEAD").strip()
    if operation == "rebase":
        args = ["rebase", "main"]
    else:
        git(clone, "checkout", "-q", "main")
        if operation == "merge":
            args = ["merge", "topic"]
        elif operation == "cherry-pick":
            args = ["cherry-pick", topic]
        else:  # revert the main side after changing the file again
            commit_file(clone, "notes/x.md", "main again\n", "main again")
            args = ["revert", "--no-edit", "HEAD~1"]
    proc = subprocess.run(["git", *args], cwd=clone, capture_output=True, text=True, env=racer_env("user"))
    assert proc.returncode != 0, f"{operation} did not stop: {proc.stdout}"


import pytest  # noqa: E402


@pytest.mark.parametrize("operation", ["rebase", "merge", "cherry-pick", "revert"])
def test_no_write_while_git_is_mid_operation(tmp_path: Path, operation: str) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    _stop_mid(a, operation)
    head = git(a, "rev-parse", "HEAD")
    status = git(a, "status", "--porcelain")
    for flags in ([], ["--sync"], ["--no-commit"]):
        res = bsi(a, *flags, "claim", "open", "--scope", "wiki/", "--slug", "mid")
        assert res.code == 20, (flags, res.err)
        assert "in progress" in res.err and "nothing was written" in res.err
        assert len(res.err.strip().splitlines()) == 1
        assert claim_files(a) == [".gitkeep"]
        assert git(a, "rev-parse", "HEAD") == head
        assert git(a, "status", "--porcelain") == status
    # The user's own operation is still there to finish (bsi never aborts it).
    gdir = Path(git(a, "rev-parse", "--absolute-git-dir").strip())
    markers = {"rebase": "rebase-merge", "merge": "MERGE_HEAD", "cherry-pick": "CHERRY_PICK_HEAD",
               "revert": "REVERT_HEAD"}
    assert (gdir / markers[operation]).exists()
    git(a, operation, "--abort")
    assert bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "after").code == 0


@pytest.mark.parametrize("flags", [[], ["--offline"], ["--sync"]])
def test_no_write_on_a_detached_head(tmp_path: Path, flags: list[str]) -> None:
    """A commit on a detached HEAD belongs to no branch: the next checkout leaves it behind, and the claim with it."""
    _, (a,) = make_remote(tmp_path, 1)
    git(a, "checkout", "-q", "--detach")
    head = git(a, "rev-parse", "HEAD")
    status = git(a, "status", "--porcelain")
    for args in (["claim", "open", "--scope", "wiki/", "--slug", "loose"],
                 ["signal", "send", "--to", "pilote", "--type", "INFO", "hello"]):
        res = bsi(a, *flags, *args)
        assert res.code == 25, (flags, args, res.err)
        assert "detached" in res.err and "nothing was written" in res.err
        assert len(res.err.strip().splitlines()) == 1 and "Traceback" not in res.err
        assert claim_files(a) == [".gitkeep"]
        assert git(a, "rev-parse", "HEAD") == head
        assert git(a, "status", "--porcelain") == status
    assert bsi(a, "--no-commit", "claim", "open", "--scope", "notes/", "--slug", "kept").code == 0  # commits nothing
    git(a, "checkout", "-q", "main")
    res = bsi(a, *flags, "claim", "open", "--scope", "wiki/", "--slug", "onbranch")
    assert res.code == 0, res.err
