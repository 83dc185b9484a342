"""An open through `bsi mcp` whose push gets no answer, nor can the remote be asked whether it landed, is kept as a
pending local commit (`remote.write_through`): the claim is the agent's, in force here. Its refusal (69) must name
that claim: an answer that did not was read as "nothing opened", and the agent's next `claim_open` on the same scope
was refused as a conflict with the very claim its first call had opened.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import Session
from tests.bsi import clean_env, run_bsi
from tests.clock import live_now
from tests.reliability.harness import git, make_remote

AGENT = "5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c"


def _silent_remote(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A syncing clone whose next push hangs while its remote goes away (the network drops mid-push):
    (the clone, the remote, where the remote went)."""
    remote, (a,) = make_remote(tmp_path, 1)
    (a / "brain-compose.yml").write_text("sync: auto\n", encoding="utf-8")
    git(a, "add", "brain-compose.yml")
    git(a, "commit", "-q", "-m", "sync auto")
    git(a, "push", "-q", "origin", "main")
    away = remote.with_name("remote-away.git")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f'#!/bin/sh\nmv "{remote}" "{away}"\nexec sleep 30\n', encoding="utf-8")
    hook.chmod(0o755)
    return a, remote, away


def test_an_open_kept_pending_names_its_claim_so_the_agent_never_opens_it_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, remote, away = _silent_remote(tmp_path)
    monkeypatch.setenv("BSI_NETWORK_TIMEOUT", "2")
    session = Session(a, now=live_now(), environ={**clean_env(), "CLAUDE_CODE_SESSION_ID": AGENT}, client="")

    async def main() -> list[Any]:
        async with Client(build_server(session)) as client:
            first = await client.call_tool("claim_open", {"scope": ["wiki/"], "story": "mine"})
            away.rename(remote)
            (remote / "hooks" / "pre-receive").unlink()
            mine = await client.call_tool("my_claim", {})
            return [first.is_error, first.structured_content, mine.structured_content]

    error, first, mine = asyncio.run(main())
    kept = [p.stem for p in (a / "claims").glob("sess-*.yml")]
    assert len(kept) == 1 and git(a, "log", "-1", "--format=%s").strip() == f"bsi: open claim {kept[0]}"
    assert error and first["exit"] == 69 and first["kind"] == "remote", first
    assert first["sess_id"] == kept[0] and first["kept"] is True, first  # the claim it opened, named
    assert kept[0] in first["error"] and "do not open it again" in first["error"], first
    assert mine["sess_id"] == kept[0] and mine["story_angle"] == "mine", mine  # it is the agent's own


def test_the_command_line_names_the_claim_it_kept_too(tmp_path: Path) -> None:
    a, _remote, _away = _silent_remote(tmp_path)
    res = run_bsi("claim", "open", "--scope", "wiki/", "--slug", "far", "--json", brain=a,
                  env={**clean_env(), "BSI_NETWORK_TIMEOUT": "2"})
    kept = [p.stem for p in (a / "claims").glob("sess-*.yml")]
    assert res.code == 69 and len(kept) == 1, res
    said = res.out + res.err
    assert kept[0] in said and "do not open it again" in said, said
