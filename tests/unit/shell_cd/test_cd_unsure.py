"""A `cd` that may not run, or runs without moving the shell, leaves the commands after it where the line was
(SPEC 21.3).

A `cd` after `&&` or `||`, in the body of an `if`, a loop, a `case` or a function the line only defines, one with a
second operand or an option `cd` lacks (it fails: `cd src x`), one run through a program (`env cd src`: no
program moves the shell) and `pushd -n` may leave the shell where it was, even when its folder exists. The reader
placed the commands after them below that folder: a protocol file written unseen (checked in bash: each line made
`claims/n.yml`). A bare `pushd` (or `pushd +N`) goes to a folder of the stack, which the line does not show; a line
setting `lastpipe` runs a pipeline's last `cd` in the shell itself.
"""

from __future__ import annotations

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit.shell_brain import sessions, written_paths


@pytest.mark.parametrize("command", [
    "false && cd src; touch claims/n.yml", "true || cd src; touch claims/n.yml",
    "[ -d nope ] && cd src; rm claims/x.yml", "false && cd src && true; touch claims/n.yml",
    "if false; then cd src; fi; touch claims/n.yml", "if false; then true; cd src; fi; touch claims/n.yml",
    "if true; then :; else cd src; fi; touch claims/n.yml", "for i in; do cd src; done; touch claims/n.yml",
    "while false; do cd src; done; touch claims/n.yml", "case a in b) cd src;; esac; touch claims/n.yml",
    "f(){ cd src; }; touch claims/n.yml", "f() { cd src; }\ntouch claims/n.yml",
    "function f { cd src; }; touch claims/n.yml", "function f() { cd src; }; touch claims/n.yml",
    "cd src x; touch claims/n.yml", "cd -x src; touch claims/n.yml", "cd src -P; touch claims/n.yml",
    "pushd -n src; touch claims/n.yml", "env cd src; touch claims/n.yml", "sudo cd src; touch claims/n.yml",
    "nohup cd src; touch claims/n.yml", "timeout 5 cd src; touch claims/n.yml", "coproc cd src; touch claims/n.yml",
])
def test_the_commands_after_a_cd_that_may_not_move_run_where_the_line_was(brain: Brain, command: str) -> None:
    target = "claims/x.yml" if "rm " in command else "claims/n.yml"
    assert target in written_paths(brain, command), (command, written_paths(brain, command))
    for session in sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


@pytest.mark.parametrize("command", ["pushd; touch claims/n.yml", "pushd +1; touch claims/n.yml",
                                     "pushd -1; touch claims/n.yml"])
def test_a_pushd_to_a_folder_of_the_stack_places_nothing_after_it(brain: Brain, command: str) -> None:
    """Not below `$HOME`: bash stays (an empty stack) and `claims/n.yml` is written; the line does not show where."""
    reading = read_command(command, str(brain.root))
    assert not reading.targets and reading.unread, (command, reading.targets)


def test_a_line_setting_lastpipe_cannot_place_a_cd(brain: Brain) -> None:
    """`shopt -s lastpipe; true | cd claims; touch n.yml` writes `claims/n.yml`: the pipe's `cd` ran in the shell."""
    command = "shopt -s lastpipe; true | cd claims; touch n.yml"
    assert "lastpipe" in read_command(command, str(brain.root)).partial
    for session in sessions(brain):
        assert not brain.decide_write(ShellCommand(command), session).allowed


@pytest.mark.parametrize(("command", "written"), [
    ("cd -P src; touch a", {"src/a"}), ("cd -- src; touch a", {"src/a"}), ("builtin cd src; touch a", {"src/a"}),
    ("command cd src; touch a", {"src/a"}), ("! cd src; touch a", {"src/a"}), ("{ cd src; }; touch a", {"src/a"}),
    ("X=1 cd src; touch a", {"src/a"}), ("time cd src; touch a", {"src/a"}),
    ("if true; then :; fi; cd src; touch a", {"src/a"}), ("f(){ :; }; cd src; touch a", {"src/a"}),
    ("false && cd src && touch a", {"src/a"}), ("false && cd src; touch a", {"src/a", "a"}),
])
def test_a_cd_that_surely_moves_still_places_what_follows(brain: Brain, command: str, written: set[str]) -> None:
    assert written_paths(brain, command) == written, (command, written_paths(brain, command))


@pytest.mark.parametrize("command", [
    "eval 'pushd /nonexistent; cd {root}/claims'; popd; rm x.yml",
    "eval 'cd /nonexistent; cd {root}/src'; cd -; rm claims/x.yml",
])
def test_a_folder_reached_two_ways_keeps_what_each_way_left_behind(brain: Brain, command: str) -> None:
    """Both ways of the `cd` that may fail end in one folder with a different stack or OLDPWD: what follows goes
    back as each leaves it (checked in bash: `popd` of the empty stack fails, `cd -` goes where the line was, and
    `rm` removes claims/x.yml)."""
    line = command.format(root=brain.root)
    reading = read_command(line, str(brain.root))
    written = [target.path for target in reading.targets]
    assert str(brain.root / "claims" / "x.yml") in written or reading.partial, (line, written)
    for session in sessions(brain):
        assert not brain.decide_write(ShellCommand(line), session).allowed, line
