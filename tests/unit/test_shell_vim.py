"""The files vim and its other names write from the commands on their command line, for the shell's reader (SPEC
21.3).

Each spelling was checked with the real vim (`vim -es -N -u NONE -c CMD -c 'qa!' f.txt` in a scratch folder): it
wrote the file named (`x` and `update` when the buffer was changed; `w >>` appends to a file already there). Read as
no write, each wrote a protocol file unseen: a command modifier before `w` (`silent`, `sil!`, `keepalt`,
`noautocmd`, `verbose`…), `exe "w F"`, `w!F`, `w ++enc=utf8 F`, `redir > F`, `mksession F`, `mkview F`, `mkvimrc F`,
`mkexrc F`, `wviminfo F`, `wundo F`, `g/RE/w F`, `windo w F`, a file name with an escaped blank; `vim -R`/`view`
with `w!` writes the file opened; `view`, `vimdiff`, `rvim`, `vim.basic` are vim (`rvim` writes files, only the
shell is refused it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand, WriteSession
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import sessions as _sessions


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


def _refused(brain: Brain, command: str, written: str, check: str = "protocol") -> None:
    _refused_all(brain, [command], written, check)


def _refused_all(brain: Brain, commands: list[str], written: str, check: str = "protocol") -> None:
    both = _sessions(brain)
    for command in commands:
        _refused_by(brain, both, command, written, check)


def _refused_by(brain: Brain, both: tuple[WriteSession, WriteSession], command: str, written: str,
                check: str) -> None:
    for session in both:
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, check), (command, decision)
    if check == "protocol":
        found = [target.path for target in read_command(command, str(brain.root)).targets]
        assert str(brain.root / written) in found, (command, found)


@pytest.mark.parametrize("command", [
    "silent w claims/y", "sil! w claims/y", "silent! write claims/y", "keepalt w claims/y", "noautocmd w claims/y",
    "verbose w claims/y", "5verbose w claims/y", "keepmarks keepjumps w claims/y", "lockmarks w claims/y",
    "vert w claims/y", "confirm w claims/y", "noswapfile w claims/y", "vim9cmd w claims/y", "legacy w claims/y",
    'exe "w claims/y"', "exe 'w claims/y'", "execute \"silent w claims/y\"",
    "w!claims/y", "w! claims/y", "w >> claims/y", "w>>claims/y", "w! >> claims/y", "x claims/y", "wq claims/y",
    "xit claims/y", "exit claims/y", "update claims/y", "up claims/y", "sav! claims/y", "saveas claims/y",
    "%w claims/y", "1,$w claims/y", "'<,'>w claims/y", "w ++enc=utf8 claims/y", "w ++ff=dos ++bin claims/y",
    "wn claims/y", "wN claims/y", "wp claims/y", "writ claims/y",
    "redir > claims/y", "redir! > claims/y", "redir >> claims/y", "redir>claims/y", "redi! >>claims/y",
    "mksession claims/y", "mks! claims/y", "mkview claims/y", "mkvimrc claims/y", "mkv claims/y",
    "mkexrc claims/y", "mk! claims/y", "wviminfo claims/y", "wv! claims/y", "wundo claims/y", "wu claims/y",
    "g/a/w claims/y", "global!/a/w claims/y", "v/a/w claims/y", "windo w claims/y", "bufdo w claims/y",
    "argdo silent w claims/y", "  :  w claims/y", "set ff=unix | w claims/y", "w claims/y \"a comment",
    "profile start claims/y",
])
def test_an_ex_command_writing_a_file_is_read(brain: Brain, command: str) -> None:
    """Every spelling of a write on `-c`, `--cmd` and `+` is read as the write it is."""
    quote = "'" if "'" not in command else '"'
    _refused_all(brain, [f"vim -es -c {quote}{command}{quote} -c 'qa!' src/f",
                         f"ex +{quote}{command}{quote} +'q!' src/f"], "claims/y")


def test_nvims_shada_is_read(brain: Brain) -> None:
    """nvim's `wshada F` (`wsh`) writes F (vim knows no such command)."""
    _refused(brain, "nvim --headless -c 'wsh claims/y' -c 'qa!' src/f", "claims/y")


def test_an_escaped_blank_is_part_of_the_name(brain: Brain) -> None:
    """`w claims/y\\ z` writes `claims/y z` (checked)."""
    _refused(brain, "vim -es -c 'w claims/y\\ z' -c 'qa!' src/f", "claims/y z")


@pytest.mark.parametrize(("command", "written"), [
    ("vim -es -c mksession -c 'qa!' src/f", "Session.vim"), ("vim -es -c 'mks!' -c 'qa!' src/f", "Session.vim"),
    ("vim -es -c mkvimrc -c 'qa!' src/f", ".vimrc"), ("vim -es -c mkexrc -c 'qa!' src/f", ".exrc"),
])
def test_a_file_written_by_default_is_in_the_working_folder(tmp_path: Path, command: str, written: str) -> None:
    """`mksession`, `mkvimrc`, `mkexrc` with no file write `Session.vim`, `.vimrc`, `.exrc` where vim runs."""
    found = [t.path for t in read_command(command, str(tmp_path / "claims")).targets]
    assert str(tmp_path / "claims" / written) in found, (command, found)


@pytest.mark.parametrize("command", [
    "vim -R -c 'w!' -c 'qa!' claims/x.yml", "vim -R -c 'wq!' claims/x.yml", "vim -R -c 'wa!' -c 'qa!' claims/x.yml",
    "view -c 'x!' claims/x.yml", "vim -R -c 'silent! w!' claims/x.yml", "vim -R -c 'wqa!' claims/x.yml",
    "view -c 'e! claims/x.yml' -c 'w!' src/f",
])
def test_a_forced_write_of_a_read_only_buffer_writes_it(brain: Brain, command: str) -> None:
    """`-R` and `view` make the buffer read-only, but `w!` writes it all the same (checked)."""
    _refused(brain, command, "claims/x.yml")


