"""What an option of a program other than git takes, as the program reads it, for the shell's reader (SPEC 21.3).

mkfifo's `-Z` and zstd's `-S` are flags, mktemp's `--tmpdir` and mkfifo's `--context` take a value only attached
(`--tmpdir=DIR`): read as taking the next word, `mkfifo -Z claims/x.yml`, `zstd -S claims/x.yml` (it writes
`claims/x.yml.zst`) and `mktemp --tmpdir -p claims x.XXXXXX` (a file in claims/) wrote a protocol file unseen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import sessions as _sessions


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)




@pytest.mark.parametrize(("command", "written"), [
    ("mkfifo -Z claims/x.fifo", "claims/x.fifo"), ("mkfifo --context claims/x.fifo", "claims/x.fifo"),
    ("mkfifo -m 600 -Z claims/x.fifo", "claims/x.fifo"),
    ("zstd -S claims/x.yml", "claims/x.yml.zst"), ("zstd -q -S claims/x.yml", "claims/x.yml"),
    ("unzstd -S claims/x.yml.zst", "claims/x.yml.zst"),
])
def test_a_flag_takes_no_next_word(brain: Brain, command: str, written: str) -> None:
    """The word after mkfifo's `-Z`, zstd's `-S` is a file the program writes, not their value."""
    reading = read_command(command, str(brain.root))
    assert str(brain.root / written) in [target.path for target in reading.targets], (command, reading.targets)
    for session in _sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


def test_mktemp_tmpdir_alone_takes_no_next_word(brain: Brain) -> None:
    """`mktemp --tmpdir -p claims x.XXXXXX` makes a file in claims/ (`--tmpdir` without `=DIR` takes none)."""
    command = "mktemp --tmpdir -p claims x.XXXXXX"
    reading = read_command(command, str(brain.root))
    assert str(brain.root / "claims" / "x.XXXXXX") in [target.path for target in reading.targets], reading.targets
    for session in _sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), decision


def test_mktemp_tmpdir_without_a_folder_writes_in_the_environment_s(brain: Brain) -> None:
    """`mktemp --tmpdir claims/x.XXXXXX` writes below `$TMPDIR` (else /tmp), which the line does not show; with
    `--tmpdir=DIR` below DIR."""
    reading = read_command("mktemp --tmpdir claims/x.XXXXXX", str(brain.root))
    assert reading.targets == [] and reading.unread, (reading.targets, reading.unread)
    reading = read_command("mktemp --tmpdir=claims x.XXXXXX", str(brain.root))
    assert [target.path for target in reading.targets] == [str(brain.root / "claims" / "x.XXXXXX")]


def test_gzip_license_is_a_flag(brain: Brain) -> None:
    """`gzip -L` (`--license`) takes no value: the word after it is an operand (read as written: stricter)."""
    reading = read_command("gzip -L src/a", str(brain.root))
    assert str(brain.root / "src" / "a.gz") in [target.path for target in reading.targets], reading.targets


@pytest.mark.parametrize("command", ["cp --sparse always src/a BRAIN-INDEX.md",
                                     "cp --no-preserve mode src/a BRAIN-INDEX.md",
                                     "install --strip-program strip src/a BRAIN-INDEX.md"])
def test_a_value_given_as_the_next_word_is_no_source(brain: Brain, command: str) -> None:
    """cp's `--sparse WHEN`, `--no-preserve ATTRS`, install's `--strip-program PROG` take the next word: the last
    operand is the file written, not a folder the value and the source are copied into."""
    reading = read_command(command, str(brain.root))
    assert [target.path for target in reading.targets] == [str(brain.root / "BRAIN-INDEX.md")], reading.targets
