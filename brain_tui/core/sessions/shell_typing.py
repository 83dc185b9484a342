"""Text typed into a running program (Codex `write_stdin`): what keeps it from being read as whole shell lines.

The program behind the typing is not known to the hook; the text is read as what a shell would run
(`shell_targets`), and refused when that reading cannot stand for what the program does with it: keys other than
the line end (a tab completes a word, an escape drives a full-screen editor, a control key edits or stops), a line
left for the next text to complete (no final line end, a ``\\`` continuing it, an open quote), or a history
expansion (``!!``, ``^a^b``: an earlier line run again, changed). Standard library only.
"""

from __future__ import annotations

import re
import shlex

from brain_tui.core.lazy_re import LazyPattern

#: Bash's history expansion: ``!`` not followed by a blank, ``=`` or ``(`` (outside single quotes), or a line
#: starting with ``^`` (quick substitution).
_HISTORY = LazyPattern(r"!(?![\s=(]|$)|^\s*\^", re.MULTILINE)
_CONTROL = LazyPattern(r"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]")


def typing_problem(chars: str) -> str:
    """Why `chars` cannot be read as whole shell lines ("" when it can)."""
    control = _CONTROL.search(chars)
    if control:
        return f"it holds the key {control.group()!r}, which a terminal program acts on"
    lines = chars.replace("\r\n", "\n").replace("\r", "\n")
    if not lines.endswith("\n"):
        return "its last line is unfinished (what the next text adds to it is unknown)"
    if lines.endswith("\\\n"):
        return "its last line goes on in the next text"
    try:
        shlex.split(lines, comments=True)
    except ValueError:
        return "a quote is left open for the next text"
    outside_quotes = re.sub(r"'[^'\n]*'", "''", lines)
    if _HISTORY.search(outside_quotes):
        return "it runs an earlier line again (history expansion)"
    return ""
