"""Where the commands after a `cd` run, as bash runs them (SPEC 21.3).

A `cd` in a pipeline or in the background (`cd sub | touch F`, `cd sub & touch F`) runs in a subshell of its own:
the commands after it run where the line started. A `cd` to a folder that does not exist fails, and the commands a
`;`, `||`, `&` or new line puts after it run where the line started too (`cd nope; touch claims/x.yml`). The reader
placed them below the `cd`'s folder: a protocol file written unseen (checked in bash: each made `claims/x.yml`).
"""

from __future__ import annotations

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit.shell_brain import sessions, written_paths


@pytest.mark.parametrize("command", [
    "cd src | touch claims/x.yml", "cd src |& touch claims/x.yml", "cd src & touch claims/x.yml",
    "cd nope; touch claims/x.yml", "cd nope\ntouch claims/x.yml", "cd nope || touch claims/x.yml",
    "cd nope & touch claims/x.yml", "cd nope && true || touch claims/x.yml", "cd nope && true; touch claims/x.yml",
    "true | cd src; touch claims/x.yml",
])
def test_the_commands_after_a_cd_that_may_not_move_run_where_the_line_started(brain: Brain, command: str) -> None:
    assert "claims/x.yml" in written_paths(brain, command), (command, written_paths(brain, command))
    for session in sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


@pytest.mark.parametrize(("command", "written"), [
    ("cd src && touch a", {"src/a"}), ("cd src; touch a", {"src/a"}), ("mkdir -p src/b && cd src/b && touch c",
                                                                       {"src/b", "src/b/c"}),
    ("cd nope; touch src/a", {"nope/src/a", "src/a"}), ("(cd src && touch a); touch b", {"src/a", "b"}),
])
def test_a_cd_that_moves_still_places_what_follows(brain: Brain, command: str, written: set[str]) -> None:
    assert written_paths(brain, command) == written, (command, written_paths(brain, command))


def test_a_line_of_many_cds_that_may_fail_cannot_be_read(brain: Brain) -> None:
    """Each `cd` that may fail reads the rest of the line once more: past 8, the line cannot be read whole."""
    assert not read_command("cd a; " * 3 + "touch src/x", str(brain.root)).partial
    for many in (10, 40):
        assert "do not exist" in read_command("cd a; " * many + "touch src/x", str(brain.root)).partial
