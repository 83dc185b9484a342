"""Crafted command lines the shell reader must read in linear time (SPEC 20.2, 21.3).

A hook that runs past its deadline is a "go ahead" to the agent (or, inside bsi's own deadline, a "brain busy"
refusal of an innocent command): no pattern of the reader may backtrack exponentially or quadratically on a line
an agent can send. Each line here took seconds (a little longer: hours); each must be read well under a second,
and still give the file it writes.
"""

from __future__ import annotations

import time

import pytest

from brain_tui.core.sessions.shell_targets import read_command

DIGITS = "1" * 26
SLASHES = "/" * 26


@pytest.mark.parametrize(("command", "expected"), [
    (f"ed a.txt <<'EOF'\n{DIGITS}!\nw other/a\nEOF", "/w/other/a"),  # an ed address of many digits
    (f"printf '{DIGITS}x\\nw other/a\\n' | ed a.txt", "/w/other/a"),
    (f"ed a.txt <<'EOF'\n{SLASHES}!\nw other/a\nEOF", "/w/other/a"),  # unclosed `/` addresses, one after another
    (f"ed a.txt <<'EOF'\n/{DIGITS} 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1!\nw other/a\nEOF", "/w/other/a"),
    ("sed 's/" + "\\\\" * 34 + "' a.txt; echo x > other/a", "/w/other/a"),  # an unclosed `s` of backslashes
    ("sed -e 's/a/b/;s/" + "\\\\" * 34 + "' a.txt; touch other/a", "/w/other/a"),
    ("vim -c '" + " " * 30_000 + "' a.txt; echo x > other/a", "/w/other/a"),  # an ex command of blanks
    ("vim -c 'w" + " " * 30_000 + "' a.txt; echo x > other/a", "/w/other/a"),
    ("sed '1" + " " * 20_000 + "x' a.txt; echo x > other/a", "/w/other/a"),  # blanks after a sed address
    (f"ed a.txt <<'EOF'\n{' ' * 30_000}x\nw other/a\nEOF", "/w/other/a"),
])
def test_a_crafted_line_is_read_quickly_and_still_gives_its_target(command: str, expected: str) -> None:
    started = time.monotonic()
    paths = {target.path for target in read_command(command, "/w", home="/home/u").targets}
    assert time.monotonic() - started < 1.0
    assert expected in paths


def test_an_ed_text_command_after_an_address_is_still_text() -> None:
    """`1,$a` / `/re/i` / `'xc` open text mode: their lines are text, not commands."""
    for opener in ("1,$a", "/re/i", "'xc", "a", "$a", "?re?c"):
        line = f"ed a.txt <<'EOF'\n{opener}\nw other/a\n.\nw\nEOF"
        assert "/w/other/a" not in {t.path for t in read_command(line, "/w", home="/home/u").targets}, opener
