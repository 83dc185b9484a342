"""A quoted or escaped operator character is a word of its command, never an operator (SPEC 21.3).

`shlex` gives `'|'` back as the bare `|` it gives for a pipe: `touch '|' claims/x.yml` read as `touch` piped into a
command named `claims/x.yml`, and the protocol file the shell touches went unseen (so did `rm ';' F`, `cp A '&'
DIR/`, and `vim -c '|' F`). `shell_quotes.shield` stands in for such characters before the line is split.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_quotes import shield
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import sessions


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


@pytest.mark.parametrize("command", [
    "touch '|' claims/x.yml", "touch '||' claims/x.yml", 'touch "|" claims/x.yml', "touch \\| claims/x.yml",
    "rm ';' claims/x.yml", "rm '&&' claims/x.yml", "rm -f '(' claims/x.yml", "touch '>' claims/x.yml",
    "cp src/a '&' claims/", "vim -c '|' claims/x.yml", "touch $'|' claims/x.yml",
])
def test_a_quoted_operator_is_a_word(brain: Brain, command: str) -> None:
    written = {Path(t.path).relative_to(brain.root).as_posix() for t in read_command(command, str(brain.root)).targets}
    assert written & {"claims/x.yml", "claims/&", "claims/a"}, (command, written)
    for session in sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


@pytest.mark.parametrize(("command", "written"), [
    ("echo 'a|b' | tee src/z", {"src/z"}), ("ls | grep x > src/out", {"src/out"}),
    ("echo \"it's\" > src/q; touch src/r", {"src/q", "src/r"}), ("echo '(' && touch src/a", {"src/a"}),
])
def test_real_operators_still_separate_commands(brain: Brain, command: str, written: set[str]) -> None:
    found = {Path(t.path).relative_to(brain.root).as_posix() for t in read_command(command, str(brain.root)).targets}
    assert found == written, (command, found)


def test_a_line_holding_a_stand_in_cannot_be_read() -> None:
    assert shield("touch \uf8f5 claims/x.yml") is None
    assert "stands in" in read_command("touch \uf8f5 claims/x.yml", "/").partial


@pytest.mark.parametrize("command", [
    "echo \"$(echo '\"')\" | tee claims/x.yml #'", "echo \"`echo '\"'`\" | tee claims/x.yml #'",
    "echo \"${x:-\"'\"}\" | tee claims/x.yml #'", "echo \"${x:-\" #\"}\"; touch claims/x.yml",
    "echo \"${x:-\"'\"}\" ; echo $(touch claims/x.yml) '\"'", "echo \"$(dirname \"$0\")\" > claims/x.yml",
])
def test_quotes_inside_a_double_quoted_substitution_nest(brain: Brain, command: str) -> None:
    """Inside `"$(…)"`, `"`…`"` and `"${…}"` quotes start anew (bash): `"$(echo '"')"` is one word, and the pipe,
    `;` or `#` after it is the shell's, not text inside a quote opened by the `'` the flat reading saw."""
    written = {Path(t.path).relative_to(brain.root).as_posix() for t in read_command(command, str(brain.root)).targets}
    assert "claims/x.yml" in written, (command, written)
    for session in sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


def test_a_nested_quote_inside_a_double_quoted_word_stays_in_its_word(brain: Brain) -> None:
    command = "echo \"${x:-\"a;touch src/q\"}\" \"$(echo ')|')\" > src/out"
    found = {Path(t.path).relative_to(brain.root).as_posix() for t in read_command(command, str(brain.root)).targets}
    assert found == {"src/out"}, found


@pytest.mark.parametrize("command", ["touch claims/x.yml\necho \"a", "touch src/a; echo 'b", "echo 'abc"])
def test_a_line_with_an_unclosed_quote_cannot_be_read(brain: Brain, command: str) -> None:
    """bash runs the lines before an unclosed quote, then fails (`bash -c $'touch F\\necho "a'` made F): the
    line was read as nothing at all, its writes unseen. It cannot be read whole: refused."""
    assert "unclosed quote" in read_command(command, str(brain.root)).partial, command
    for session in sessions(brain):
        assert not brain.decide_write(ShellCommand(command), session).allowed, command
