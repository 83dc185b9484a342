"""A refusal by a stale holder says who frees it: a human's release, never a signal to a session that stopped.

A stale claim blocks until a human releases it (SPEC 6.3, 5.3): BLOCKED_ON to its session reaches no one at work.
The unbound hook's refusal, a bound session's refusal inside another claim, and a refused `claim open` say so.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.bsi import NOW, clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import assert_denied, event, hook

LATE = "2026-11-29T20:00:00+00:00"  # the first claim's 2 h are long over


def _stale(brain: Path) -> str:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--slug", "gone", brain=brain, now=NOW))
    ok(run_bsi("watchdog", brain=brain, now=LATE))
    return sess


def test_the_unbound_hook_names_the_human_release_for_a_stale_holder(brain: Path) -> None:
    sess = _stale(brain)
    env = clean_env(BRAIN_NOW=LATE)
    reason = assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py")), env=env),
                           sess)
    assert f"bsi claim release {sess}" in reason and "BLOCKED_ON" not in reason


def test_a_bound_session_refused_in_a_stale_claims_scope_is_told_the_release(brain: Path) -> None:
    sess = _stale(brain)
    mine = ok(run_bsi("claim", "open", "--scope", "docs/", "--agent-session", "aaaaaaaa-1111-4000-8000-00000000000a",
                      brain=brain, now=LATE))
    env = clean_env(BRAIN_NOW=LATE)
    reason = assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"),
                                                             session="aaaaaaaa-1111-4000-8000-00000000000a"),
                                env=env), sess)
    assert mine and f"bsi claim release {sess}" in reason and f"--to {sess} --type BLOCKED_ON" not in reason


def test_a_refused_open_over_a_stale_claim_suggests_the_release(brain: Path) -> None:
    sess = _stale(brain)
    refused = run_bsi("claim", "open", "--scope", "src/a.py", brain=brain, now=LATE)
    assert refused.code == 10
    assert f"bsi claim release {sess}" in refused.err and "--blocked-on" not in refused.err
    doc = run_bsi("--json", "claim", "open", "--scope", "src/a.py", brain=brain, now=LATE)
    assert json.loads(doc.out)["conflicts"][0]["status"] == "stale"
    live = ok(run_bsi("claim", "open", "--scope", "lib/", brain=brain, now=LATE))
    other = run_bsi("claim", "open", "--scope", "lib/x.py", brain=brain, now=LATE)
    assert live and "--blocked-on" in other.err  # a live holder: the signal still is the way
