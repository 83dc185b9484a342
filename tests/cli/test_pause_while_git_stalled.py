"""A human's pause is placed whatever state git is in (`records.held_back`).

A merge, rebase, cherry-pick or revert stopped halfway, or a detached HEAD, refuses every bsi write (exit 20, 25):
a commit would join the user's operation or belong to no branch. An agent's program can put git there on purpose
(a `.git/MERGE_HEAD` is one file), so the brake cannot wait for git: the pause is written to the work tree, where a
tightening is in force at once (the hook refuses the paused agent), and the first write after git is idle again
commits it under its own message before its own commit. Everything else still refuses, a lift (resume) included.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.bsi import ok
from tests.cli.test_git_failures import _stop_mid, bsi, claim_files
from tests.hooks.test_pre_tool_use import AGENT, assert_denied, event, hook
from tests.reliability.harness import git, make_remote


def _claim_status(text: str) -> str:
    return next(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("status:"))


def _stall(clone: Path, how: str) -> None:
    """Put git where it takes no commit: a user's operation stopped on a conflict, a detached HEAD, or a lone
    `MERGE_HEAD` an agent's program wrote."""
    if how == "detached":
        git(clone, "checkout", "-q", "--detach")
    elif how == "forged":
        head = git(clone, "rev-parse", "HEAD").strip()
        (Path(git(clone, "rev-parse", "--absolute-git-dir").strip()) / "MERGE_HEAD").write_text(head + "\n")
    elif how in _LOCKS:  # a git process holds the branch's ref (or HEAD), or one killed left its lock file
        _lock_file(clone, how).write_text("")
    else:
        _stop_mid(clone, how)


#: Lock files a git write holds while it moves the branch: git refuses every commit while one is there.
_LOCKS = ("ref-lock", "head-lock")


def _lock_file(clone: Path, how: str) -> Path:
    gdir = Path(git(clone, "rev-parse", "--absolute-git-dir").strip())
    return gdir / "HEAD.lock" if how == "head-lock" else gdir / "refs" / "heads" / "main.lock"


def _unstall(clone: Path, how: str) -> None:
    if how == "detached":
        git(clone, "checkout", "-q", "main")
    elif how == "forged":
        git(clone, "merge", "--abort")
    elif how in _LOCKS:
        _lock_file(clone, how).unlink()
    else:
        git(clone, how, "--abort")


@pytest.mark.parametrize("how", ["merge", "cherry-pick", "revert", "detached", "forged", *_LOCKS])
def test_a_pause_holds_at_once_while_git_is_stalled_and_is_committed_once_git_is_idle(
        tmp_path: Path, how: str) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "runaway", "--agent-session", AGENT)).strip()
    _stall(a, how)
    head = git(a, "rev-parse", "HEAD")
    claim = f"claims/{sess}.yml"

    res = bsi(a, "gate", "pause", sess, "stop writing")
    assert res.code == 0, res.err
    assert "not committed yet" in res.err and "in force in this work tree" in res.err and "Traceback" not in res.err
    assert git(a, "rev-parse", "HEAD") == head  # nothing joined the user's operation
    assert _claim_status((a / claim).read_text()) == "paused"
    # (on a detached HEAD the hook refuses every brain write already: the branch's claims are not HEAD's)
    for _ in range(2):  # the core's answer, then the hook index's
        assert_denied(hook(a, "pre-tool-use", event(a, "Edit", str(a / "wiki" / "a.md"))),
                      "detached" if how == "detached" else "paused")

    # it waits for a human: the attention queue says so, naming the claim, until it is committed
    held = [i for i in json.loads(ok(bsi(a, "--json", "attention")))["items"] if i["kind"] == "held"]
    assert [i["sess_id"] for i in held] == [sess], held
    assert "not committed yet" in held[0]["summary"] and "end it (" in held[0]["summary"]

    # every other write still waits for git, a lift first of all
    for args in (["gate", "resume", sess, "go on"], ["claim", "open", "--scope", "notes/", "--slug", "other"]):
        res = bsi(a, *args)
        assert res.code in (20, 25), (args, res.err)
        assert "nothing was written" in res.err
    assert _claim_status((a / claim).read_text()) == "paused"

    _unstall(a, how)
    assert _claim_status((a / claim).read_text()) == "paused"  # git's own way out leaves the work tree's pause
    res = bsi(a, "claim", "open", "--scope", "notes/", "--slug", "after")
    assert res.code == 0, res.err
    subjects = git(a, "log", "--format=%s", "-3").splitlines()
    assert subjects[0].startswith("bsi: open claim ") and subjects[1] == f"bsi: gate PAUSED {sess}", subjects
    assert _claim_status(git(a, "show", f"HEAD~1:{claim}")) == "paused"
    assert git(a, "status", "--porcelain", "--", "claims", "signals", "BRAIN-INDEX.md") == ""
    assert not (a / ".brain" / "held-back.json").exists()
    assert not [i for i in json.loads(ok(bsi(a, "--json", "attention")))["items"] if i["kind"] == "held"]
    assert_denied(hook(a, "pre-tool-use", event(a, "Edit", str(a / "wiki" / "a.md"))), "paused")


