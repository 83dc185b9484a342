"""Codex CLI 0.171.0's hook events and environments, as the real CLI gave them (SPEC 20.1, 20.2, 21.3).

Seen with `codex exec` against a fake Responses API (tests/e2e_codex runs it where a `codex` binary is):
a hook's environment names no session (no ``CODEX_THREAD_ID``; ``CODEX_MANAGED_BY_NPM=1`` when npm installed
it), its stdin does (``session_id``); `exec_command` reaches the hook as ``tool_name: Bash`` with
``tool_input.command`` only, its ``workdir`` as the event's ``cwd``; `apply_patch` as
``tool_input.command`` = the patch, its paths relative. The shell gets ``CODEX_THREAD_ID`` and
``CODEX_SESSION_ID`` (both the hook's ``session_id``), so a claim it opens with `bsi` binds to the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.sessions import agents
from tests.bsi import BRAIN_AND_GIT, bsi_command, clean_env, ok, run_bsi
from tests.clock import live_now
from tests.hooks.fake_agent import FakeAgent

SESSION = "01a24d97-42c1-75f2-80ab-fd40106640e9"


def hook_env() -> dict[str, str]:
    """What Codex gives a hook command: markers of its launcher, no session ID."""
    base = clean_env(drop=(*BRAIN_AND_GIT, "CLAUDE*", "GEMINI*", "CODEX*", "BSI_*"))
    return {**base, "CODEX_MANAGED_BY_NPM": "1", "CODEX_MANAGED_PACKAGE_ROOT": "/usr/lib/node_modules/@openai/codex"}


def shell_env() -> dict[str, str]:
    """What Codex gives an `exec_command` command."""
    return {**hook_env(), "CODEX_CI": "1", "CODEX_THREAD_ID": SESSION, "CODEX_SESSION_ID": SESSION,
            "CODEX_TOOL_CALL_ID": "call_0", "CODEX_VERSION": "0.171.0", "CODEX_APPLY_PATCH_PRESERVE_LINE_ENDINGS": "1"}


def event(cwd: Path, tool: str, command: str) -> dict[str, Any]:
    """A PreToolUse event as Codex 0.171.0 sends it."""
    return {"session_id": SESSION, "turn_id": "01a24d97-42c9-7d30-8f7c-6b1b2d7e0d11",
            "transcript_path": f"/home/u/.codex/sessions/2026/12/06/rollout-2026-12-06T23-01-28-{SESSION}.jsonl",
            "cwd": str(cwd), "hook_event_name": "PreToolUse", "model": "gpt-5.5",
            "permission_mode": "bypassPermissions", "tool_name": tool, "tool_input": {"command": command},
            "tool_use_id": "call_2"}


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch", ""])


def pre_tool_use(agent: FakeAgent, brain: Path, ev: dict[str, Any]) -> Any:
    argv = bsi_command(brain=None, now=live_now()) + ["hook", "pre-tool-use", "--agent", "codex"]
    return agent.run(argv, json.dumps(ev), env=hook_env(), cwd=brain)


@pytest.fixture
def codex(tmp_path: Path) -> Iterator[FakeAgent]:
    agent = FakeAgent(tmp_path / "c", "codex")
    yield agent
    agent.close()


def test_a_shell_write_from_codexs_workdir_is_judged_in_that_folder(brain: Path, codex: FakeAgent) -> None:
    ok(run_bsi("claim", "open", "--scope", "notes/", "--story", "a human's", "--slug", "held", brain=brain,
               now=live_now()))
    denied = pre_tool_use(codex, brain, event(brain / "notes", "Bash", "echo x >> held.md"))
    assert denied.returncode == 2, denied
    reason = json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "notes/held.md" in reason and "holds notes/" in reason and "-held" in reason
    allowed = pre_tool_use(codex, brain, event(brain / "notes", "Bash", "echo x >> ../free.md"))
    assert allowed.returncode == 0 and "permissionDecision" not in allowed.stdout, allowed


def test_a_claim_opened_in_codexs_shell_is_its_sessions(brain: Path, codex: FakeAgent) -> None:
    opened = codex.run(bsi_command("claim", "open", "--scope", "work/", "--story", "mine", brain=brain,
                                   now=live_now()), env=shell_env(), cwd=brain)
    assert opened.returncode == 0, opened.stderr
    sess = opened.stdout.strip()
    assert agents.bound_claims(brain, SESSION) == [sess]
    inside = pre_tool_use(codex, brain, event(brain, "apply_patch", patch("*** Add File: work/a.md", "+a")))
    assert inside.returncode == 0 and inside.stdout == "", inside
    outside = pre_tool_use(codex, brain, event(brain, "apply_patch", patch("*** Add File: free.md", "+a")))
    assert outside.returncode == 2 and "scope violation" in outside.stdout and sess in outside.stdout, outside
