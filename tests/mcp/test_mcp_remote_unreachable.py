"""A write through an MCP tool that cannot reach the remote (exit 69) says what the agent can do: no tool has the
command line's `--offline`, so the result names what works instead (call again later, or a human's `sync: manual`);
the command line's own message is unchanged."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp.client.client import Client

from brain_tui.core.errors import RemoteUnreachable
from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import Session, refusal
from tests.bsi import NOW, clean_env, git, run_bsi
from tests.conftest import tree_bytes


def unreachable(brain: Path, tmp_path: Path) -> None:
    """`sync: auto` (every write goes through the remote) with an origin that is not there."""
    (brain / "brain-compose.yml").write_text("brain_name: prod\nsync: auto\n")
    git(brain, "add", "brain-compose.yml")
    git(brain, "commit", "-q", "-m", "sync: auto")
    git(brain, "remote", "add", "origin", str(tmp_path / "gone.git"))


def test_a_tool_write_the_remote_refuses_tells_what_an_agent_can_do(brain: Path, tmp_path: Path) -> None:
    unreachable(brain, tmp_path)
    before = tree_bytes(brain)
    session = Session(brain, now=NOW, environ=clean_env())

    async def main() -> Any:
        async with Client(build_server(session)) as client:
            return await client.call_tool("claim_open", {"scope": ["src/"], "story": "x"})

    result = asyncio.run(main())
    doc = result.structured_content
    assert result.is_error and doc["exit"] == 69 and doc["kind"] == "remote" and doc["retryable"] is True, doc
    assert doc["error"].startswith("remote unreachable (") and "--offline" not in doc["error"], doc
    assert "again" in doc["error"] and "sync: manual" in doc["error"], doc
    assert tree_bytes(brain) == before

    cli = run_bsi("claim", "open", "--scope", "src/", "--slug", "x", brain=brain)
    assert cli.code == 69 and "; use --offline to record the change locally" in cli.err, cli


def _open_through_a_tool(brain: Path) -> Any:
    session = Session(brain, now=NOW, environ=clean_env())

    async def main() -> Any:
        async with Client(build_server(session)) as client:
            return await client.call_tool("claim_open", {"scope": ["src/"], "story": "x"})

    return asyncio.run(main())


def test_with_no_origin_at_all_the_advice_never_says_to_call_again(brain: Path) -> None:
    """No remote to wait for: trying again can never help, so the advice names only what does (a human adds an
    `origin`, or sets `sync: manual`). `retryable` stays true: SPEC 20.3 makes every 69 retryable."""
    unreachable(brain, brain)
    git(brain, "remote", "remove", "origin")
    before = tree_bytes(brain)
    result = _open_through_a_tool(brain)
    doc = result.structured_content
    assert result.is_error and doc["exit"] == 69 and doc["kind"] == "remote" and doc["retryable"] is True, doc
    assert doc["error"].startswith("no git remote 'origin' configured"), doc
    assert "again later" not in doc["error"] and "when the remote answers" not in doc["error"], doc
    assert "calling the tool again cannot help" in doc["error"], doc
    assert "origin" in doc["error"].split(";", 1)[1] and "sync: manual" in doc["error"], doc
    assert "--sync" not in doc["error"] and "--offline" not in doc["error"], doc
    assert tree_bytes(brain) == before

    cli = run_bsi("claim", "open", "--scope", "src/", "--slug", "x", brain=brain)
    assert cli.code == 69 and "no git remote 'origin' configured: add one, or work without --sync" in cli.err, cli


def test_an_unreachable_origin_keeps_the_advice_to_call_again(brain: Path, tmp_path: Path) -> None:
    unreachable(brain, tmp_path)
    doc = _open_through_a_tool(brain).structured_content
    assert doc["retryable"] is True and "call the tool again later" in doc["error"], doc


def test_the_command_lines_advice_is_kept_whole_in_the_message() -> None:
    exc = RemoteUnreachable("remote unreachable (no route)", advice="use --offline to record the change locally")
    assert exc.message == "remote unreachable (no route); use --offline to record the change locally"
    assert refusal(RemoteUnreachable("remote did not answer"))["error"] == "remote did not answer"
