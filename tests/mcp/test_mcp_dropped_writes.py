"""A write through an MCP tool whose sync dropped an earlier local write says so, as the command line does.

An offline renew lost to a human's pause made on another machine: the renew did not happen. A `sync: auto` brain
sends the next tool write through the remote; its result carries the same warning `bsi` prints
(`reconcile.dropped_warning`), in the text and as the structured result's `warnings`.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from mcp.client.client import Client

from brain_tui.core.rules.reconcile import dropped_warning
from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import Session
from tests.bsi import Run, clean_env, run_bsi
from tests.reliability.harness import git, make_remote, racer_env

NOW = "2026-11-29T10:10:00+00:00"


def _bsi(clone: Path, now: str, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=f"2026-11-29T{now}:00+00:00", env=racer_env(clone.name), timeout=None)


def test_a_tool_write_whose_sync_dropped_a_local_write_says_so(tmp_path: Path) -> None:
    _, (pilot_clone, sat_clone) = make_remote(tmp_path, 2)
    opened = _bsi(sat_clone, "10:00", "--sync", "claim", "open", "--scope", "proj/b.md", "--slug", "other")
    assert opened.code == 0, opened.err
    other = opened.out.strip()
    assert _bsi(pilot_clone, "10:01", "sync").code == 0
    assert _bsi(sat_clone, "10:05", "--offline", "claim", "renew", other).code == 0
    assert _bsi(pilot_clone, "10:06", "--sync", "gate", "pause", other, "hold").code == 0
    (sat_clone / "brain-compose.yml").write_text("brain_name: prod\nsync: auto\n", encoding="utf-8")
    git(sat_clone, "add", "brain-compose.yml")
    git(sat_clone, "commit", "-q", "-m", "sync: auto")

    session = Session(sat_clone, now=NOW, environ=clean_env())

    async def main() -> tuple[Any, Any]:
        async with Client(build_server(session)) as client:
            wrote = await client.call_tool("claim_open", {"scope": ["proj/c.md"], "story": "third", "slug": "third"})
            return wrote, await client.call_tool("claim_list", {})

    result, listed = asyncio.run(main())
    doc = result.structured_content
    assert not result.is_error, doc
    told = dropped_warning(f"bsi: renew claim {other}")
    assert doc["warnings"] == [told], doc
    assert told in json.loads(result.content[0].text)["warnings"]
    assert "warnings" not in listed.structured_content, "a later call that wrote nothing repeats no warning"
    git(sat_clone, "fetch", "--quiet", "origin")
    assert doc["sess_id"] in git(sat_clone, "ls-tree", "-r", "--name-only", "origin/main", "--", "claims/")


def test_a_tool_write_with_nothing_dropped_carries_no_warnings(tmp_path: Path) -> None:
    _, (clone,) = make_remote(tmp_path, 1)
    (clone / "brain-compose.yml").write_text("brain_name: prod\nsync: auto\n", encoding="utf-8")
    git(clone, "add", "brain-compose.yml")
    git(clone, "commit", "-q", "-m", "sync: auto")
    session = Session(clone, now=NOW, environ=clean_env())

    async def main() -> Any:
        async with Client(build_server(session)) as client:
            return await client.call_tool("claim_open", {"scope": ["proj/c.md"], "story": "x", "slug": "x"})

    result = asyncio.run(main())
    assert not result.is_error, result.structured_content
    assert "warnings" not in result.structured_content, result.structured_content
