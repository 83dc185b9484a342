"""The hook's shortcut (`hooks.fast`) with a settled index says go only where `Brain.decide_write` does: a call the
core refuses whatever the claims say is left to the core, for a bound session whose claim acts and for an unbound one.

A command handed to a process outside the agent's own (`tmux send-keys` into the pilot's terminal, `at`) writes no
file the line shows, and a `.git` made in a folder of the brain is no protocol path: judged on the index's claims
alone, both passed the shortcut once the index was warm, though the core refuses them (the first could type
`bsi gate resume` as the human).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain_tui.hooks import fast
from tests.bsi import NOW
from tests.hooks.test_client_tools import pre_tool_use
from tests.hooks.test_hook_index import settle
from tests.hooks.test_pre_tool_use import (  # noqa: F401
    AGENT,
    _bound_template,
    assert_allowed,
    assert_denied,
    bound,
)

STRANGER = "5a1c9e0d-2b3f-4c6d-8e7f-9a0b1c2d3e4f"  # a session holding no claim (unclaimed writes: warn)

REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("Bash", {"command": "tmux send-keys -t pilot 'bsi gate resume x' Enter"}, "outside this agent's own"),
    ("Bash", {"command": "echo 'bsi gate approve x' | at now"}, "outside this agent's own"),
    ("Bash", {"command": "echo 'gitdir: ../.git' > src/.git"}, "`.git` inside the brain"),
    ("Bash", {"command": "mkdir -p src/sub/.git/hooks"}, "`.git` inside the brain"),
    ("Write", {"file_path": "src/.git", "content": "gitdir: ../.git\n"}, "`.git` inside the brain"),
    ("Write", {"file_path": "src/sub/.GIT/config", "content": "[core]\n"}, "`.git` inside the brain"),
]


def _payload(brain: Path, tool: str, tool_input: dict[str, Any], session: str) -> dict[str, Any]:
    return {"session_id": session, "cwd": str(brain), "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input}


@pytest.mark.parametrize("session", [AGENT, STRANGER], ids=["bound", "unbound"])
def test_a_call_only_the_core_refuses_is_left_to_it(bound: tuple[Path, str], session: str) -> None:  # noqa: F811
    brain, _sess = bound
    settle(brain)
    for tool, tool_input, words in REFUSED:
        assert fast.decide(_payload(brain, tool, tool_input, session), {"brain": str(brain), "now": NOW}, {}) \
            is None, (tool, tool_input)
        assert_denied(pre_tool_use(brain, tool, tool_input, session=session), words)
    # the shortcut still answers a plain write of the claim's own file
    plain = {"file_path": "src/app.py", "content": "x"}
    assert fast.decide(_payload(brain, "Write", plain, AGENT), {"brain": str(brain), "now": NOW}, {}) == (0, "", "")
    assert_allowed(pre_tool_use(brain, "Write", plain))
