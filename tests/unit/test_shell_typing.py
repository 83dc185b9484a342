"""Text typed into a running program is read only as whole shell lines; a shell left reading the terminal is seen."""

from __future__ import annotations

import pytest

from brain_tui.core.sessions.shell_targets import read_command
from brain_tui.core.sessions.shell_typing import typing_problem


@pytest.mark.parametrize("chars", ["ls\n", "echo hi > src/a.py\n", "\n", "\r", "git status\r\n", "echo 'a!b'\n",
                                   "[ a != b ] && echo x\n", "echo ok # done!\n"])
def test_whole_lines_read(chars: str) -> None:
    assert typing_problem(chars) == ""


@pytest.mark.parametrize(("chars", "why"), [
    ("rm -rf cla", "unfinished"), ("rm -rf \\\n", "goes on"), ("rm -rf cl\t\n", "key"), ("\x1b:wq\r", "key"),
    ("\x04", "key"), ("x\x7f\n", "key"), ("!!\n", "history"), ("!rm\n", "history"), ("^a^b\n", "history"),
    ("echo 'open\n", "quote"), ('echo "open\n', "quote"),
])
def test_what_cannot_stand_as_whole_lines(chars: str, why: str) -> None:
    assert why in typing_problem(chars)


@pytest.mark.parametrize(("command", "terminal"), [
    ("bash", "bash"), ("sh -s", "sh"), ("bash -i", "bash"), ("exec zsh", "zsh"), ("env bash -l", "bash"),
    ("ls; bash", "bash"), ("(dash)", "dash"), (("bash",), "bash"), (("env", "sh"), "sh"),
    ("bash -c 'ls'", ""), ("bash x.sh", ""), ("bash < x.sh", ""), ("bash <<< ls", ""), ("echo ls | bash", ""),
    ("cat x | sh", ""), ("bash <<EOF\nls\nEOF\n", ""), (("bash", "-lc", "ls"), ""), ("ls", ""),
])
def test_a_shell_left_reading_the_terminal(command: str | tuple[str, ...], terminal: str) -> None:
    assert read_command(command, "/tmp").terminal == terminal
