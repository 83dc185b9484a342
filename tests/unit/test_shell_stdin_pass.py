"""Text the line shows reaching a shell or an interpreter through other commands (SPEC 21.3): ``cat``, ``tee``,
``dd``, ``head`` keeping every line pass it on unchanged, a group or subshell of ``echo``/``printf`` writes their
joined words, printf's format is filled in; any other filter on the way changes it as the line does not say, and a
command running it then cannot be read. Each was checked with bash in a scratch folder: the file went; read as
nothing, the write passed the hook of an agent without an OS sandbox.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import refused_to_both
from tests.unit.shell_brain import sessions as _sessions


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


@pytest.mark.parametrize("command", [
    "echo 'rm claims/x.yml' | cat | sh",
    "echo 'import os; os.remove(\"claims/x.yml\")' | cat | python3",
    "echo 'import os; os.remove(\"claims/x.yml\")' | tee /dev/null | python3",
    "echo 'rm claims/x.yml' | tee -a notes.log | sh",
    "echo 'rm claims/x.yml' | cat - | sh",
    "echo 'rm claims/x.yml' | stdbuf -o0 cat | sh",
    "echo 'rm claims/x.yml' | dd status=none | sh",
    "echo 'rm claims/x.yml' | head -1 | sh",
    "echo 'rm claims/x.yml' | tail | sh",
    "echo 'rm claims/x.yml' | cat | cat | bash -s",
    "echo 'rm claims/x.yml' |& cat | sh",
    "cat <<< 'rm claims/x.yml' | sh",
    "echo claims/x.yml | cat | xargs rm",
    "{ echo 'import os'; echo 'os.remove(\"claims/x.yml\")'; } | python3",
    "(echo 'rm claims/x.yml') | bash",
    "(echo 'rm claims/x.yml')|bash",
    "echo 'rm claims/x.yml' | (cat) | sh",
    "echo 'rm claims/x.yml' | (sh)",
    "for i in 1; do echo 'rm claims/x.yml'; done | sh",
    "if true; then echo 'rm claims/x.yml'; fi | sh",
    "printf '%s' 'rm claims/x.yml' | sh",
    "printf '%sm claims/x.yml' r | sh",
    "cat <<EOF | cat | sh\nrm claims/x.yml\nEOF",
])
def test_text_passed_on_unchanged_is_read(brain: Brain, command: str) -> None:
    """The shell or interpreter at the end runs what the line shows: the protocol file it removes is a target."""
    reading = read_command(command, str(brain.root))
    assert str(brain.root / "claims" / "x.yml") in [t.path for t in reading.targets], (command, reading.targets)
    refused_to_both(brain, command)


@pytest.mark.parametrize("command", [
    "echo 'rm claims/x.yml' | tr a-z a-z | sh",
    "echo 'rm claims/x.yml' | sed 's/a/b/' | sh",
    "printf 'echo a\\nrm claims/x.yml\\n' | head -1 | sh",
    "echo 'rm claims/x.yml' | cat -n | sh",
    "echo 'rm claims/x.yml' | tr a-z a-z | cat | python3",
    "cat <<EOF | tr A-Z a-z | sh\nRM CLAIMS/X.YML\nEOF",
    "cat <<EOF | sed s/a/b/ | ed src/a.md\nw claims/a.yml\nEOF",
    "echo claims | grep c | xargs rm",
    "{ echo a | tr a b; } | sh",
])
def test_text_a_filter_changes_on_its_way_cannot_be_read(brain: Brain, command: str) -> None:
    """What the filter makes of the text is unknown: never read as nothing, the line is refused."""
    assert "changed on its way" in read_command(command, str(brain.root)).partial, command
    refused_to_both(brain, command)


@pytest.mark.parametrize("command", [
    "git log | head", "cat f | python3 x.py", "echo '{}' | python3 -m json.tool", "ls | sort | uniq",
    "echo x | sed s/x/y/ | less", "echo a | tr a b > src/out.txt", "cat src/a | sh",
])
def test_everyday_pipelines_pass(brain: Brain, command: str) -> None:
    """Data through filters into programs that do not run it, or a script the line does not show (the sandbox's)."""
    reading = read_command(command, str(brain.root))
    assert not reading.partial and not reading.terminal, (command, reading.partial, reading.terminal)
    mine, _unbound = _sessions(brain)
    assert brain.decide_write(ShellCommand(command), mine).allowed, command


@pytest.mark.parametrize("command", [
    "echo -ne 'rm claims/x.yml' | sh", "echo -en 'true\\nrm claims/x.yml' | sh", "echo -n -e 'rm\\tclaims/x.yml' | sh",
    "echo -e 'rm\\tclaims/x.yml' | sh", "echo -e 'rm claims\\x2fx.yml' | sh", "echo -e 'rm\\x20claims/x.yml' | bash",
])
def test_echo_reads_its_options_and_escapes_as_bash_does(brain: Brain, command: str) -> None:
    """bash's echo takes each leading word of `n`, `e` and `E` letters as options (`-ne`), and with `-e` decodes
    `\\t` and `\\xHH` too (checked in bash: claims/x.yml went)."""
    refused_to_both(brain, command)


@pytest.mark.parametrize(("command", "text"), [
    ("echo -ne 'a'", "a"), ("echo -e -E 'a\\tb'", "a\\tb"), ("echo -- a", "-- a"), ("echo a -n", "a -n"),
    ("echo -e 'a\\tb'", "a\tb"), ("echo -x a", "-x a"),
])
def test_what_echo_writes(command: str, text: str) -> None:
    from brain_tui.core.sessions.shell_substitutions import piped_text

    assert piped_text(shlex.split(command)) == text
