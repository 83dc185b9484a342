"""An agent never writes the files of the brain's repository that name programs git runs (SPEC 21): `.git/config`
(hooks path, fsmonitor, filter and merge drivers, signing programs), `.git/hooks/`, `.git/info/`. git runs what they
name for whoever runs git next: the pilot's terminal, and bsi outside the agent's sandbox. By any tool, bound or not,
settled index or not; the rest of `.git` stays git's (a satellite commits)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand, WriteSession
from tests.bsi import NOW, git, ok, run_bsi
from tests.hooks.test_hook_index import settle
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook
from tests.hooks.test_shell_hook import bash

PROGRAM_FILES = [".git/hooks/post-commit", ".git/config", ".git/info/attributes", ".git/hooks", ".GIT/CONFIG"]


@pytest.mark.parametrize("rel", PROGRAM_FILES)
def test_the_decision_refuses_gits_program_files_to_every_session(brain: Path, rel: str) -> None:
    b = Brain(brain, now=NOW, commit=False)
    unbound = b.decide_write(rel, WriteSession(agent_session="someone", cwd=str(brain)))
    assert not unbound.allowed and "git runs" in unbound.reason, unbound
    assert not b.decide_write(rel, WriteSession(agent_session="someone")).allowed  # `bsi preflight check` too
    assert b.decide_write("notes/x.md", WriteSession(agent_session="someone", cwd=str(brain))).allowed


def test_the_hook_refuses_them_by_the_edit_tools_and_the_shell_even_with_a_settled_index(brain: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "/", "--story", "the whole brain", "--agent-session", AGENT, brain=brain))
    settle(brain)
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "notes" / "x.md"))))
    for rel in PROGRAM_FILES[:3]:
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / rel))), "git runs")
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / rel), session="unbound"))
                      , "git runs")
    assert_denied(hook(brain, "pre-tool-use", bash(brain, "printf '#!/bin/sh\\n' > .git/hooks/pre-commit")),
                  "git runs")
    assert_denied(hook(brain, "pre-tool-use", bash(brain, "git config core.fsmonitor 'touch x'")), "git runs")
    assert_allowed(hook(brain, "pre-tool-use", bash(brain, "git commit -qm work")))
    assert_allowed(hook(brain, "pre-tool-use", bash(brain, "git config --get user.name")))


def test_a_linked_worktrees_git_config_is_the_main_repositorys(tmp_path: Path) -> None:
    main, work = tmp_path / "main", tmp_path / "wt"
    git(tmp_path, "init", "-q", str(main))
    git(main, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start")
    git(main, "worktree", "add", "-q", str(work))
    assert (work / ".git").is_file()
    ok(run_bsi("init", str(work), now=None))
    b = Brain(work, now=NOW, commit=False)
    session = WriteSession(agent_session="someone", cwd=str(work))
    assert not b.decide_write(ShellCommand("git config core.fsmonitor 'touch x'"), session).allowed
    assert not b.decide_write(str(main / ".git" / "hooks" / "post-commit"), session).allowed
