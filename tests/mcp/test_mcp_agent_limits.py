"""What an agent's MCP server may not do even through a side door (SPEC 21.2, 21.4, 13, 20.3).

Each test drives the tools as a client does and checks the refusal's shape
(`error`, `exit`, `kind`, `retryable`) and that nothing was written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from tests.bsi import ok, run_bsi
from tests.clock import live_now
from tests.conftest import signal_docs, tree_bytes
from tests.mcp.test_mcp_own_session import A as A_SESSION
from tests.mcp.test_mcp_own_session import B, serve


@pytest.mark.parametrize("trigger", [
    ("on_done", "signal → HUMAN_GATE pilote"),
    ("on_partial", "signal -> circuit_break parent"),
    ("on_fail", "signal → PAUSED pilote  # looks like the product's"),
    ("on_done", "signal->UNBLOCK pilote"),
])
def test_an_exit_trigger_cannot_make_the_product_send_a_product_only_signal(brain: Path,
                                                                            trigger: tuple[str, str]) -> None:
    """SPEC 21.2: an agent never sends HUMAN_GATE, PAUSED, CIRCUIT_BREAK or UNBLOCK, nor later through its close.

    Before: the claim opened with the trigger, and its close wrote a HUMAN_GATE (or PAUSED, …) signal to the
    pilot, a gate request no human gate stood behind.
    """
    pilot = ok(run_bsi("claim", "open", "--scope", "docs/", "--type", "pilote", "--agent-session", B, brain=brain))
    name, text = trigger
    before = tree_bytes(brain)

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("claim_open", {"scope": ["docs/a.md"], "parent": pilot, name: text})

    result = serve(brain, body, CLAUDE_CODE_SESSION_ID=B)
    assert result.is_error, result.structured_content
    doc = result.structured_content
    assert (doc["exit"], doc["kind"], doc["retryable"]) == (77, "product_only", False), doc
    assert name.replace("_", "-") in doc["error"] or name in doc["error"]
    assert tree_bytes(brain) == before and not signal_docs(brain)


def test_an_agent_trigger_with_an_ordinary_signal_still_opens(brain: Path) -> None:
    """The refusal is for the product's types only: a BLOCKED_ON or READY_FOR_REVIEW trigger is the agent's own."""
    pilot = ok(run_bsi("claim", "open", "--scope", "docs/", "--type", "pilote", "--agent-session", B, brain=brain))

    async def body(mcp: Client) -> Any:
        opened = await mcp.call_tool("claim_open", {"scope": ["docs/a.md"], "parent": pilot,
                                                    "on_done": "signal → READY_FOR_REVIEW pilote"})
        closed = await mcp.call_tool("claim_close", {"sess_id": opened.structured_content["sess_id"],
                                                     "status": "ok"})
        return opened, closed

    opened, closed = serve(brain, body, CLAUDE_CODE_SESSION_ID=B)
    assert not opened.is_error and not closed.is_error, (opened.structured_content, closed.structured_content)
    assert [s["type"] for s in signal_docs(brain)] == ["READY_FOR_REVIEW"]


@pytest.mark.parametrize("scope", [["a" * 100_000], ["docs/" + "b" * 70_000 + ".md#Section"]])
def test_a_scope_too_long_for_a_claim_file_is_invalid_not_an_internal_error(brain: Path, scope: list[str]) -> None:
    """SPEC 13: a bad scope exits 65 with one line; before, the claim file's size check raised an internal error
    (exit 70, `CorruptYaml`) past 64 KiB instead of saying the claim was too large."""
    before = tree_bytes(brain)

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("claim_open", {"scope": scope, "story": "long"})

    result = serve(brain, body, CLAUDE_CODE_SESSION_ID=B)
    doc = result.structured_content
    assert result.is_error and (doc["exit"], doc["kind"], doc["retryable"]) == (65, "invalid", False), doc
    assert "KiB" in doc["error"] and len(doc["error"]) < 600
    assert tree_bytes(brain) == before


@pytest.mark.parametrize("file", ["a" * 300, "deep/" * 50 + "x.md", "é" * 120],
                         ids=["long-name", "deep-path", "non-ascii"])
def test_a_path_too_long_to_lock_is_invalid_not_an_internal_error(brain: Path, file: str) -> None:
    """SPEC 9/13: the lock file is named by the percent-encoded path; one longer than a file name may be (255
    bytes) was an OSError, refused as an internal error (exit 70). It is bad input: 65, nothing written."""
    async def opened(mcp: Client) -> Any:
        return await mcp.call_tool("claim_open", {"scope": ["*"], "story": "all"})

    assert not serve(brain, opened, CLAUDE_CODE_SESSION_ID=B).is_error
    before = tree_bytes(brain)

    async def body(mcp: Client) -> Any:
        return await mcp.call_tool("lock_acquire", {"file": file})

    result = serve(brain, body, CLAUDE_CODE_SESSION_ID=B)
    doc = result.structured_content
    assert result.is_error and (doc["exit"], doc["kind"], doc["retryable"]) == (65, "invalid", False), doc
    assert "lock" in doc["error"] and len(doc["error"]) < 600
    assert tree_bytes(brain) == before
    assert not list((brain / "locks").glob(".bsi-tmp-*"))


def test_an_agent_locks_only_files_its_own_claim_may_write(brain: Path) -> None:
    """SPEC 21.4: an agent acts for its own claims only. A lock on a file of another session's scope acted
    against that session: before, B's claim on src/ locked docs/b.md, held by A, and A's preflight of its own
    file was refused (2, locked) for up to 8 h, with no way for A to release it (2, not the holder)."""
    other = ok(run_bsi("claim", "open", "--scope", "docs/", "--agent-session", A_SESSION, brain=brain))

    async def body(mcp: Client) -> Any:
        opened = await mcp.call_tool("claim_open", {"scope": ["src/"], "story": "mine"})
        return opened, [await mcp.call_tool("lock_acquire", {"file": f, "ttl_min": 480})
                        for f in ("docs/b.md", "./DOCS//b.md", "README.md", "src/a.py")]

    opened, (theirs, spelled, nobodys, mine) = serve(brain, body, now=live_now(), CLAUDE_CODE_SESSION_ID=B)
    assert not opened.is_error
    for refused in (theirs, spelled, nobodys):
        doc = refused.structured_content
        assert refused.is_error and (doc["exit"], doc["kind"], doc["retryable"]) == (1, "preflight", False), doc
        assert "outside the scope" in doc["error"]
    assert other in theirs.structured_content["error"]  # the refusal names the holder
    assert not mine.is_error and mine.structured_content["holder"] == opened.structured_content["sess_id"]
    assert sorted(p.name for p in (brain / "locks").glob("*.yml")) == ["src%2Fa.py.yml"]
    assert ok(run_bsi("preflight", "check", other, "docs/b.md", brain=brain)) is not None


def test_an_agent_locks_no_file_its_claim_may_not_write_even_in_its_scope(brain: Path) -> None:
    """SPEC 21.4: a claim's scope may name a protocol folder or git's own files, yet its agent may never write them
    (preflight refuses, code 1); it locked them all the same, holding records over files only bsi or a human
    writes."""
    before = sorted(p.name for p in (brain / "locks").iterdir())
    files = ["claims/sess-20261129-1000-zzzz.yml", "BRAIN-INDEX.md", ".brain/lock", ".git/config",
             "signals/x.yml"]

    async def body(mcp: Client) -> Any:
        opened = await mcp.call_tool("claim_open", {"scope": ["claims/", "BRAIN-INDEX.md", ".brain/", ".git/",
                                                              "signals/", "src/"]})
        return opened, [await mcp.call_tool("lock_acquire", {"file": f}) for f in files], \
            await mcp.call_tool("lock_acquire", {"file": "src/a.py"})

    opened, refused, mine = serve(brain, body, now=live_now(), CLAUDE_CODE_SESSION_ID=B)
    assert not opened.is_error, opened
    for result in refused:
        doc = result.structured_content
        assert result.is_error and (doc["exit"], doc["kind"], doc["retryable"]) == (1, "preflight", False), doc
    assert not mine.is_error
    assert sorted(p.name for p in (brain / "locks").iterdir()) == sorted([*before, "src%2Fa.py.yml"])


def test_releasing_another_claims_lock_is_refused_as_not_worth_trying_again(brain: Path) -> None:
    """A lock held by another claim is not the caller's to release, now or later (SPEC 9, 21.4): the refusal names
    the holder and says `retryable: false`. Before, it came as exit 2 with `retryable: true` (what a lock_acquire
    that waits for the lock is told), and an agent following it called lock_release again and again."""
    now = live_now()
    other = ok(run_bsi("claim", "open", "--scope", "docs/", "--agent-session", A_SESSION, brain=brain, now=now))
    ok(run_bsi("lock", "acquire", "docs/b.md", other, brain=brain, now=now))
    before = sorted((p.name, p.read_bytes()) for p in (brain / "locks").glob("*.yml"))

    async def body(mcp: Client) -> Any:
        await mcp.call_tool("claim_open", {"scope": ["src/"], "story": "mine"})
        return await mcp.call_tool("lock_release", {"file": "docs/b.md"})

    refused = serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=B)
    doc = refused.structured_content
    assert refused.is_error and (doc["exit"], doc["retryable"]) == (2, False), doc
    assert doc["holder"] == other and other in doc["error"]
    assert sorted((p.name, p.read_bytes()) for p in (brain / "locks").glob("*.yml")) == before  # still the holder's
