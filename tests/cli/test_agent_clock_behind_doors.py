"""The other doors an agent's clock set behind might open for a claim the machine's clock ran out (SPEC 3, 6.3, 20, 21).

`tests/cli/test_agent_clock_behind.py` covers the write decision, `preflight check`, `lock acquire` and `gate request`
from an agent's shell. Here the other ways a blocked agent tries: its MCP tools (a server acts as an agent whatever
its process), a renew, a lock it already holds, the hooks of Codex and Gemini CLI, its Bash tool, and what the
session-start hook tells it. Each is judged at the later of the given clock and the machine's (`authority.judged`).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import INHERITED_ENV, clean_env, run_bsi
from tests.cli.test_agent_clock_behind import AGENT, BEHIND, FILE, _brain, at, bsi
from tests.conftest import tree_bytes

SESSION = "0f8e2a4c-7b1d-4e9a-a3c5-6d2f1b0e9c87"


@pytest.fixture
def expired(tmp_path: Path) -> tuple[Path, str]:
    """A brain at the real clock holding one claim opened 3 h ago for 1 h, never marked stale by a watchdog."""
    return _brain(tmp_path, -180, "1h")


def _hook(root: Path, event: str, payload: dict[str, Any], env: dict[str, str], *args: str) -> tuple[int, str]:
    proc = run_bsi("hook", event, *args, brain=root, now=None, env=env, input=json.dumps(payload))
    assert "Traceback" not in proc.err, proc
    return proc.code, proc.out + proc.err


def _behind(sess: str, **extra: str) -> dict[str, str]:
    """An agent's environment bound to `sess`, its `$BRAIN_NOW` behind the machine's clock."""
    return {**AGENT, "BSI_SESSION": sess, "BRAIN_NOW": at(BEHIND), **extra}


def test_a_shell_command_writing_in_scope_is_denied(expired: tuple[Path, str]) -> None:
    root, sess = expired
    payload = {"session_id": SESSION, "cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_use_id": "toolu_01ABD", "tool_input": {"command": f"echo hi > {FILE}"}}
    code, out = _hook(root, "pre-tool-use", payload, _behind(sess))
    assert code == 2 and "stale" in out, out


def test_codexs_hook_denies_a_patch_at_a_clock_behind(expired: tuple[Path, str]) -> None:
    root, sess = expired
    env = _behind(sess, CODEX_THREAD_ID="019a0000-0000-7000-8000-000000000001")
    env.pop("CLAUDECODE")
    payload = {"session_id": "019a0000-0000-7000-8000-000000000001", "turn_id": "1", "cwd": str(root),
               "hook_event_name": "PreToolUse", "model": "gpt-5.5", "permission_mode": "bypassPermissions",
               "tool_name": "apply_patch", "tool_use_id": "call_1",
               "tool_input": {"command": f"*** Begin Patch\n*** Add File: {FILE}\n+hi\n*** End Patch\n"}}
    code, out = _hook(root, "pre-tool-use", payload, env, "--agent", "codex")
    assert code == 2 and "stale" in out, out


def test_geminis_hook_denies_a_write_at_a_clock_behind(expired: tuple[Path, str]) -> None:
    root, sess = expired
    env = _behind(sess, GEMINI_SESSION_ID="gem-1", GEMINI_PROJECT_DIR=str(root))
    env.pop("CLAUDECODE")
    payload = {"session_id": "gem-1", "cwd": str(root), "hook_event_name": "BeforeTool", "timestamp": at(0),
               "tool_name": "write_file", "tool_input": {"file_path": str(root / FILE), "content": "x"}}
    code, out = _hook(root, "pre-tool-use", payload, env, "--agent", "gemini")
    assert '"deny"' in out and "stale" in out, (code, out)


def test_session_start_tells_a_claim_that_ran_out_it_is_stale(expired: tuple[Path, str]) -> None:
    """Before: "status open; TTL left 50 min" at the clock behind, to an agent whose every write is then refused."""
    root, sess = expired
    payload = {"session_id": SESSION, "cwd": str(root), "hook_event_name": "SessionStart", "source": "startup"}
    code, out = _hook(root, "session-start", payload, _behind(sess))
    assert code == 0, out
    told = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert f"BSI claim {sess}: status stale;" in told and "TTL over by" in told, told
    assert "claims 1 stale" in told and "TTL left" not in told, told


def test_a_lock_it_holds_is_not_taken_again(expired: tuple[Path, str]) -> None:
    root, sess = expired
    assert bsi(root, "lock", "acquire", FILE, sess, "300", now=at(BEHIND - 5)).code == 0  # earlier, a human's
    before = tree_bytes(root)
    proc = bsi(root, "lock", "acquire", FILE, sess, "300", now=at(BEHIND), env={**AGENT, "BSI_SESSION": sess})
    assert proc.code == 12 and "stale" in proc.err, proc
    assert tree_bytes(root) == before


@pytest.mark.parametrize("ttl", ["1h", "5h"])
def test_an_agent_renews_no_claim_that_ran_out(expired: tuple[Path, str], ttl: str) -> None:
    """Before: renewed (0) to an expiry still past by the machine's clock, or refused as a release (77) when the
    new expiry would make it live again. A stale claim is not renewed (SPEC 6.3): 12, as at the machine's clock."""
    root, sess = expired
    before = tree_bytes(root)
    proc = bsi(root, "claim", "renew", sess, "--ttl", ttl, now=at(BEHIND), env={**AGENT, "BSI_SESSION": sess})
    assert proc.code == 12 and "stale" in proc.err, proc
    assert tree_bytes(root) == before


def test_an_mcp_server_judges_its_claim_at_the_machines_clock(tmp_path: Path) -> None:
    """An MCP server acts as an agent (SPEC 20.3, 21) whatever its process shows (Gemini CLI's gets no marker, an
    inspector's none): preflight, lock, gate and renew refuse a claim that ran out, at a clock behind."""
    from mcp.client.client import Client

    from brain_tui.mcp.server import build_server
    from brain_tui.mcp.tools import Session
    from tests.mcp.test_mcp_own_session import A

    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None).code == 0
    sess = bsi(root, "claim", "open", "--scope", "delta/", "--ttl", "1h", "--agent-session", A,
               now=at(-180)).out.strip()
    before = tree_bytes(root)
    env = {k: v for k, v in clean_env().items() if not k.startswith(("CLAUDE", "GEMINI", "CODEX", "BSI_"))}
    session = Session(root, now=at(BEHIND), environ={**env, "CLAUDE_CODE_SESSION_ID": A}, client="client-a")
    calls = [("preflight", {"file": FILE}), ("lock_acquire", {"file": FILE}), ("gate_request", {"message": "go?"}),
             ("claim_renew", {}), ("claim_renew", {"ttl": "5h"})]

    async def main() -> list[Any]:
        async with Client(build_server(session)) as mcp:
            return [await mcp.call_tool(name, {"sess_id": sess, **args}) for name, args in calls]

    for (name, _), result in zip(calls, asyncio.run(main()), strict=True):
        doc = result.structured_content
        assert result.is_error and doc["exit"] in (4, 12) and "stale" in doc["error"], (name, doc)
    assert tree_bytes(root) == before
