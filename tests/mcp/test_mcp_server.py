"""`bsi mcp`: the protocol as MCP tools, driven in process and over real stdio with the SDK's client (SPEC 20.3)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from brain_tui.core.sessions import agents, own_tools
from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, bsi_command, clean_env, ok, run_bsi
from tests.clock import live_now
from tests.conftest import load_claim
from tests.hooks.test_pre_tool_use import assert_allowed, assert_denied, event, hook

AGENT = "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"
TOOLS = {"brain_state", "my_claim", "claim_open", "claim_renew", "claim_close", "claim_list", "check_scope",
         "preflight", "signal_send", "signal_list", "signal_ack", "gate_request", "gate_status", "lock_acquire",
         "lock_release"}
HUMAN_ONLY = {"gate_approve", "gate_reject", "gate_pause", "gate_resume", "gate_abort", "claim_release", "approve"}


def in_process(brain: Path, body: Callable[[Client], Awaitable[Any]], now: str = NOW, **environ: str) -> Any:
    session = Session(brain, now=now, environ={**clean_env(), **environ})

    async def main() -> Any:
        async with Client(build_server(session)) as client:
            return await body(client)

    return asyncio.run(main())


def test_tool_list_has_the_protocol_and_nothing_a_human_decides(brain: Path) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = in_process(brain, body)
    names = {t.name for t in tools}
    assert names == TOOLS and not names & HUMAN_ONLY
    assert names == own_tools.TOOLS  # what the hook and the installed matchers leave to this server
    gate = next(t for t in tools if t.name == "gate_request")
    assert "Returns at once" in (gate.description or "") and "wait" in (gate.description or "")
    assert next(t for t in tools if t.name == "claim_open").input_schema["required"] == ["scope"]


def test_granted_claim_is_bound_for_the_hooks(brain: Path) -> None:
    async def body(client: Client) -> Any:
        opened = await client.call_tool("claim_open", {"scope": ["src/"], "story": "via mcp"})
        mine = await client.call_tool("my_claim", {})
        return opened, mine

    opened, mine = in_process(brain, body, CLAUDE_CODE_SESSION_ID=AGENT)
    assert not opened.is_error
    sess = opened.structured_content["sess_id"]
    assert opened.structured_content["status"] == "open" and opened.structured_content["tier"] == 1
    assert json.loads(opened.content[0].text) == opened.structured_content
    assert mine.structured_content["sess_id"] == sess
    assert load_claim(brain, sess)["agent_session"] == AGENT
    assert agents.bound_claims(brain, AGENT) == [sess]
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "docs" / "a"), session=AGENT)), sess)
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a"), session=AGENT)))


def test_conflict_refusal_names_the_holder(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "first", brain=brain))

    async def body(client: Client) -> Any:
        return (await client.call_tool("claim_open", {"scope": ["src/api.py"], "story": "second"}),
                await client.call_tool("check_scope", {"scopes": ["src/api.py"]}),
                await client.call_tool("check_scope", {"scopes": ["docs/"]}))

    refused, check, free = in_process(brain, body)
    assert refused.is_error
    doc = refused.structured_content
    assert doc["exit"] == 10 and doc["kind"] == "conflict" and doc["retryable"] is False
    assert holder in doc["error"] and doc["conflicts"][0]["sess_id"] == holder
    assert {"error", "exit", "kind", "retryable", "conflicts"} <= set(doc)
    assert not check.is_error and check.structured_content["conflicts"][0]["sess_id"] == holder
    assert free.structured_content == {"conflicts": []}


def test_refusal_kinds_and_the_gate_flow(brain: Path) -> None:
    async def body(client: Client) -> Any:
        out = {}
        out["none"] = await client.call_tool("my_claim", {})
        out["bad"] = await client.call_tool("claim_open", {"scope": ["../etc"], "story": "x"})
        out["open"] = await client.call_tool("claim_open", {"scope": ["src/"], "story": "x", "satellite_type": "code",
                                                           "type": "satellite"})
        out["tier"] = await client.call_tool("claim_close", {"status": "ok"})
        out["gate"] = await client.call_tool("gate_request", {"message": "may I?"})
        out["pre"] = await client.call_tool("preflight", {"file": "src/a.py"})
        out["state"] = await client.call_tool("gate_status", {})
        return out

    out = in_process(brain, body, now=live_now())  # a gate request judges the claim at the machine's clock
    assert out["none"].is_error and out["none"].structured_content["kind"] == "not_found"
    assert out["none"].structured_content["exit"] == 66
    assert out["bad"].structured_content["exit"] == 65 and out["bad"].structured_content["kind"] == "invalid"
    assert out["tier"].structured_content["exit"] == 11 and out["tier"].structured_content["kind"] == "tier"
    assert not out["gate"].is_error and out["gate"].structured_content["status"] == "waiting_human"
    assert out["pre"].is_error and out["pre"].structured_content["exit"] == 4
    assert out["state"].structured_content["claim"]["status"] == "waiting_human"


def test_brain_state_and_hostile_text_is_inert(brain: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "src/", "--story", "\x1b[2J\u202eboom", brain=brain))

    async def body(client: Client) -> Any:
        return await client.call_tool("brain_state", {}), await client.call_tool("claim_list", {})

    state, listed = in_process(brain, body)
    assert not state.is_error and {"hostname", "instance", "git", "pm2", "ports", "system"} <= set(
        state.structured_content)
    story = listed.structured_content["claims"][0]["story_angle"]
    assert "\x1b" not in story and "\u202e" not in story and "⟨ESC⟩" in story and "⟨U+202E⟩" in story


def test_real_stdio_initialize_list_and_call(brain: Path) -> None:
    env = {**clean_env(), "CLAUDE_CODE_SESSION_ID": AGENT}
    command, *args = bsi_command("mcp", brain=brain, now=NOW)
    params = StdioServerParameters(command=command, args=args, env=env, cwd=str(brain))

    async def main() -> Any:
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            opened = await client.call_tool("claim_open", {"scope": ["lib/"], "story": "stdio"})
            state = await client.call_tool("brain_state", {})
            return tools, opened, state

    tools, opened, state = asyncio.run(main())
    assert {t.name for t in tools} == TOOLS
    assert not opened.is_error and not state.is_error
    assert load_claim(brain, opened.structured_content["sess_id"])["agent_session"] == AGENT


def exchange(brain: Path, messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """Raw JSON-RPC lines to a real `bsi mcp`, one request at a time: every line it wrote, and its stderr."""
    proc = subprocess.Popen(bsi_command("mcp", brain=brain, now=NOW), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=clean_env())
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    lines: list[dict[str, Any]] = []
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            while "id" in message and not any(line.get("id") == message["id"] for line in lines):
                line = proc.stdout.readline()
                assert line, "the server closed stdout"
                lines.append(json.loads(line))
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        err = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    return lines, err


def test_stdout_carries_only_json_rpc(brain: Path) -> None:
    """Raw JSON-RPC lines in, and every line out parses as a JSON-RPC message (a git commit ran in between)."""
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "claim_open", "arguments": {"scope": ["a/"], "story": "raw"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "claim_open", "arguments": {"scope": ["a/b"], "story": "conflict"}}},
    ]
    lines, _err = exchange(brain, messages)
    assert lines and all(line.get("jsonrpc") == "2.0" for line in lines)
    replies = {line["id"]: line for line in lines if "id" in line}
    assert set(replies) == {1, 2, 3, 4}
    assert replies[3]["result"]["isError"] is False
    assert replies[4]["result"]["isError"] is True and replies[4]["result"]["structuredContent"]["exit"] == 10


def test_an_unknown_prompt_or_resource_is_a_clean_error_without_a_traceback(brain: Path) -> None:
    """The server has no prompts and one resource: asking for another gets INVALID_PARAMS in one line on the
    wire, and nothing on stderr (a client shows the server's stderr to its user)."""
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "nope\x1b[31m"}},
        {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "brain://nope"}},
        {"jsonrpc": "2.0", "id": 4, "method": "prompts/list"},
    ]
    lines, err = exchange(brain, messages)
    replies = {line["id"]: line for line in lines if "id" in line}
    for request in (2, 3):
        error = replies[request]["error"]
        assert error["code"] == -32602 and "\x1b" not in error["message"], error
    assert replies[4]["result"]["prompts"] == []
    assert "Traceback" not in err and "raised" not in err, err
