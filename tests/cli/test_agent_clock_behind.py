"""An agent's clock set behind does not keep alive a claim that ran out (SPEC 3, 6.3, 10, 21).

`--now` and `$BRAIN_NOW` are for a human's tests and demos. A claim past its expiry by the machine's clock is stale
and blocks until a human releases it, marked by the watchdog or not. In an agent's process the write decision (the
hooks, `bsi preflight check`), `bsi lock acquire` and `bsi gate request` judge the claim at the later of the given
clock and the machine's: at a clock behind, an expired claim writes nothing, locks nothing and raises no gate. A
human's process keeps the clock it is given.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.bsi import INHERITED_ENV, bsi_at, clean_env, run_bsi
from tests.conftest import tree_bytes
from tests.hooks.test_hook_index import settle

FILE = "delta/x.md"

bsi = bsi_at(None, env=INHERITED_ENV, timeout=None)
AGENT = clean_env(CLAUDECODE="1")


def at(minutes: int) -> str:
    """The system clock `minutes` from now (negative: ago), as `--now` takes it."""
    return (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat(timespec="seconds")


def _brain(tmp_path: Path, opened: int, ttl: str) -> tuple[Path, str]:
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None).code == 0
    proc = bsi(root, "claim", "open", "--scope", "delta/", "--ttl", ttl, "--slug", "delta", now=at(opened))
    assert proc.code == 0, proc.err
    return root, proc.out.strip()


@pytest.fixture
def expired(tmp_path: Path) -> tuple[Path, str]:
    """A brain at the real clock holding one claim opened 3 h ago for 1 h, never marked stale by a watchdog."""
    return _brain(tmp_path, -180, "1h")


#: The clock behind: ten minutes after the expired claim was opened, when it was still alive.
BEHIND = -170


def _edit(root: Path) -> str:
    """Claude Code's PreToolUse event for an edit of a file of the claim's scope."""
    return json.dumps({"session_id": "0f8e2a4c-7b1d-4e9a-a3c5-6d2f1b0e9c87", "cwd": str(root),
                       "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_01ABC",
                       "tool_input": {"file_path": str(root / FILE), "old_string": "a", "new_string": "b"}})


def _hook(root: Path, env: dict[str, str]) -> tuple[int, str]:
    proc = run_bsi("hook", "pre-tool-use", brain=root, now=None, env=env, input=_edit(root))
    assert "Traceback" not in proc.err, proc
    return proc.code, proc.out


def test_an_agents_hook_denies_a_write_of_a_claim_expired_by_the_machines_clock(expired: tuple[Path, str]) -> None:
    """Whether the hook index vouches for the brain (the shortcut) or not (the full decision), at a `$BRAIN_NOW`
    behind (a client an agent's shell started with it runs its hooks with it) the write is denied."""
    root, sess = expired
    env = {**AGENT, "BSI_SESSION": sess, "BRAIN_NOW": at(BEHIND)}
    code, out = _hook(root, env)
    assert code == 2 and "stale" in out, out
    settle(root)
    for _ in range(2):
        code, out = _hook(root, env)
        assert code == 2 and "stale" in out, out


def test_an_agents_preflight_refuses_a_claim_expired_by_the_machines_clock(expired: tuple[Path, str]) -> None:
    root, sess = expired
    proc = bsi(root, "preflight", "check", sess, FILE, now=at(BEHIND), env={**AGENT, "BSI_SESSION": sess})
    assert proc.code == 4, proc
    assert "stale" in proc.err and "Traceback" not in proc.err


def test_an_agent_locks_nothing_for_a_claim_expired_by_the_machines_clock(expired: tuple[Path, str]) -> None:
    root, sess = expired
    before = tree_bytes(root)
    proc = bsi(root, "lock", "acquire", FILE, sess, "30", now=at(BEHIND), env={**AGENT, "BSI_SESSION": sess})
    assert proc.code == 12, proc
    assert "stale" in proc.err and "Traceback" not in proc.err
    assert tree_bytes(root) == before


def test_an_agent_raises_no_gate_on_a_claim_expired_by_the_machines_clock(expired: tuple[Path, str]) -> None:
    """The pilot would be asked to decide a gate of a dead claim (a HUMAN_GATE signal): refused, nothing written."""
    root, sess = expired
    before = tree_bytes(root)
    proc = bsi(root, "gate", "request", sess, "review", now=at(BEHIND),
               env={**AGENT, "BSI_SESSION": sess})
    assert proc.code == 12, proc
    assert "stale" in proc.err and "Traceback" not in proc.err
    assert tree_bytes(root) == before


def test_a_human_keeps_the_clock_given(expired: tuple[Path, str]) -> None:
    """A human simulates any time: at the clock behind the claim is alive, its write goes (the hook's decision:
    `$BSI_SESSION` marks an agent's process), its lock and gate too."""
    root, sess = expired
    assert bsi(root, "preflight", "check", sess, FILE, now=at(BEHIND)).code == 0
    assert bsi(root, "lock", "acquire", FILE, sess, "30", now=at(BEHIND)).code == 0
    assert bsi(root, "gate", "request", sess, "review", now=at(BEHIND)).code == 0


def test_an_agent_at_the_machines_clock_writes_with_a_live_claim(tmp_path: Path) -> None:
    root, sess = _brain(tmp_path, -10, "2h")
    env = {**AGENT, "BSI_SESSION": sess}
    code, out = _hook(root, env)
    assert code == 0, out
    settle(root)
    code, out = _hook(root, env)
    assert code == 0, out
    assert bsi(root, "preflight", "check", sess, FILE, env=env).code == 0
    assert bsi(root, "lock", "acquire", FILE, sess, "30", env=env).code == 0
    assert bsi(root, "gate", "request", sess, "review", env=env).code == 0