@pytest.mark.parametrize("name", ["view", "vimdiff", "rvim", "rview", "gvim", "gview", "evim", "eview", "vim.basic",
                                  "vim.tiny", "vim.nox", "vim.gtk3", "gvimdiff", "/usr/bin/vim.basic"])
def test_vims_other_names_are_vim(brain: Brain, name: str) -> None:
    """vim run by another name reads the same commands (`rvim` refuses the shell only: it wrote `claims/y`)."""
    _refused(brain, f"{name} -c 'w claims/y' -c 'qa!' src/f", "claims/y")


@pytest.mark.parametrize("command", [
    "vim -c '!rm claims/x.yml' -c 'qa!' src/f", "vim -es -c 'r !rm claims/x.yml' -c 'qa!' src/f",
    "vim -es -c 'w !cat > claims/x.yml' -c 'qa!' src/f", "vim -es -c 'silent !rm claims/x.yml' src/f",
    "vim -es +'%!tee claims/x.yml' src/f",
])
def test_a_shell_command_vim_runs_is_read(brain: Brain, command: str) -> None:
    """`:!CMD`, `:r !CMD`, `:w !CMD` and a filter `:%!CMD` run CMD with the shell."""
    _refused(brain, command, "claims/x.yml")


@pytest.mark.parametrize("command", [
    "vim -S src/s.vim src/f", "vim -S src/s.vim", "vim -s src/keys src/f", "vim -Rs src/keys src/f",
    "vim -u src/rc src/f", "vim -es -c 'exe \"w \" . g:name' -c 'qa!' src/f", "vim -es -c 'exe g:cmd' src/f",
    "vim -es -c 'call writefile([], \"claims/y\")' src/f", "vim -es -c 'source src/s.vim' src/f",
    "vim -es -c 'so src/s.vim' src/f", "vim -es -c 'au VimLeave * w claims/y' src/f",
    "vim -es -c 'echo writefile([], \"claims/y\")' src/f", "vim -es -c 'let x = delete(\"claims/x.yml\")' src/f",
    "vim -es -c 'py3 open(\"claims/y\", \"w\")' src/f", "vim -es -c 'lua io.open(\"claims/y\", \"w\")' src/f",
    "vim -es -c '%s/a/\\=writefile([], \"claims\\/y\")/' src/f",
])
def test_commands_the_line_does_not_show_make_it_unreadable(brain: Brain, command: str) -> None:
    """`-S FILE` sources a script, `-s FILE` types its keys, `-u FILE` is a vimrc, `exe` of an expression, and vim
    script's functions and languages run what the line does not spell: the line cannot be read whole."""
    _refused(brain, command, "", check="invalid")


@pytest.mark.parametrize("command", [
    "vim -R claims/x.yml", "view claims/x.yml", "vim -c 'q' claims/x.yml", "vim -es -c '%p' -c 'q!' claims/x.yml",
    "vim -es -c 'silent %p' -c 'q!' claims/x.yml", "vim -es -S /dev/null -c 'q!' claims/x.yml",
    "vim -es -u NONE -c 'q!' claims/x.yml", "vim -R -c 'set ff?' -c 'echo 1 + 1' -c 'qa!' claims/x.yml",
    "view -c 'w src/copy' -c 'q!' claims/x.yml", "vim -es -s -c 'g/a/p' -c 'q!' claims/x.yml",
    "ex -s -c 'p' -c 'q!' claims/x.yml", "vim -es -c 'exe \"%p\"' -c 'q!' claims/x.yml",
    "vim -R -c 'normal! gg' -c 'q!' claims/x.yml",
])
def test_reading_only_is_allowed(brain: Brain, command: str) -> None:
    """A read-only look at a protocol file is no write (`w FILE` elsewhere is that file's only)."""
    mine, _none = _sessions(brain)
    decision = brain.decide_write(ShellCommand(command), mine)
    assert decision.allowed, (command, decision)


@pytest.mark.parametrize("command", ["vim -es -c 'w src/y' -c 'qa!' src/f", "vim -es -c '%s/a/b/g' -c wq src/f",
                                     "vim -es -c 'silent w! src/y' src/f", "view -c 'w! src/y' src/f"])
def test_within_the_claim_it_is_allowed(brain: Brain, command: str) -> None:
    """Writes within the session's claim are written as any other."""
    mine, _none = _sessions(brain)
    decision = brain.decide_write(ShellCommand(command), mine)
    assert decision.allowed, (command, decision)


@pytest.mark.parametrize("command", ["vim.basic -es src/f <<< 'w claims/y'", "view -es src/f <<< 'w claims/y'",
                                     "rvim -e src/f <<< 'w claims/y'", "printf 'w claims/y\\n' | gvim -es src/f"])
def test_vims_other_names_read_their_standard_input(brain: Brain, command: str) -> None:
    """`-e`/`-es` by any of vim's names reads ex commands on its standard input, as `vim -es` does."""
    _refused(brain, command, "claims/y")


@pytest.mark.parametrize("command", ["vim", "vi --", "EDITOR=vim git status"])
def test_vim_without_arguments_writes_nothing_named(tmp_path: Path, command: str) -> None:
    """vim with no argument before `--` (bare, or as an editor a variable names) opens no file: nothing is a
    target, and the reader does not fail on it."""
    assert read_command(command, str(tmp_path)).targets == []
