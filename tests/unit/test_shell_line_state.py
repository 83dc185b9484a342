"""What a command line changes for its own later commands (SPEC 21.3): a `HOME` it sets (`~` and a bare `cd` no
longer go where the hook's own `HOME` says), a link it makes (a later write through it lands elsewhere), an alias it
defines (its name runs the alias's commands)."""

from __future__ import annotations

from pathlib import Path

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


@pytest.mark.parametrize("command", [
    "ln -s ../claims notes/c; echo x > notes/c/a.yml",
    "ln -sf /w/claims/a.yml notes/f && echo x >> notes/f",
    "cd notes && ln -s ../claims c && touch c/a.yml",
    "ln -s -t notes ../claims; rm -rf notes/claims/a.yml",
    "cp -s /w/claims/a.yml notes/f; echo x > notes/f",
    "cp --symbolic-link /w/claims/a.yml notes/f; echo x > notes/f",
    "cd $D; ln -s /w/claims c; cd /w/notes; echo x > c/a.yml",
    "ln --symbolic ../claims notes/c\ntee notes/c/a.yml < x",
    "ln -s ../claims notes/c; cd notes/c; touch a.yml",
])
def test_a_write_through_a_link_the_line_makes_is_not_placed_as_written(command: str) -> None:
    assert blocked(command), command


@pytest.mark.parametrize(("command", "expected"), [
    ("ln -s ../lib notes/lib && ls notes/lib", {"/w/notes/lib"}),
    ("ln -sf a.md notes/b.md; echo x > notes/a.md", {"/w/notes/b.md", "/w/notes/a.md"}),
])
def test_a_link_the_line_makes_leaves_other_writes_alone(command: str, expected: set[str]) -> None:
    reading = read_command(command, W)
    assert not reading.partial and {t.path for t in reading.targets} == expected


def test_dot_dot_after_an_existing_link_is_where_the_link_leads(tmp_path: Path) -> None:
    """`notes/L/../x` is `x` beside L's target, not `notes/x`: the kernel follows L before `..`."""
    (tmp_path / "claims" / "sub").mkdir(parents=True)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "L").symlink_to("../claims/sub")
    paths = {t.path for t in read_command("echo x > notes/L/../a.yml; touch notes/../notes/b.md",
                                          str(tmp_path)).targets}
    assert paths == {str(tmp_path / "claims" / "a.yml"), str(tmp_path / "notes" / "b.md")}


@pytest.mark.parametrize("command", ["mv old notes/c; echo x > notes/c/a.yml", "cp -a old notes/c; touch notes/c/a"])
def test_a_link_moved_or_copied_into_place_is_a_link_made(tmp_path: Path, command: str) -> None:
    (tmp_path / "old").symlink_to("claims")
    assert read_command(command, str(tmp_path)).partial


@pytest.mark.parametrize("command", [
    "shopt -s expand_aliases\nalias r='rm -rf'\nr claims",
    "shopt -s expand_aliases; alias r='rm -rf'; r claims",
    "alias w='tee claims/a.yml'; echo x | w",
    "alias go='cd claims'; go; touch a.yml",
    "alias a=ls r='rm -rf' && if true; then r claims; fi",
    "alias rm='rm -i'; rm -rf claims",
])
def test_a_name_the_line_makes_an_alias_runs_the_alias(command: str) -> None:
    assert blocked(command), command


def test_an_ordinary_alias_reads_as_its_command() -> None:
    reading = read_command("alias ll='ls -l'; ll notes; alias ls='ls --color'; ls > notes/out", W)
    assert not reading.partial and [t.path for t in reading.targets] == ["/w/notes/out"]


@pytest.mark.parametrize(("command", "expected"), [
    ("echo x >> $HOME/.bashrc", "/home/u/.bashrc"),
    ("echo x >> ${HOME}/.bashrc", "/home/u/.bashrc"),
    ('echo x | tee -a "$HOME/.profile"', "/home/u/.profile"),
    ("cd $HOME && echo x > .bashrc", "/home/u/.bashrc"),
    ("rm -rf $HOME", "/home/u"),
])
def test_home_spelled_as_a_variable_is_the_home_folder_as_tilde_is(command: str, expected: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`$HOME/.bashrc` is `~/.bashrc`: a start file of the human's next terminal, refused like it, not a path left
    unread because an expansion makes it."""
    monkeypatch.setenv("HOME", "/home/u")
    reading = read_command(command, W, home="/home/u")
    assert not reading.partial
    assert [t.path for t in reading.targets] == [expected], reading.targets


@pytest.mark.parametrize("command", ["HOME=/w; echo x > $HOME/claims/a.yml", "export HOME=/w && cd $HOME/claims"])
def test_home_as_a_variable_on_a_line_that_sets_it_is_unplaceable(command: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    assert read_command(command, W, home="/home/u").partial, command


def test_home_kept_as_it_is_by_its_own_assignment_leaves_the_line_readable() -> None:
    """`env -i PATH="$PATH" HOME="$HOME" cmd` sets HOME to what it was: no `$HOME` path of the line moves."""
    from brain_tui.core.sessions.shell_line_state import LineState

    for text in ('env -i PATH="$PATH" HOME="$HOME" setsid -f sh -c "x"', "HOME=$HOME make"):
        assert LineState(text).unplaced(text) == "", text
    for text in ('HOME=/tmp/h; echo x > "$HOME/.bashrc"', "export HOME=/x; cp a $HOME/b"):
        assert LineState(text).unplaced(text) != "", text
