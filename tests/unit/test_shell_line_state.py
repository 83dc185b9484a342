"""What a command line changes for its own later commands (SPEC 21.3): a `HOME` it sets (`~` and a bare `cd` no
longer go where the hook's own `HOME` says), a link it makes (a later write through it lands elsewhere), an alias it
defines (its name runs the alias's commands)."""

from __future__ import annotations

import pytest

from brain_tui.core.sessions.shell_targets import read_command

W = "/w"


def blocked(command: str) -> bool:
    """True when the reading refuses the line: read partially, or a target in `claims/`."""
    reading = read_command(command, W, home="/home/u")
    return bool(reading.partial) or any(t.path == "/w/claims" or t.path.startswith("/w/claims/")
                                        for t in reading.targets)


@pytest.mark.parametrize("command", [
    "HOME=/w/claims; echo x > ~/a.yml",
    "export HOME=claims; cd; touch a.yml",
    "export HOME=/w/claims && cd ~ && touch a.yml",
    "declare -x HOME=/w/claims; touch ~/a.yml",
    "typeset HOME=/w/claims; touch ~/a.yml",
    "readonly HOME=/w/claims; cp x ~/a.yml",
    "f() { local HOME=/w/claims; cd; touch a.yml; }; f",
    "read HOME <<< /w/claims; touch ~/a.yml",
    "HOME=/w/claims\ncd\nrm -rf a.yml",
    "unset HOME; cd; touch a.yml",
    "cd notes; CDPATH=/w; cd claims; touch a.yml",
])
def test_a_home_the_line_sets_makes_tilde_and_a_bare_cd_unplaceable(command: str) -> None:
    assert blocked(command), command


@pytest.mark.parametrize(("command", "expected"), [
    ("echo $HOME; touch ~/a.md", "a.md"),
    ("cd; touch a.md", "/home/u/a.md"),
    ("HOME=/tmp/h make; touch notes/a.md", "/w/notes/a.md"),
    ("cat HOME.md > notes/a.md", "/w/notes/a.md"),
    ("cd notes && cd ../docs && touch a.md", "/w/docs/a.md"),
])
def test_a_line_that_leaves_home_alone_reads_as_before(command: str, expected: str) -> None:
    reading = read_command(command, W, home="/home/u")
    assert not reading.partial
    assert [t.path for t in reading.targets if t.path.endswith(expected)], reading.targets
