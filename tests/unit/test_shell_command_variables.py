"""Variables a command line sets whose value is a command line a program runs (SPEC 21.3): less's ``LESSOPEN`` and
``LESSCLOSE``, the pagers and editors (``PAGER``, ``GIT_PAGER``, ``EDITOR``…), ``GIT_SSH_COMMAND``; and git's
settings given through variables (``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n``, ``GIT_CONFIG_PARAMETERS``), which may
name any command git runs, even for a git command that only reads. Each was checked with the real program (the
command ran); read as nothing, a protocol write through it passed the hook.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import refused_to_both
from tests.unit.shell_brain import sessions as _sessions


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


@pytest.mark.parametrize("command", [
    "LESSOPEN='|rm claims/x.yml %s' less src/a", "LESSOPEN='||rm claims/x.yml %s' less src/a",
    "LESSOPEN='|-rm claims/x.yml %s' less src/a", "LESSOPEN='rm claims/x.yml %s' less src/a",
    "LESSCLOSE='rm claims/x.yml %s %s' less src/a", "export LESSOPEN='|rm claims/x.yml %s'; less src/a",
    "LESSOPEN='|rm claims/x.yml %s'; export LESSOPEN; less src/a", "env LESSOPEN='|rm claims/x.yml %s' less src/a",
    "declare -x LESSOPEN='|rm claims/x.yml %s'; less src/a",
    "GIT_SSH_COMMAND='rm claims/x.yml' git ls-remote ssh://h/x", "GIT_PAGER='rm claims/x.yml' git log",
    "PAGER='rm claims/x.yml' git log", "MANPAGER='rm claims/x.yml' man ls", "EDITOR='rm claims/x.yml' crontab -e",
])
def test_a_command_a_variable_names_is_read_as_a_command(brain: Brain, command: str) -> None:
    """The protocol file the command a variable names removes is a target; the hook refuses it."""
    reading = read_command(command, str(brain.root))
    assert str(brain.root / "claims" / "x.yml") in [t.path for t in reading.targets], (command, reading.targets)
    refused_to_both(brain, command)


@pytest.mark.parametrize("command", [
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.sshCommand GIT_CONFIG_VALUE_0='rm claims/x.yml' git ls-remote h:x",
    "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm claims/x.yml'\" git log",
    "export GIT_CONFIG_GLOBAL=src/cfg; git status", "GIT_EXEC_PATH=src git status",
])
def test_git_settings_on_the_line_are_refused(brain: Brain, command: str) -> None:
    """git's settings given by variables cannot be read whole (a key may name any command): any git command is
    refused, one that only reads too."""
    reading = read_command(command, str(brain.root))
    assert reading.partial, (command, reading.targets, reading.unread)
    refused_to_both(brain, command)


@pytest.mark.parametrize("command", [
    "GIT_PAGER=cat git log", "PAGER='less -R' git log", "LESSOPEN='|lesspipe %s' less src/a",
    "GIT_DIR=.git git log", "EDITOR=vim git -C src status", "GIT_TERMINAL_PROMPT=0 git ls-remote origin",
])
def test_a_variable_naming_a_harmless_command_passes(brain: Brain, command: str) -> None:
    """What these variables run writes no protocol file: the session bound to `src/` may run them."""
    mine, _unbound = _sessions(brain)
    decision = brain.decide_write(ShellCommand(command), mine)
    assert decision.allowed, (command, decision)


@pytest.mark.parametrize("command", [
    "A+=1 rm claims/x.yml", "A[0]=1 rm claims/x.yml", "A[1]+=x rm claims/x.yml", "B=1 A+=1 rm claims/x.yml",
    "A+=1 cd claims; rm x.yml", "A[k]=1 sudo rm claims/x.yml",
    "PAGER+='rm claims/x.yml' git log", "export PAGER+='rm claims/x.yml'; git log",
    "GIT_SSH_COMMAND+='rm claims/x.yml' git ls-remote h:x", "LESSOPEN+='|rm claims/x.yml %s' less src/a",
    "declare -x GIT_SSH_COMMAND+=';rm claims/x.yml' ; git ls-remote h:x",
])
def test_an_assignment_appending_or_to_an_element_is_an_assignment(brain: Brain, command: str) -> None:
    """`NAME+=VALUE` and `NAME[SUB]=VALUE` before a command are assignments to bash (it runs the command after
    them): the command is read, and a variable naming a command appended to is read as one (its value before the
    line, unknown, comes first: what the line appends is read)."""
    reading = read_command(command, str(brain.root))
    assert str(brain.root / "claims" / "x.yml") in [t.path for t in reading.targets], (command, reading.targets)
    refused_to_both(brain, command)
