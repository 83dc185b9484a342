"""Every exit code a tool can give has a kind of its own: an agent tells a git operation in progress (20) from a
commit a hook refused (23), a read-only brain (73) or a full disk (74), where all said `kind: "error"`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from brain_tui.core.errors import BsiError, CannotWrite, DiskFull
from brain_tui.core.sync.gitops import (
    CommitFailed,
    FastForwardFailed,
    GitBusy,
    GitError,
    PushDeclined,
    RebaseConflict,
)
from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import KINDS, Session, refusal
from tests.bsi import NOW, clean_env
from tests.conftest import claim_file


@pytest.mark.parametrize(("error", "kind"), [
    (GitBusy, "git_busy"), (RebaseConflict, "rebase_conflict"), (FastForwardFailed, "fast_forward"),
    (CommitFailed, "commit_failed"), (PushDeclined, "push_declined"), (GitError, "git"),
    (CannotWrite, "cannot_write"), (DiskFull, "disk_full"),
])
def test_each_failure_has_its_kind_and_is_not_retried_blindly(error: type[BsiError], kind: str) -> None:
    doc = refusal(error("it failed"))
    assert doc == {"error": "it failed", "exit": error.exit_code, "kind": kind, "retryable": False}


def test_only_the_remote_and_contention_are_retryable() -> None:
    assert {code for code, (_kind, retryable) in KINDS.items() if retryable} == {2, 69, 75}
    # the six preflight codes share one kind; every other code has its own
    assert len({kind for kind, _retryable in KINDS.values()}) == len(KINDS) - 5


def test_a_claim_open_during_a_rebase_says_git_busy(brain: Path) -> None:
    """Through the server: a rebase left under way in the brain refuses the open with exit 20, kind git_busy."""
    (brain / ".git" / "rebase-merge").mkdir()
    session = Session(brain, now=NOW, environ=clean_env())

    async def main() -> Any:
        async with Client(build_server(session)) as client:
            return await client.call_tool("claim_open", {"scope": ["src/"], "story": "x"})

    result = asyncio.run(main())
    assert result.is_error
    doc = result.structured_content
    assert doc["exit"] == 20 and doc["kind"] == "git_busy" and doc["retryable"] is False, doc
    assert not list(claim_file(brain, "x").parent.glob("*.yml"))
