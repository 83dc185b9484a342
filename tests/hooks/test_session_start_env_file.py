"""`session-start` when `CLAUDE_ENV_FILE` cannot be written: the context still comes, and says so (SPEC 20.2).

The export of `BSI_SESSION` is one of the things `session-start` does; the context (brain state, the session's
claim, its pending signals) is the other, and the first failing must not take the second with it: the agent
would start knowing nothing of its claim. The hook always exits 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, hook
from tests.hooks.test_session_events import base, context_of


@pytest.fixture
def bound(brain: Path) -> tuple[Path, str]:
    return brain, ok(run_bsi("claim", "open", "--scope", "src/", "--story", "api", "--agent-session", AGENT,
                             brain=brain))


@pytest.mark.parametrize("where", ["missing-folder", "a-folder"])
def test_an_env_file_that_cannot_be_written_still_gives_the_context(bound: tuple[Path, str], tmp_path: Path,
                                                                     where: str) -> None:
    brain, sess = bound
    env_file = tmp_path / "no" / "env" if where == "missing-folder" else tmp_path
    done = hook(brain, "session-start", base(brain, "SessionStart", source="startup"),
                env=clean_env(CLAUDE_ENV_FILE=str(env_file)))
    text = context_of(done, "SessionStart")
    assert sess in text and "src/" in text, text
    assert "CLAUDE_ENV_FILE" in text and f"BSI_SESSION={sess}" in text, text
    assert "internal error" not in done.stderr, done
