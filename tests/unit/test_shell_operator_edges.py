"""Where a substitution ends and what a carriage return is: the operator after them is the shell's (SPEC 21.3).

`shlex` gives the `)` closing a ``$(…)``, ``$((…))`` or ``<(…)`` together with the operator right after it
(``echo $(ls); touch F`` has the token ``);``): the `;` went with the substitution skipped, and ``touch F`` was read
as more words of `echo`. A carriage return is no blank to bash: ``echo a\\r# ; touch F`` holds no comment (``a\\r#``
is one word), and ``cd\\r..`` is a command bash cannot find, no `cd`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import sessions


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


def _refused(brain: Brain, command: str) -> None:
    written = {Path(t.path).relative_to(brain.root).as_posix() for t in read_command(command, str(brain.root)).targets
               if Path(t.path).is_relative_to(brain.root)}
    assert "claims/x.yml" in written, (command, written)
    for session in sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


@pytest.mark.parametrize("command", [
    "echo $(ls); touch claims/x.yml", "echo $(ls)&& touch claims/x.yml", "echo $(ls)|tee claims/x.yml",
    "echo $(ls)>claims/x.yml", "echo $((1)); touch claims/x.yml", "echo $((2#101)); touch claims/x.yml",
    "echo <(ls); touch claims/x.yml", "echo $( (ls) ); touch claims/x.yml", "echo $(); touch claims/x.yml",
    "echo $(ls) $(ls)|| rm claims/x.yml", "(echo $(ls)); touch claims/x.yml", "echo \"$\" '(' ; touch claims/x.yml",
])
def test_the_operator_after_a_substitution_is_read(brain: Brain, command: str) -> None:
    _refused(brain, command)


@pytest.mark.parametrize("command", [
    "(cd src; echo $(ls)); touch a", "(cd src; diff <(ls)<(ls)); touch a", "(cd src; echo $(ls '')); touch a",
])
def test_a_subshell_closing_with_a_substitution_keeps_its_folder(brain: Brain, command: str) -> None:
    found = read_command(command, str(brain.root)).targets
    assert [Path(t.path).relative_to(brain.root).as_posix() for t in found] == ["a"], (command, found)


@pytest.mark.parametrize("command", [
    "echo a\r# ; touch claims/x.yml", "x=1\r# ; touch claims/x.yml", "cd\r.. ; touch claims/x.yml",
    "cd\r/tmp; touch claims/x.yml",
])
def test_a_carriage_return_is_no_blank(brain: Brain, command: str) -> None:
    _refused(brain, command)


@pytest.mark.parametrize("command", [
    "cat <<E\n$(touch claims/x.yml)\nE", "cat <<E\n`touch claims/x.yml`\nE", "cat <<E\n${x:-$(touch claims/x.yml)}\nE",
    "cat <<E\n'$(touch claims/x.yml)'\nE", "cat <<E\n\"x\" '$(touch claims/x.yml)'\nE",
    "cat <<-E >/dev/null\n\ta $(rm claims/x.yml)\n\tE",
])
def test_an_unquoted_here_document_runs_its_substitutions(brain: Brain, command: str) -> None:
    """bash expands ``$(…)`` and backquotes in the body of a here-document whose delimiter is unquoted (its quotes
    are plain text there): they run as commands."""
    _refused(brain, command)


def test_a_quoted_here_document_is_data(brain: Brain) -> None:
    for command in ("cat <<'E'\n$(touch claims/x.yml)\nE", "cat <<\\E\n`touch claims/x.yml`\nE"):
        assert read_command(command, str(brain.root)).targets == [], command


@pytest.mark.parametrize("command", [
    "echo '\"claims/x.yml\" '\"'\"'c' | xargs touch", "printf '%s\\n' '\"claims/x.yml\"' \"'c\" | xargs rm",
])
def test_xargs_takes_the_items_before_an_unclosed_quote_unquoted(brain: Brain, command: str) -> None:
    """GNU xargs runs its command on the items read before an unclosed quote, their quotes removed."""
    _refused(brain, command)
