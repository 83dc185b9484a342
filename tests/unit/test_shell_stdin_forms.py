"""More spellings of text the line shows reaching a shell on its standard input (SPEC 21.3): printf's `*` width
and precision taking arguments, echo's and `%b`'s own escapes (`\\0NNN`, `\\c`), an echo whose backslashes another
echo decodes (bash's `xpg_echo`, dash's and zsh's echo), a shell or `source` reading `/dev/stdin`, and a group's
input reaching each of its commands. Each was checked with bash in a scratch folder: claims/x.yml went, and the
reader read the line as writing nothing, or another file, so an agent without an OS sandbox passed its hook.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.sessions.shell_substitutions import piped_text
from tests.unit import shell_brain
from tests.unit.shell_brain import refused_to_both


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


@pytest.mark.parametrize(("command", "text"), [
    ("printf '%*s' 0 'rm x'", "rm x"), ("printf '%.*s' 99 'rm x'", "rm x"), ("printf '%*.*s' 0 99 'rm x'", "rm x"),
    ("printf '%-*s|' 3 a", "a|"),
    ("echo -e 'a\\0143b'", "acb"), ("printf '%b' 'a\\0143b'", "acb"), ("printf '%b' 'a\\143b'", "acb"),
    ("echo -e 'a\\143b'", "a\\143b"), ("echo -e 'a\\cb'", "a"), ("printf '%b|%s' 'a\\cb' x", "a"),
    ("printf 'a\\cb'", "a\\cb"), ("echo -e 'a\\0b'", "a\0b"),
])
def test_what_printf_and_echo_write(command: str, text: str) -> None:
    """As bash 5.2 writes them: `*` takes its number from the arguments; echo -e and %b read `\\0NNN` (zero to
    three digits after the 0), %b also `\\NNN`; `\\c` ends all output (printf's format keeps it)."""
    assert piped_text(shlex.split(command)) == text


@pytest.mark.parametrize("command", [
    "printf '%*s' 0 'rm claims/x.yml' | sh",
    "printf '%.*s' 99 'rm claims/x.yml' | sh",
    "printf '%*.*s' 0 99 'rm claims/x.yml' | sh",
    "echo -e 'rm \\0143laims/x.yml' | sh",
    "printf '%b' 'rm \\0143laims/x.yml' | sh",
    "echo -e 'rm -rf claims\\c' | sh",
    "printf '%b' 'rm -rf claims\\c' x | sh",
    "shopt -s xpg_echo; echo 'rm claims\\x2fx.yml' | sh",
    "bash -O xpg_echo -c \"echo 'rm claims\\x2fx.yml' | sh\"",
    "sh -c \"echo 'rm claims\\\\0057x.yml' | sh\"",
    "echo -E 'true\\nrm claims\\0057x.yml' | sh",
    "bash /dev/stdin <<< 'rm claims/x.yml'",
    "echo 'rm claims/x.yml' | bash /dev/fd/0",
    "bash /proc/self/fd/0 <<< 'rm claims/x.yml'",
    "source /dev/stdin <<< 'rm claims/x.yml'",
    "echo 'rm claims/x.yml' | . /dev/stdin",
    "echo 'rm claims/x.yml' | { echo true; cat; } | sh",
    "{ echo true; cat; } <<< 'rm claims/x.yml' | sh",
    "(cat) <<< 'rm claims/x.yml' | sh",
])
def test_text_shown_reaching_a_shell_is_refused(brain: Brain, command: str) -> None:
    """The shell at the end runs what bash hands it: the line writes a protocol file, or cannot be read whole."""
    refused_to_both(brain, command)
