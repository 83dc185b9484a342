"""A shell's `-c` is a flag, as the shells read it: the command line is the first word after its options, wherever
the `c` stands in them (`bash -cx CMD`, `bash -c -x CMD`, `sh -c -- CMD`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain

W = "/w"


def written(command: str) -> list[str]:
    return [t.path for t in read_command(command, W, home="/home/u").targets]


@pytest.mark.parametrize("command", [
    "bash -c 'rm claims/x'", "bash -lc 'rm claims/x'", "bash -ec 'rm claims/x'",
    "bash -cx 'rm claims/x'", "bash -xc 'rm claims/x'", "bash -c -x 'rm claims/x'", "bash -c -e -u 'rm claims/x'",
    "sh -c -- 'rm claims/x'", "bash -c -- 'rm claims/x' name arg", "bash -c 'rm claims/x' -x",
    "bash -o errexit -c 'rm claims/x'", "bash -co errexit 'rm claims/x'", "bash -O extglob -c 'rm claims/x'",
    "bash +o history -c 'rm claims/x'", "bash --norc -c 'rm claims/x'", "bash --rcfile rc -c 'rm claims/x'",
    "bash -c +x 'rm claims/x'",
])
def test_the_command_line_is_the_first_word_after_the_options(command: str) -> None:
    assert written(command) == ["/w/claims/x"], command


@pytest.mark.parametrize("command", ["bash -x script.sh", "bash -- script.sh", "bash -o errexit script.sh"])
def test_without_c_the_first_word_is_a_script(command: str) -> None:
    reading = read_command(command, W)
    assert reading.targets == [] and "bash: a script file" in reading.unread and reading.terminal == ""


@pytest.mark.parametrize(("command", "terminal"), [
    ("bash -cx 'true'", ""), ("bash -c -x 'true'", ""), ("bash -x", "bash"), ("bash -xs a b", "bash"),
    ("bash -o errexit", "bash"),
])
def test_a_shell_given_c_reads_no_terminal(command: str, terminal: str) -> None:
    assert read_command(command, W).terminal == terminal


def test_text_piped_to_a_shell_given_c_is_no_script() -> None:
    assert written("echo 'rm claims/y' | bash -cx 'rm claims/x'") == ["/w/claims/x"]


@pytest.mark.parametrize("command", ["yash -c 'rm claims/x'", "posh -c 'rm claims/x'", "echo 'rm claims/x' | yash",
                                     "posh <<< 'rm claims/x'"])
def test_every_shell_the_reader_knows_is_read(command: str) -> None:
    assert written(command) == ["/w/claims/x"], command


@pytest.mark.parametrize("code", [
    'subprocess.run(["bash", "-c", "-x", "cd claims && rm x"])',
    'subprocess.run(["yash", "-c", "cd claims && rm x"])',
    'subprocess.run(["bash", "--norc", "-lc", "cd claims && rm x"])',
    'os.execl("/bin/sh", "sh", "-c", "cd claims && rm x")',
])
def test_inline_code_hands_a_shell_its_command_line_as_the_shell_reads_it(code: str) -> None:
    assert written(f"python3 -c '{code}'") == ["/w/claims/x"], code


@pytest.mark.parametrize("command", [
    "fish -c 'rm claims/x.yml'", "csh -c 'rm claims/x.yml'", "tcsh -c 'rm claims/x.yml'",
    "echo 'rm claims/x.yml' | fish", "tcsh <<< 'rm claims/x.yml'", "pwsh -Command 'Remove-Item claims/x.yml'",
    "powershell -c 'Remove-Item claims/x.yml'", "nu -c 'rm claims/x.yml'", "xonsh -c 'rm claims/x.yml'",
    "env fish -c 'rm claims/x.yml'",
])
def test_a_shell_the_reader_does_not_read_cannot_run_a_line(tmp_path: Path, command: str) -> None:
    """fish, csh, tcsh, PowerShell, nushell, xonsh, elvish speak no POSIX shell: what they run cannot be read, so the
    line is refused (it was read as nothing: a protocol write passed where no OS sandbox stands)."""
    brain = shell_brain.make(tmp_path)
    assert read_command(command, str(brain.root)).partial, command
    shell_brain.refused_to_both(brain, command)
