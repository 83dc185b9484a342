"""An agent never writes the settings that name programs run outside its sandbox (SPEC 21): the clients' hooks and
MCP servers (`.claude/settings.json`, `.mcp.json`, `.gemini/settings.json`, the user's own in the home folder,
`$CODEX_HOME/hooks.json`) and bsi's commands (`brain-compose.yml`: `launch.command`, `notify.command`). Whoever writes
them chooses what runs next for the pilot, or lifts the hooks themselves: the spelling of `bsi hooks uninstall` an
agent's edit tool or shell would otherwise have. By any tool, bound (even to the whole brain) or not, settled index
or not."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import brain_tui
from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand, WriteSession
from tests.bsi import NOW, clean_env, ok, run_bsi
from tests.hooks.test_hook_index import settle
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook
from tests.hooks.test_shell_hook import bash

IN_BRAIN = [".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".gemini/settings.json",
            "brain-compose.yml", ".claude/hooks/bsi.sh", ".CLAUDE/Settings.json"]
IN_HOME = [".claude/settings.json", ".claude.json", ".gemini/settings.json", ".codex/hooks.json", ".gitconfig",
           ".config/git/config", ".config/git/attributes"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    return folder


@pytest.mark.parametrize("rel", IN_BRAIN)
def test_the_decision_refuses_the_brains_agent_settings_to_every_session(brain: Path, home: Path, rel: str) -> None:
    b = Brain(brain, now=NOW, commit=False)
    for session in (WriteSession(agent_session="someone", cwd=str(brain)), WriteSession(agent_session="someone")):
        decision = b.decide_write(rel, session)
        assert not decision.allowed and "outside this sandbox" in decision.reason, decision
    assert b.decide_write(".claude/CLAUDE.md", WriteSession(agent_session="x", cwd=str(brain))).allowed


def test_the_users_own_settings_and_codex_home_are_refused_too(brain: Path, home: Path, tmp_path: Path) -> None:
    b = Brain(brain, now=NOW, commit=False)
    session = WriteSession(agent_session="someone", cwd=str(brain))
    for rel in IN_HOME:
        assert not b.decide_write(str(home / rel), session).allowed, rel
    assert not b.decide_write(str(tmp_path / "codex" / "hooks.json"), session).allowed
    assert not b.decide_write(ShellCommand(f"rm -rf {home / '.codex'}"), session).allowed
    assert b.decide_write(str(home / "notes.txt"), session).allowed


def test_the_hook_refuses_them_to_a_session_holding_the_whole_brain_by_every_tool(brain: Path, home: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "/", "--story", "the whole brain", "--agent-session", AGENT, brain=brain))
    env = clean_env(HOME=str(home), CODEX_HOME=str(home / ".codex"))
    settle(brain)
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "notes" / "x.md")), env=env))
    for rel in IN_BRAIN[:5]:
        for session in (AGENT, "unbound"):
            assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / rel), session=session),
                               env=env), "outside this sandbox")
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(home / ".claude" / "settings.json")),
                       env=env), "~/.claude/settings.json")
    for command in ("echo '{}' > .mcp.json", "rm -rf .claude", "cd .gemini && sed -i s/bsi/true/ settings.json",
                    "mv .claude/settings.json notes/", "printf 'launch: {}' >> brain-compose.yml",
                    "echo '{\"disableAllHooks\": true}' > ~/.claude/settings.json"):
        assert_denied(hook(brain, "pre-tool-use", bash(brain, command), env=env), "outside this sandbox")
    patch = f"*** Begin Patch\n*** Delete File: {home / '.codex' / 'hooks.json'}\n*** End Patch\n"
    codex = run_bsi("hook", "pre-tool-use", "--agent", "codex", brain=brain, env=env, input=json.dumps(
        {"session_id": AGENT, "cwd": str(brain), "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
         "tool_input": {"command": patch}}))
    assert codex.code == 2 and "outside this sandbox" in codex.out, codex
    assert_allowed(hook(brain, "pre-tool-use", bash(brain, "cat .mcp.json brain-compose.yml"), env=env))


@pytest.mark.parametrize("command", ["ln -s /tmp/elsewhere .gemini", "mv /tmp/mine .gemini", "cp -r /tmp/mine .claude",
                                     "mkdir .gemini", "ln -sfn /tmp/elsewhere ~/.codex"])
def test_replacing_a_folder_that_holds_them_is_refused_too(brain: Path, home: Path, command: str) -> None:
    """A link, a move or a copy onto `.gemini` or `.claude` chooses what their settings file holds."""
    b = Brain(brain, now=NOW, commit=False)
    decision = b.decide_write(ShellCommand(command), WriteSession(agent_session="someone", cwd=str(brain)))
    assert not decision.allowed and "outside this sandbox" in decision.reason, decision


def test_the_users_git_settings_are_refused_to_every_tool(brain: Path, home: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """~/.gitconfig names programs the human's git and bsi's run (hooks path, fsmonitor, credential helper,
    `url.*.insteadOf`): `git config --global` is a write of it."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    b = Brain(brain, now=NOW, commit=False)
    session = WriteSession(agent_session="someone", cwd=str(brain))
    for command in ("git config --global core.hooksPath /tmp/h", "git config --global alias.x 'reset --hard'",
                    "git -C src config --global --add url./tmp/r.insteadOf origin", "git config --global -e",
                    "HOME=/tmp/h git config --global user.name me", f"echo x >> {home}/.gitconfig"):
        decision = b.decide_write(ShellCommand(command), session)
        assert not decision.allowed, (command, decision)
    assert not b.decide_write(str(tmp_path / "xdg" / "git" / "config"), session).allowed
    for command in ("git config --global --get user.name", "git config --global -l", "git config user.name"):
        assert b.decide_write(ShellCommand(command), session).allowed, command



