"""`bsi --now T hook pre-tool-use` judges a bound session's claim at T, whatever clock built the hook index.

The index holds each claim's status as written and its deadline, never a verdict: an index built at the machine's
clock (a hook run without `--now`, `bsi index`) cannot refuse, at a T before the deadline, a claim the machine's
clock has run past. In a human's process T stands; in a hook a client runs (`CLAUDE_CODE_SESSION_ID`: an agent's
process) a T behind the machine's clock does not keep alive a claim that ran out (SPEC 3, exit-code table: 77).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.bsi import BRAIN_AND_GIT, clean_env, ok, run_bsi
from tests.hooks.test_hook_index import settle

SESSION = "0f8e2a4c-7b1d-4e9a-a3c5-6d2f1b0e9c87"
HUMAN = clean_env(drop=(*BRAIN_AND_GIT, "CLAUDE*", "GEMINI*", "CODEX*", "BSI_*"), identity="Test")


def at(minutes: int) -> str:
    """The machine's clock `minutes` from now (negative: ago)."""
    return (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat(timespec="seconds")


def _write(root: Path) -> str:
    return json.dumps({"session_id": SESSION, "cwd": str(root), "hook_event_name": "PreToolUse",
                       "tool_name": "Write", "tool_use_id": "toolu_01",
                       "tool_input": {"file_path": str(root / "delta" / "x.md"), "content": "x"}})


def _hook(root: Path, now: str, env: dict[str, str]) -> tuple[int, str]:
    proc = run_bsi("hook", "pre-tool-use", brain=root, now=now, env=env, input=_write(root))
    assert "Traceback" not in proc.err, proc
    return proc.code, proc.out


def _brain(tmp_path: Path) -> Path:
    """A claim bound to the agent session, opened 3 h ago for 1 h: expired by the machine's clock."""
    root = tmp_path / "brain"
    ok(run_bsi("init", str(root), now=None, env=HUMAN))
    ok(run_bsi("claim", "open", "--scope", "delta/", "--ttl", "1h", "--slug", "delta", "--agent-session", SESSION,
               brain=root, now=at(-180), env=HUMAN))
    return root


def test_a_human_hook_at_a_clock_behind_lets_the_bound_session_write(tmp_path: Path) -> None:
    root = _brain(tmp_path)
    behind = at(-170)
    assert _hook(root, behind, HUMAN)[0] == 0  # the full decision
    settle(root)  # an index built by hooks at the machine's clock
    for _ in range(2):
        assert _hook(root, behind, HUMAN)[0] == 0
    ok(run_bsi("index", brain=root, now=None, env=HUMAN))
    assert _hook(root, behind, HUMAN)[0] == 0
    assert _hook(root, at(0), HUMAN)[0] == 2  # at the machine's clock the claim ran out


def test_a_clients_hook_judges_the_claim_at_the_machines_clock(tmp_path: Path) -> None:
    root = _brain(tmp_path)
    client = {**HUMAN, "CLAUDE_CODE_SESSION_ID": SESSION, "CLAUDE_PROJECT_DIR": str(root)}
    code, out = _hook(root, at(-170), client)
    assert code == 2 and "stale (expired while open)" in out, out
