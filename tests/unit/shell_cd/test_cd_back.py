"""Where a line goes back to, and where the commands it hands its own shell run (SPEC 21.3).

`cd -` goes back to the folder the shell was in before its last `cd` (`OLDPWD`), `popd` to the top of the stack
`pushd` built, `cd ''` stays where it is; `eval 'cd D'` moves the line (eval's words run in this shell); a command
substitution's commands run in a subshell starting where the substitution stands, and its own `cd` moves only them;
a function runs its body where it is called. The reader left the commands after each where it could not place
them, and a write into a protocol file passed where no OS sandbox stands (checked in bash: each line wrote the
protocol file it names). A `cd -` to a folder the line does not show (the shell's `OLDPWD` is inherited, or the line
sets it) and a `popd` of a stack the line did not build cannot be placed: the line cannot be read whole.
"""

from __future__ import annotations

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit.shell_brain import refused_to_both, written_paths


@pytest.mark.parametrize("command", [
    "cd src; cd -; touch claims/a.yml", "cd src; cd ''; cd ..; cd -; touch ../claims/a.yml",
    "pushd src; cd -; touch claims/a.yml", "cd ''; touch claims/a.yml", "pushd src; popd; touch claims/a.yml",
    "pushd src; pushd ../claims; popd; touch ../claims/a.yml", "pushd claims; cd ../src; popd; touch claims/a.yml",
    "eval 'cd claims'; touch a.yml", "eval cd claims; touch a.yml", "eval 'cd src; cd ../claims'; touch a.yml",
    "echo $(cd claims; touch a.yml)", "cat <(cd claims; touch a.yml)", "echo \"$(cd claims && touch a.yml)\"",
    "echo `cd claims; touch a.yml`", "f(){ touch a.yml; }; cd claims; f", "f() { touch a.yml; }\ncd claims\nf",
    "function f { touch a.yml; }; cd claims; f",
    "alias g='cd claims; true'\ng; touch a.yml",
])
def test_a_write_after_a_folder_change_the_line_shows_is_placed(brain: Brain, command: str) -> None:
    reading = read_command(command, str(brain.root))
    assert "claims/a.yml" in written_paths(brain, command) or reading.partial, \
        (command, reading.targets, reading.unread)
    refused_to_both(brain, command)


@pytest.mark.parametrize(("command", "written"), [
    ("cd src; cd -; touch a", {"a"}), ("cd src; cd -; cd -; touch a", {"src/a"}), ("cd ''; touch a", {"a"}),
    ("pushd src; pushd ../claims; popd; touch a", {"src/a"}), ("pushd claims; cd ../src; popd; touch b", {"b"}),
    ("cd src; (cd ..); cd -; touch a", {"a"}), ("eval 'cd src'; touch a", {"src/a"}),
    ("echo $(cd claims); touch a", {"a"}), ("f(){ touch a; }; f", {"a"}), ("f(){ touch a; }; cd src; cd ..; f", {"a"}),
    ("alias g='cd src; true'\ng; touch a", {"src/a"}),
])
def test_a_folder_change_places_what_follows_as_bash_runs_it(brain: Brain, command: str, written: set[str]) -> None:
    reading = read_command(command, str(brain.root))
    assert written_paths(brain, command) == written and not reading.partial, (command, reading.targets, reading.partial)


@pytest.mark.parametrize("command", ["cd -; touch a", "OLDPWD=claims; cd -; touch a.yml",
                                     "cd src; OLDPWD=../claims; cd -; touch a.yml", "popd; touch a",
                                     "f(){ touch a; }; cd src; f"])
def test_a_folder_the_line_does_not_show_cannot_be_read(brain: Brain, command: str) -> None:
    """The shell's `OLDPWD` and its stack come from before the line (a shell kept between commands keeps them)."""
    assert read_command(command, str(brain.root)).partial, command


def test_a_cd_into_a_folder_made_by_expansion_is_left_to_the_sandbox(brain: Brain) -> None:
    """`cd $(echo claims)`: the folder is known only when the line runs; what follows is unread, not refused."""
    reading = read_command("cd $(echo claims); touch a.yml", str(brain.root))
    assert not reading.targets and not reading.partial
    assert any("cannot be read" in unread for unread in reading.unread)
