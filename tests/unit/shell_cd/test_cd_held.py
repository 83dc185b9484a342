"""A folder change the shell may not make, or makes later than the reader read it, leaves the commands after it
where bash runs them (SPEC 21.3).

A line going on after `&&`, `||`, `|`, `|&` or `&` on the next line (`false &&` NEWLINE `cd src`) is one command
list: its `cd` may not run, or runs in a pipeline's subshell. A `popd` after `&&`, `||` or in an `if` may not run,
and one after `dirs -c` fails. A function whose body changes the folder (`f(){ cd ../claims; }`) moves the shell
where it is called, not where it is defined; `function f { …; cd D; }` defines it without running its `cd`. A
`pushd -` goes back to the shell's OLDPWD, as `cd -` does, and `pushd`, `pushd +N` or `popd +N` change the stack
the line may not show. `cd(){ …; }` defines a function named `cd`: it runs no `cd` (to HOME). The reader placed the
write after each below `src/` (the claim's folder), or below HOME (outside the brain), or left it unread: a protocol
file written unseen where no OS sandbox stands (checked in bash: each line wrote `claims/a.yml`).
"""

from __future__ import annotations

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit.shell_brain import refused_to_both, written_paths


@pytest.mark.parametrize("command", [
    "cd claims; false &&\ncd ../src; touch a.yml", "cd claims; true ||\ncd ../src; touch a.yml",
    "cd claims; false && # c\ncd ../src; touch a.yml", "cd claims; (true) ||\ncd ../src; touch a.yml",
    "cd claims; cd ../src |\ncat; touch a.yml", "cd claims; cd ../src |&\ncat; touch a.yml",
    "cd claims; cd ../src &\ntouch a.yml", "cd claims; true | # c\ncd ../src; touch a.yml",
    "cd src; pushd ../claims; false && popd; touch a.yml", "cd src; pushd ../claims; true || popd; touch a.yml",
    "cd src; pushd ../claims; if false; then popd; fi; touch a.yml",
    "cd src; pushd ../claims; dirs -c; popd; touch a.yml", "cd claims; pushd -n ../src; dirs -c; popd; touch a.yml",
    "cd claims; function f { true; cd ../src; }; touch a.yml",
    "cd src; f(){ cd ../claims; }; cd ../src; f; touch a.yml",
    "cd src; function f { cd ../claims; }; cd ../src; f; touch a.yml",
    "cd src; f(){ pushd ../claims; }; cd ../src; f; touch a.yml",
    "cd src; f(){ true; eval 'cd ../claims'; }; cd ../src; f; touch a.yml",
    "cd src; g(){ cd ../claims; }; f(){ g; }; cd ../src; f; touch a.yml",
    "cd claims; pushd -n ../src; f(){ dirs -c; }; f; popd; touch a.yml",
    "cd claims; cd ../src; pushd -; touch a.yml", "cd claims; pushd ../src; pushd; touch a.yml",
    "cd(){ :; }; touch claims/a.yml", "cd () { :; }; touch claims/a.yml",
    "cd src; pushd(){ :; }; touch ../claims/a.yml", "cd src; popd(){ :; }; touch ../claims/a.yml",
    "cd src; pushd ../claims; popd +1; touch a.yml",
    "cd claims; pushd ../src; pushd ../claims; popd +1; popd; touch a.yml",
])
def test_a_write_after_a_folder_change_bash_may_not_make_is_refused(brain: Brain, command: str) -> None:
    reading = read_command(command, str(brain.root))
    assert "claims/a.yml" in written_paths(brain, command) or reading.partial, \
        (command, reading.targets, reading.unread)
    refused_to_both(brain, command)


@pytest.mark.parametrize(("command", "written"), [
    ("cd src &&\ntouch a", {"src/a"}), ("cd src; true |\ncat; touch a", {"src/a"}),
    ("pushd src; popd; touch a", {"a"}), ("pushd src; dirs; popd; touch a", {"a"}),
    ("f(){ touch a; }; cd src; cd ..; f", {"a"}), ("cd src; cd ..; pushd -; touch a", {"src/a"}),
])
def test_a_folder_change_bash_makes_is_still_placed(brain: Brain, command: str, written: set[str]) -> None:
    reading = read_command(command, str(brain.root))
    assert written_paths(brain, command) == written and not reading.partial, (command, reading.targets, reading.partial)