def test_a_pause_held_back_goes_out_with_the_next_sync(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    sess = ok(bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "far", "--agent-session", AGENT)).strip()
    _stall(a, "forged")
    assert bsi(a, "--sync", "gate", "pause", sess, "stop").code == 0
    _unstall(a, "forged")
    res = bsi(a, "sync")
    assert res.code == 0, res.err
    ok(bsi(b, "sync"))
    shown = json.loads(ok(bsi(b, "--json", "claim", "show", sess)))
    assert shown["status"] == "paused", shown


def test_a_pause_undone_before_its_commit_is_told_and_not_committed(tmp_path: Path) -> None:
    """A human's `git rebase --abort` (a hard reset) puts the claim file back before the pause was committed: the next
    write commits nothing of it and says the pause is gone."""
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "undone", "--agent-session", AGENT)).strip()
    _stall(a, "rebase")
    assert bsi(a, "gate", "pause", sess, "stop").code == 0
    git(a, "rebase", "--abort")
    git(a, "checkout", "-q", "main")
    git(a, "checkout", "--", "claims", "BRAIN-INDEX.md")  # the hard reset of an abort, as a person may also do
    res = bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello")
    assert res.code == 0, res.err
    assert "not committed" in res.err and f"bsi: gate PAUSED {sess}" in res.err and "make it again" in res.err
    assert f"bsi: gate PAUSED {sess}" not in git(a, "log", "--format=%s")
    assert _claim_status((a / f"claims/{sess}.yml").read_text()) == "open"
    assert not [p for p in (a / "signals").iterdir() if "PAUSED" in p.read_text()]  # its signal went with it


