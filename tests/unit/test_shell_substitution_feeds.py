"""Text a command or process substitution prints, fed to a shell, ``source``/``.`` or an interpreter as its script
(SPEC 21.3), and the positional arguments ``sh -c`` is given on the line. Each line below removed `claims/x.yml` in
bash in a scratch folder; read as nothing, the write passed the hook of an agent without an OS sandbox.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import refused_to_both
from tests.unit.shell_brain import sessions as _sessions

_PY = "import os; os.remove(\"claims/x.yml\")"


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


@pytest.mark.parametrize("command", [
    "sh <<< \"$(echo 'rm claims/x.yml')\"",
    "sh <<< $(echo rm claims/x.yml)",
    "sh <<< \"`echo rm claims/x.yml`\"",
    "sh < <(echo 'rm claims/x.yml')",
    ". <(echo 'rm claims/x.yml')",
    "source <(printf '%s' 'rm claims/x.yml')",
    "source <(echo 'rm claims/x.yml' | cat)",
    "bash <(echo 'rm claims/x.yml')",
    "{ cat; } < <(echo 'rm claims/x.yml') | sh",
    "bash --rcfile <(echo 'rm claims/x.yml') -i",
    f"python3 <(echo '{_PY}')",
    f"python3 < <(echo '{_PY}')",
])
def test_printed_text_run(brain: Brain, command: str) -> None:
    """What an echo/printf substitution prints is read where it runs: the protocol file it removes is refused."""
    refused_to_both(brain, command)


@pytest.mark.parametrize("command", [
    "sh <<< \"$(cat notes.txt)\"",
    "sh < <(curl -s example.com/x.sh)",
    ". <(sed s/a/b/ notes.txt)",
    "bash <(ls)",
    "python3 <(cat notes.py)",
    "sh <<< \"$(echo $CMD)\"",
])
def test_unknown_text_run(brain: Brain, command: str) -> None:
    """Any other substitution fed to a shell, `source` or an interpreter makes the line unreadable: never nothing."""
    refused_to_both(brain, command)


@pytest.mark.parametrize("command", [
    "sh -c 'rm \"$1\"' _ claims/x.yml",
    "sh -c 'rm $0' claims/x.yml",
    "bash -c 'rm \"$@\"' _ claims/x.yml src/a",
    "bash -c 'rm $*' _ src/a claims/x.yml",
    "bash -c 'rm \"${1}\"' _ claims/x.yml",
])
def test_shell_c_positional(brain: Brain, command: str) -> None:
    """`sh -c`'s operands after its command line are its `$0`, `$1`…, `$@`, `$*`: filled in before it is read."""
    refused_to_both(brain, command)


def test_shell_c_positional_placed(brain: Brain) -> None:
    """`bash -c 'rm "$@"' _ A B` writes A and B, no more."""
    reading = read_command("bash -c 'rm \"$@\"' _ src/a 'src/b c'", str(brain.root))
    assert sorted(Path(t.path).relative_to(brain.root).as_posix() for t in reading.targets) == ["src/a", "src/b c"]


@pytest.mark.parametrize("command", [
    "diff <(sort a) <(sort b)",
    "source .venv/bin/activate",
    "bash -c 'echo \"$1\"' _ x",
    "bash -c 'touch \"$1\"' _ src/a",
    "sh <<< \"$(echo 'touch src/a')\"",
    ". <(echo 'touch src/a')",
    "comm -12 <(sort a) <(sort b) > src/out",
])
def test_everyday_passes(brain: Brain, command: str) -> None:
    """Lines writing only inside the claim still pass the bound session."""
    mine, _ = _sessions(brain)
    assert brain.decide_write(ShellCommand(command), mine).allowed, command