def test_claude_codes_session_environment_and_config_dir_are_refused(brain: Path, home: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude Code sources `<config>/session-env/<session>/*.sh` before each of the agent's shell commands: a file
    written there sets what every later command runs with (`GIT_DIR`, `PATH`), which the hook does not see. With
    `CLAUDE_CONFIG_DIR` set, the user's settings (hooks, `disableAllHooks`) live there rather than in `~/.claude`."""
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    b = Brain(brain, now=NOW, commit=False)
    session = WriteSession(agent_session="someone", cwd=str(brain))
    for target in (home / ".claude" / "session-env" / "s1" / "sessionstart-hook-0.sh",
                   config / "session-env" / "s1" / "sessionstart-hook-1.sh", config / "settings.json",
                   config / "settings.local.json", config / ".claude.json"):
        decision = b.decide_write(str(target), session)
        assert not decision.allowed and "outside this sandbox" in decision.reason, (target, decision)
    for command in (f"echo 'export GIT_DIR=/x' >> {home}/.claude/session-env/s1/sessionstart-hook-0.sh",
                    f"rm -rf {config}", f"ln -sfn /tmp/elsewhere {config}/session-env"):
        assert not b.decide_write(ShellCommand(command), session).allowed, command
    assert b.decide_write(str(config / "notes.md"), session).allowed
    assert b.decide_write(str(home / ".claude" / "CLAUDE.md"), session).allowed


def test_the_environment_files_clients_load_at_start_are_refused(brain: Path, home: Path, tmp_path: Path) -> None:
    """Gemini CLI loads the first `.gemini/.env` or `.env` from its folder up (then `~/.gemini/.env`, `~/.env`) and
    Codex loads `$CODEX_HOME/.env` into the environment its hooks run with: a `BSI_HOOKS=warn`, a `BRAIN_ROOT` or a
    `BSI_SESSION` written there turns the next session's hooks into notes, sends them to another brain or speaks
    for another's claim. A client started in a folder of the brain reads that folder's settings too."""
    b = Brain(brain, now=NOW, commit=False)
    session = WriteSession(agent_session="someone", cwd=str(brain))
    for target in (brain / ".env", brain / ".gemini" / ".env", brain / "notes" / ".env", brain / "a" / "b" / ".ENV",
                   brain / "src" / ".gemini" / ".env", brain / "src" / ".claude" / "settings.json",
                   brain / "src" / ".mcp.json", brain / "src" / ".gemini" / "settings.json",
                   brain / "src" / ".claude" / "hooks" / "x.sh", home / ".env", home / ".gemini" / ".env",
                   home / ".codex" / ".env", tmp_path / "codex" / ".env"):
        decision = b.decide_write(str(target), session)
        assert not decision.allowed and "outside this sandbox" in decision.reason, (target, decision)
    for command in ("echo BSI_HOOKS=warn >> .env", "cd notes && printf 'BRAIN_ROOT=/tmp\\n' > .env",
                    "ln -s /tmp/elsewhere src/.gemini", "cp /tmp/x.env notes/.env"):
        assert not b.decide_write(ShellCommand(command), session).allowed, command
    for rel in ("notes/.env.example", "notes/env", "notes/.envrc.md", "src/brain-compose.yml", "src/.claude/x.md"):
        assert b.decide_write(rel, session).allowed, rel


def test_the_programs_and_start_files_of_whoever_runs_next_are_refused(brain: Path, home: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A program put on PATH runs for whoever next types its name (`git` in the human's terminal and in bsi's own
    git calls); a module on bsi's import path runs inside the hook and the MCP server that decide the writes; a
    shell's start files set what the human's next terminal (and the agent started from it) runs with
    (`export BSI_HOOKS=warn`); an ssh key lets a command in as the human. Outside the brain, yet not an agent's."""
    programs, modules = tmp_path / "bin", tmp_path / "site"
    programs.mkdir()
    (modules / "pkg").mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{programs}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(sys, "path", [*sys.path, str(modules)])
    b = Brain(brain, now=NOW, commit=False)
    session = WriteSession(agent_session="someone", cwd=str(brain))
    for target in (programs / "git", modules / "pkg" / "__init__.py", modules / "sitecustomize.py",
                   Path(sys.executable).parent / "bsi", Path(brain_tui.__file__).parent / "hooks" / "main.py",
                   home / ".bashrc", home / ".profile", home / ".zshenv", home / ".config" / "fish" / "config.fish",
                   home / ".ssh" / "authorized_keys", home / ".ssh" / "config", home / ".claude" / "hooks" / "x.sh",
                   home / ".claude" / "plugins" / "p" / "hooks" / "hooks.json",
                   home / ".gemini" / "extensions" / "e" / "gemini-extension.json",
                   brain / ".gemini" / "extensions" / "e" / "gemini-extension.json",
                   home / ".config" / "systemd" / "user" / "x.service", home / ".config" / "autostart" / "x.desktop",
                   home / "Library" / "LaunchAgents" / "x.plist"):
        decision = b.decide_write(str(target), session)
        assert not decision.allowed and "outside this sandbox" in decision.reason, (target, decision)
    for command in (f"cp /tmp/evil {programs}/git", f"ln -sfn /tmp/evil {programs}", f"echo x >> {home}/.bashrc",
                    f"mv /tmp/evil.py {modules}/pkg/"):
        assert not b.decide_write(ShellCommand(command), session).allowed, command
    for target in (programs / "sub" / "notes.md", tmp_path / "notes.md", home / "notes.txt",
                   home / ".ssh" / "known_hosts", brain / "bin" / "tool"):
        assert b.decide_write(str(target), session).allowed, target
    env = clean_env(HOME=str(home), PATH=os.environ["PATH"])  # the hook itself, as the client runs it
    for target in (home / ".bashrc", programs / "git"):
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(target), session="unbound"), env=env),
                      "outside this sandbox")
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Write", str(home / "notes.txt"), session="unbound"),
                        env=env))


