"""`check_scope` through `bsi mcp` follows "in force is what git holds" (SPEC 22), from a memo warmed before.

Another session's open claim on ``src/`` is committed in a `bsi init` brain. A check warms the memo, then one
change is made and the next check must answer as a fresh read would: an uncommitted delete or close of the
claim keeps ``src/`` held; once the close is committed it is free; HEAD moved back to the commit that holds the
claim open (the work tree untouched) holds it again; HEAD moved forward again frees it. None of the git steps
touches ``claims/``: only HEAD's files move.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import blocking_claims
from brain_tui.mcp import tools
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, bsi_command, clean_env
from tests.mcp.test_mcp_check_scope_memo import holders, session, write_claim

__all__ = ["session"]

OTHER = "sess-20261129-0900-othr"


def git(root: Path, *args: str) -> str:
    """One git command in the brain (its identity is the brain's)."""
    done = subprocess.run(["git", *args], cwd=root, env=clean_env(), capture_output=True, text=True, check=True)
    return done.stdout.strip()


def committed_open_claim(brain: Path) -> str:
    """Another session's open claim on ``src/``, committed; the commit's ID."""
    write_claim(brain, OTHER, "src/")
    git(brain, "add", "-A")
    git(brain, "commit", "-qm", "open src/")
    return git(brain, "rev-parse", "HEAD")


def close_by_hand(brain: Path) -> None:
    """The claim file edited in place (as an editor saves it) to ``status: closed``, not committed."""
    path = brain / "claims" / f"{OTHER}.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("status: open", "status: closed")
                    + "closed_at: '2026-11-29T09:30:00+00:00'\n", encoding="utf-8")


def facade_holders(s: Session, scope: str) -> list[str]:
    """The IDs `Brain.check_scope(memo=True)` names for `scope`."""
    return [c.sess_id for c in s.brain.check_scope(parse_scope(scope, s.brain.root), memo=True)]


def expect(s: Session, blocked: bool) -> None:
    """Both ways in (the facade and the tool) answer alike for ``src/x.py``, then from the memo: the next change
    meets a memo built before it (the dangerous path)."""
    want = [OTHER] if blocked else []
    assert facade_holders(s, "src/x.py") == want
    if s.brain.blocking._events is None:
        time.sleep(0.05)  # without the change feed: past one timestamp tick (the racy window is shrunk)
    hits = s.brain.blocking.counters.hits
    assert holders(s, "src/x.py") == want
    assert facade_holders(s, "src/x.py") == want
    assert s.brain.blocking.counters.hits == hits + 2


@pytest.mark.parametrize("how", ["deleted", "closed"])
def test_an_uncommitted_release_keeps_src_held_and_a_commit_of_it_frees_it(session: Session, brain: Path,
                                                                          how: str) -> None:
    committed_open_claim(brain)
    expect(session, blocked=True)  # warmed: the memo holds the open claim
    if how == "deleted":
        (brain / "claims" / f"{OTHER}.yml").unlink()
    else:
        close_by_hand(brain)
    expect(session, blocked=True)  # HEAD still holds it open: not in force
    git(brain, "add", "-A")
    git(brain, "commit", "-qm", f"release ({how})")
    expect(session, blocked=False)  # committed: in force, src/ is free


@pytest.mark.parametrize("move", ["reset-soft", "update-ref", "detached"])
def test_head_moved_back_to_the_open_claim_blocks_again_without_a_work_tree_change(
        session: Session, brain: Path, move: str) -> None:
    opened = committed_open_claim(brain)
    close_by_hand(brain)
    git(brain, "commit", "-qam", "close src/")
    closed = git(brain, "rev-parse", "HEAD")
    expect(session, blocked=False)  # warmed on the commit that closed it
    before = (brain / "claims" / f"{OTHER}.yml").read_bytes()
    if move == "reset-soft":
        git(brain, "reset", "-q", "--soft", "HEAD~1")
    elif move == "update-ref":  # the branch's ref file rewritten, HEAD's own file untouched
        git(brain, "update-ref", "refs/heads/" + git(brain, "branch", "--show-current"), opened)
    else:
        git(brain, "update-ref", "--no-deref", "HEAD", opened)
    assert (brain / "claims" / f"{OTHER}.yml").read_bytes() == before  # the work tree still has it closed
    expect(session, blocked=True)  # HEAD holds it open again: the close is no longer in force
    refused, is_error = tools.call(lambda: tools.claim_open(session, ["src/"], story="mine"))
    # a detached HEAD takes no commit at all (25: a commit there would be left behind at the next checkout)
    assert is_error and refused["exit"] == (25 if move == "detached" else 10)
    git(brain, "update-ref", "--no-deref", "HEAD", closed)  # and forward again (detached): free
    expect(session, blocked=False)