def test_a_no_commit_pause_is_written_and_never_committed_later(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "nc", "--agent-session", AGENT)).strip()
    _stall(a, "forged")
    res = bsi(a, "--no-commit", "gate", "pause", sess, "stop")
    assert res.code == 0, res.err
    assert not (a / ".brain" / "held-back.json").exists()
    _unstall(a, "forged")
    ok(bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello"))
    assert f"bsi: gate PAUSED {sess}" not in git(a, "log", "--format=%s")


def test_a_forged_record_commits_nothing_outside_the_protocol_files(tmp_path: Path) -> None:
    """The record names blobs, never text, and only protocol files: a record naming a file of the brain's work
    does not make bsi commit it."""
    _, (a,) = make_remote(tmp_path, 1)
    (a / "wiki").mkdir(exist_ok=True)
    (a / "wiki" / "page.md").write_text("an agent's page\n")
    blob = git(a, "hash-object", "wiki/page.md").strip()
    (a / ".brain").mkdir(exist_ok=True)
    (a / ".brain" / "held-back.json").write_text(json.dumps(
        {"writes": [{"message": "bsi: gate PAUSED x", "like": blob, "files": {"wiki/page.md": blob,
                                                                            "claims/../wiki/page.md": blob}}]}))
    ok(bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello"))
    assert "wiki/page.md" not in git(a, "log", "--name-only", "--format=")
    assert "bsi: gate PAUSED x" not in git(a, "log", "--format=%s")
    assert claim_files(a) == [".gitkeep"]


#: What an agent's program can write in `.git` so that git runs no commit while idle: (the file, its new text or
#: what is added to it, what the pause is told, the exit of every other write).
_BROKEN = {
    "config": ("config", "+[broken\n", "git cannot run in this repository (bad config line", 25),
    # git sees no work tree holding the brain: its commit cannot run, nor the roll-back of a failed one
    "bare": ("config", "+[core]\n\tbare = true\n", "git cannot run in this repository (git sees no work tree", 25),
    "worktree": ("config", "+[core]\n\tworktree = refs\n", "git cannot run in this repository (git sees no work tree",
                 25),
    "tag": ("HEAD", "ref: refs/tags/v1\n", "HEAD names no branch ('refs/tags/v1')", 25),  # git would move the tag
    # HEAD names the branch, whose own file names a tag: git follows both, and would move the tag
    "branch-to-tag": ("refs/heads/main", "ref: refs/tags/v1\n", "HEAD names no branch ('refs/tags/v1')", 25),
    "bad-ref": ("HEAD", "ref: refs/heads/a..b\n", "HEAD names no branch", 25),
    "no-ref": ("HEAD", "ref: refs/heads/\n", "HEAD names no branch", 25),
    # a repository's own signing program is never run: every commit fails
    "signing": ("config", "+[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = gpg\n", "git could not commit (", 23),
    "index": ("index", "not an index", "git could not commit (", 25),
    # the branch's ref gone, or a folder in its place: git reads the branch as unborn, and a commit would start a
    # history of its own, cut from the brain's
    "ref-gone": ("refs/heads/main", None, "HEAD's branch ('refs/heads/main') has no commit", 25),
    "ref-folder": ("refs/heads/main", "/", "HEAD's branch ('refs/heads/main') has no commit", 25),
}


def _break(target: Path, text: str | None) -> bytes:
    """Put `text` in `target` (appended after a "+"; None removes it; "/" puts a folder there); its bytes before."""
    kept = target.read_bytes()
    if text is None or text == "/":
        target.unlink()
        if text == "/":
            target.mkdir()
    else:
        target.write_bytes(kept + text[1:].encode() if text.startswith("+") else text.encode())
    return kept


def _mend(target: Path, kept: bytes) -> None:
    if target.is_dir():
        target.rmdir()
    target.write_bytes(kept)


@pytest.mark.parametrize("how", sorted(_BROKEN))
def test_a_pause_holds_while_git_cannot_commit_and_is_committed_once_it_can(tmp_path: Path, how: str) -> None:
    """git idle, yet no commit can land on the branch: it cannot run (Gemini CLI and Codex have no fence on
    `.git/config`), HEAD names no branch, or the commit itself fails. Every other write refuses before it writes
    anything; a human's pauses (two here) are held back as for a stalled git, and committed by the first write
    once git commits again, in order."""
    _, (a,) = make_remote(tmp_path, 1)
    first = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "one", "--agent-session", AGENT)).strip()
    second = ok(bsi(a, "claim", "open", "--scope", "notes/", "--slug", "two")).strip()
    tip = git(a, "rev-parse", "HEAD").strip()
    name, text, told, code = _BROKEN[how]
    target = a / ".git" / name
    kept = _break(target, text)

    for sess in (first, second):
        res = bsi(a, "gate", "pause", sess, "stop writing")
        assert res.code == 0, res.err
        assert f"not committed yet: {told}" in res.err and "in force in this work tree" in res.err, res.err
        assert _claim_status((a / f"claims/{sess}.yml").read_text()) == "paused"
    assert_denied(hook(a, "pre-tool-use", event(a, "Edit", str(a / "wiki" / "a.md"))), "paused")
    held = [i for i in json.loads(ok(bsi(a, "--json", "attention")))["items"] if i["kind"] == "held"]
    assert sorted(i["sess_id"] for i in held) == sorted([first, second]), held
    if how in ("signing", "index"):  # git idle, its commit failing: the next write may fail as the pause did
        assert all("idle again" not in i["summary"] and "says why git could not" in i["summary"] for i in held), held
    for args in (["gate", "resume", first, "go on"], ["claim", "open", "--scope", "src/", "--slug", "other"]):
        res = bsi(a, *args)
        assert res.code == code and "Traceback" not in res.err, (args, res.err)
    if how not in ("signing", "index"):  # a sync says what stops git as the writes do
        res = bsi(a, "sync")
        assert res.code == 25 and told in res.err and "Traceback" not in res.err, res.err
    assert not (a / ".brain" / "journal" / "manifest.json").exists()
    assert _claim_status((a / f"claims/{first}.yml").read_text()) == "paused"

    _mend(target, kept)
    assert git(a, "rev-parse", "HEAD").strip() == tip and git(a, "tag") == ""  # no commit landed anywhere
    assert bsi(a, "claim", "open", "--scope", "src/", "--slug", "after").code == 0
    subjects = git(a, "log", "--format=%s", f"{tip}..HEAD").splitlines()
    assert subjects[1:] == [f"bsi: gate PAUSED {second}", f"bsi: gate PAUSED {first}"], subjects
    assert git(a, "status", "--porcelain", "--", "claims", "signals", "BRAIN-INDEX.md") == ""


def _local_brain(tmp_path: Path) -> Path:
    """A brain in a repository of its own: one branch, no remote, no tag."""
    root = tmp_path / "local"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    ok(bsi(root, "init"))
    return root