@pytest.mark.parametrize("rel", [".claude/skills/tidy/SKILL.md", ".claude/commands/review.md",
                                 ".claude/agents/helper.md", "src/.claude/skills/x/run.sh", ".claude/skills"])
def test_skills_commands_and_subagents_are_refused(brain: Path, home: Path, tmp_path: Path, rel: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude Code registers the hooks a skill's, a command's or a subagent's frontmatter declares when it is
    invoked, and runs them outside the sandbox: an agent that writes one and invokes it (the Skill tool) runs a
    command of its own choosing there. The brain's (in any folder), the user's and `$CLAUDE_CONFIG_DIR`'s."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    b = Brain(brain, now=NOW, commit=False)
    session = WriteSession(agent_session="someone", cwd=str(brain))
    for target in (str(brain / rel), str(home / rel), str(tmp_path / "config" / rel.removeprefix(".claude/"))):
        if target.startswith(str(home / "src")) or "config/src" in target:
            continue
        decision = b.decide_write(target, session)
        assert not decision.allowed and "outside this sandbox" in decision.reason, (target, decision)


def test_a_path_folder_spelled_from_the_home_folder_is_refused_too(brain: Path, home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`PATH="~/bin:$PATH"` (quoted, so the shell keeps the `~`) is common, and bash expands a leading `~` of a PATH
    entry when it looks a command up: `~/bin/git` then runs in the human's terminal as surely as `/usr/bin/git`."""
    monkeypatch.setenv("PATH", f"~/bin{os.pathsep}~{os.sep}tools{os.pathsep}{os.environ['PATH']}")
    b = Brain(brain, now=NOW, commit=False)
    session = WriteSession(agent_session="someone", cwd=str(brain))
    for target in (home / "bin" / "git", home / "tools" / "bsi", home / "bin"):
        decision = b.decide_write(str(target), session)
        assert not decision.allowed and "a folder on PATH" in decision.reason, (target, decision)
    assert b.decide_write(str(home / "bin" / "sub" / "notes.md"), session).allowed
