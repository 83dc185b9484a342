"""The shell reader reads any line an agent may send and answers: a `ShellReading`, never an exception, in bounded
time. A line nested deeper than the reader follows (``$(`` thousands deep, a double quote inside each) is read as
far as it goes and said to be partly read; it does not exhaust Python's stack (the hook would then fail on an
internal error, which SPEC 13 forbids)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain_tui.core.sessions.shell_targets import ShellReading, read_command
from brain_tui.hooks.main import DEADLINE_S

DEEP = 5000
#: A line must be read within the hook's own deadline (past it the hook answers "brain busy": no reading at all).
#: This is the hook's contract, not a speed goal (the benchmarks measure speed).
BOUND_S = DEADLINE_S


@pytest.mark.parametrize("line", [
    "$(" * DEEP,
    "$(" * DEEP + "rm x" + ")" * DEEP,
    "${" * DEEP,
    "\"$(echo \"" * DEEP,
    "$(`$(`(" * DEEP,
    "A=$(" * DEEP,
    "echo \"${x:-\"" * DEEP,
], ids=["unclosed", "closed", "braces", "quoted", "mixed", "assigned", "defaults"])
def test_a_line_nested_thousands_deep_is_read_partly_without_exhausting_the_stack(line: str, tmp_path: Path) -> None:
    started = time.monotonic()
    reading = read_command(line, str(tmp_path), str(tmp_path))
    assert isinstance(reading, ShellReading)
    assert time.monotonic() - started < BOUND_S


@pytest.mark.parametrize("line", [
    "rm {" + "a,{" * 15000 + "}" * 15000,
    "rm {" + "a,{" * 15000 + "}" * 14999,
    "rm " + "x" * 60000 + "{1..4000}",
    "rm x{1..99999}{1..99999}",
    "rm x{" + "0" * 5000 + "1..4000}",
], ids=["nested", "unclosed", "long", "ranges", "padded"])
def test_a_brace_expansion_into_megabytes_of_words_is_not_read_whole(line: str, tmp_path: Path) -> None:
    started = time.monotonic()
    reading = read_command(line, str(tmp_path), str(tmp_path))
    assert time.monotonic() - started < BOUND_S
    assert reading.partial.startswith("a brace expansion into more than") and reading.targets == []


#: The pieces the reader reacts to: its operators, quotes, nestings, escapes, and the commands it reads within.
_TOKENS = st.sampled_from([
    "$(", "(", ")", "{", "}", "${", "`", "'", "\"", "\\", "|", "||", "&&", ";", "&", "\n", "<<", "<<<", "<<-",
    "EOF", ">", ">>", "2>&1", "<(", ">(", "$((", "$'", "#", "=", "A=", " ", " ", " ",
    "cd", "cd -", "pushd", "popd", "rm", "echo", "-e", "-ne", "-E", "printf", "%b", "%99999999s", "%*s", "\\x",
    "\\u12", "\\U110000", "\\N{", "\\N{NO SUCH NAME}", "\\0777", "\\c", "sh", "bash", "-c", "-xc", "eval", "xargs",
    "python3", "perl", "-le", "q{", "qx(", "\"\"\"", "'''", "sed", "-i", "git", "-C", "commit", "claims/x.yml",
    "src/a.py", "..", "~", "-", "*", "{a,b}", "{1..3}", "alias", "source", "exec", "env", "tee", "cp", "mv", "dd",
    "of=", "vim", "ex", "apply_patch", "*** Begin Patch", "*** Add File: ", "\ud800", "\x01", "\u202e",
])


@settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TOKENS, max_size=40).map("".join))
def test_any_line_of_the_readers_own_pieces_is_read_in_bounded_time(line: str) -> None:
    started = time.monotonic()
    reading = read_command(line, "/nonexistent/w", "/nonexistent")
    assert isinstance(reading, ShellReading)
    assert time.monotonic() - started < BOUND_S