def test_a_branch_cut_with_its_logs_in_a_repository_of_one_branch_is_no_new_repository(tmp_path: Path) -> None:
    """An agent's program removes the branch's ref and every reflog of a brain with no other ref: git reads a new
    repository, yet its commits are there. A write would start a root commit holding only its own files, and a
    human's pause would be in no commit: it refuses, and the history is left as it was."""
    a = _local_brain(tmp_path)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "one", "--agent-session", AGENT)).strip()
    ok(bsi(a, "gate", "pause", sess, "stop writing"))
    tip = git(a, "rev-parse", "HEAD").strip()
    (a / ".git" / "refs" / "heads" / "main").unlink()
    for log in sorted((a / ".git" / "logs").rglob("*"), reverse=True):
        log.rmdir() if log.is_dir() else log.unlink()
    assert git(a, "for-each-ref") == ""

    res = bsi(a, "claim", "open", "--scope", "src/", "--slug", "other")
    assert res.code == 25 and "has no commit" in res.err, res.err
    assert subprocess.run(["git", "-C", str(a), "rev-parse", "--verify", "-q", "HEAD"], capture_output=True,
                          check=False).returncode != 0  # no root commit was made
    git(a, "update-ref", "refs/heads/main", tip)
    ok(bsi(a, "claim", "open", "--scope", "src/", "--slug", "after"))
    assert _claim_status(git(a, "show", f"HEAD:claims/{sess}.yml")) == "paused"


def test_a_first_write_in_a_new_repository_is_a_root_commit(tmp_path: Path) -> None:
    """No commit anywhere yet (files added, none committed): the brain's first commit is a root commit."""
    root = tmp_path / "new"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "notes.md").write_text("a human's notes\n")
    git(root, "add", "notes.md")
    ok(bsi(root, "init"))
    ok(bsi(root, "claim", "open", "--scope", "wiki/", "--slug", "one"))
    assert len(git(root, "log", "--format=%s").splitlines()) >= 2


def test_a_pause_held_back_while_the_branch_names_a_missing_commit_outlives_the_writes_refused_meanwhile(
        tmp_path: Path) -> None:
    """The branch's file names a commit the repository does not hold (an agent's program wrote it): every commit
    fails, the pause is held back, and a write refused meanwhile keeps the record: it is committed once the branch is
    mended, not dropped with the claim file left paused in the work tree alone."""
    _, (a,) = make_remote(tmp_path, 1)
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "one", "--agent-session", AGENT)).strip()
    ref = a / ".git" / "refs" / "heads" / "main"
    kept = ref.read_bytes()
    ref.write_text("12345678" * 5 + "\n")
    res = bsi(a, "gate", "pause", sess, "stop writing")
    assert res.code == 0 and "not committed yet" in res.err, res.err
    res = bsi(a, "claim", "open", "--scope", "src/", "--slug", "meanwhile")
    assert res.code != 0 and "Traceback" not in res.err, res.err
    assert (a / ".brain" / "held-back.json").exists()
    ref.write_bytes(kept)
    ok(bsi(a, "claim", "open", "--scope", "src/", "--slug", "after"))
    assert f"bsi: gate PAUSED {sess}" in git(a, "log", "--format=%s")
    assert _claim_status(git(a, "show", f"HEAD:claims/{sess}.yml")) == "paused"


def test_a_branch_file_that_is_a_link_git_reads_as_naming_a_tag_refuses_the_write(tmp_path: Path) -> None:
    """git reads a link in `refs/` whose target starts with `refs/` as a symbolic ref: `refs/heads/main` linking to
    `refs/tags/v1` makes a commit move the tag, while the file the link lands on (an agent's program put it there)
    holds a commit's name. The write refuses (25) as for a branch file naming the tag; nothing moves."""
    _, (a,) = make_remote(tmp_path, 1)
    git(a, "tag", "v1")
    ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "one"))
    heads = a / ".git" / "refs" / "heads"
    tip = (heads / "main").read_text()
    (heads / "refs" / "tags").mkdir(parents=True)
    (heads / "refs" / "tags" / "v1").write_text(tip)
    (heads / "main").unlink()
    (heads / "main").symlink_to("refs/tags/v1")
    tag = git(a, "rev-parse", "v1").strip()

    res = bsi(a, "claim", "open", "--scope", "src/", "--slug", "other")
    assert res.code == 25 and "HEAD names no branch ('refs/tags/v1')" in res.err, res.err
    assert git(a, "rev-parse", "v1").strip() == tag
