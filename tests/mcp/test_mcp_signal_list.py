"""`signal_list` answers what `bsi signal list --json` answers (SPEC 20.3): the same signals for a destination
(`sess@machine` and the instance's broadcasts included), no archived signal unless asked, a blank destination
refused (65), never every session's signals instead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from tests.bsi import ok, run_bsi
from tests.mcp.test_mcp_server import in_process

LATER = "2026-11-30T12:00:00Z"


def cli_list(brain: Path, *flags: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(ok(run_bsi("--json", "signal", "list", *flags, brain=brain, now=LATER)))
    return doc


@pytest.fixture
def signals(brain: Path) -> str:
    """A claim with a broadcast to its instance, a signal to `sess@machine`, and an archived signal to the pilot."""
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", brain=brain))
    instance = json.loads(ok(run_bsi("--json", "claim", "show", sess, brain=brain)))["instance"]
    ok(run_bsi("signal", "send", "--to", instance, "--type", "INFO", "to the instance", brain=brain))
    ok(run_bsi("signal", "send", "--to", f"{sess}@{instance.split('@')[1]}", "--type", "INFO", "to sess@machine",
               brain=brain))
    old = ok(run_bsi("signal", "send", "--to", "pilote", "--type", "INFO", "old", brain=brain))
    ok(run_bsi("signal", "ack", old, brain=brain))
    ok(run_bsi("signal", "archive", brain=brain, now=LATER))
    return sess


def test_signal_list_is_the_cli_listing(brain: Path, signals: str) -> None:
    asks = [({}, ()), ({"to": signals}, ("--to", signals)), ({"pending": True}, ("--pending",))]

    async def body(client: Client) -> Any:
        return [await client.call_tool("signal_list", args) for args, _flags in asks]

    results = in_process(brain, body)
    for (args, flags), result in zip(asks, results, strict=True):
        assert not result.is_error, result.structured_content
        assert result.structured_content == cli_list(brain, *flags), args
    assert len(results[1].structured_content["signals"]) == 2  # the broadcast and the sess@machine one


def test_a_blank_destination_is_refused_like_the_cli(brain: Path, signals: str) -> None:
    async def body(client: Client) -> Any:
        return await client.call_tool("signal_list", {"to": " "})

    result = in_process(brain, body)
    assert result.is_error and result.structured_content["exit"] == 65, result.structured_content


def test_a_copied_signal_file_is_listed_once_and_its_copy_as_a_corrupt_row(brain: Path) -> None:
    """A copy of `signals/<ID>.yml` under another name is one corrupt row, not a second signal of the ID."""
    sig = ok(run_bsi("signal", "send", "--to", "pilote", "--type", "INFO", "once", brain=brain))
    (brain / "signals" / f"copy-{sig}.yml").write_bytes((brain / "signals" / f"{sig}.yml").read_bytes())

    async def body(client: Client) -> Any:
        return await client.call_tool("signal_list", {"pending": True})

    result = in_process(brain, body)
    assert not result.is_error, result.structured_content
    assert [s["sig_id"] for s in result.structured_content["signals"]] == [sig]
    assert [c["path"] for c in result.structured_content["corrupt"]] == [f"signals/copy-{sig}.yml"]