def test_packed_refs_alone_moving_head_back_is_seen(session: Session, brain: Path) -> None:
    """The branch held in ``packed-refs`` only (no loose ref): a rewrite of that file moves HEAD."""
    opened = committed_open_claim(brain)
    close_by_hand(brain)
    git(brain, "commit", "-qam", "close src/")
    closed = git(brain, "rev-parse", "HEAD")
    git(brain, "pack-refs", "--all")
    branch = git(brain, "branch", "--show-current")
    assert not (brain / ".git" / "refs" / "heads" / branch).exists()
    expect(session, blocked=False)
    packed = brain / ".git" / "packed-refs"
    tmp = packed.with_name("packed-refs.new")
    tmp.write_text(packed.read_text(encoding="utf-8").replace(closed, opened), encoding="utf-8")
    tmp.replace(packed)
    assert git(brain, "rev-parse", "HEAD") == opened
    expect(session, blocked=True)


def test_a_linked_worktree_brain_follows_its_own_head(brain: Path, tmp_path: Path) -> None:
    """A brain checked out as a linked worktree (``.git`` is a file, the refs are in the main repository)."""
    opened = committed_open_claim(brain)
    linked = tmp_path / "linked"
    git(brain, "worktree", "add", "-q", "-b", "side", str(linked))
    close_by_hand(linked)
    git(linked, "commit", "-qam", "close src/")
    s = Session(linked, now=NOW, environ=clean_env(), client="")
    try:
        expect(s, blocked=False)
        git(linked, "reset", "-q", "--soft", opened)
        expect(s, blocked=True)
    finally:
        s.brain.blocking.close()


def test_a_head_the_files_do_not_decide_leaves_the_memo_unsettled(session: Session, brain: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Unsure which files decide HEAD's commit (reftable, ``$GIT_COMMON_DIR``): every call reads again."""
    committed_open_claim(brain)
    monkeypatch.setattr(blocking_claims, "head_files", lambda _root: None)
    reads = session.brain.blocking.counters.reads
    for _ in range(3):
        assert holders(session, "src/x.py") == [OTHER]
    assert session.brain.blocking.counters.reads == reads + 3


def test_stdio_check_scope_follows_head(brain: Path) -> None:
    """End to end over `bsi mcp`: each step between two checks of the same running server."""
    opened = committed_open_claim(brain)
    command, *args = bsi_command("mcp", brain=brain, now=NOW)
    params = StdioServerParameters(command=command, args=args, env=clean_env(), cwd=str(brain))

    def commit_close() -> None:
        git(brain, "commit", "-qam", "close src/")

    steps: list[tuple[Callable[[], Any], bool]] = [
        (lambda: None, True),
        (lambda: close_by_hand(brain), True),  # uncommitted: still held
        (commit_close, False),  # committed: free
        (lambda: git(brain, "reset", "-q", "--soft", opened), True),  # HEAD back, work tree untouched
    ]

    async def main() -> list[list[str]]:
        answers: list[list[str]] = []
        async with Client(params) as client:
            for change, _blocked in steps:
                change()
                for _ in range(2):
                    found = await client.call_tool("check_scope", {"scopes": ["src/x.py"]})
                    answers.append([c["sess_id"] for c in found.structured_content["conflicts"]])
        return answers

    answers = asyncio.run(main())
    assert answers == [[OTHER] if blocked else [] for _change, blocked in steps for _ in range(2)]
