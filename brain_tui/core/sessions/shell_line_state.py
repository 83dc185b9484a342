"""What a shell command line changes for its own later commands, for the shell's reader (`shell_targets`).

A line can move what its later words mean: ``HOME=/elsewhere`` (or ``export``, ``declare``, ``read HOME``…) sends
``~`` and a bare ``cd`` elsewhere than the hook's own ``HOME`` says, and ``CDPATH=…`` sends ``cd NAME`` into another
folder. Such a line is not read as if they were unchanged: the reading is partial (the write decision refuses it),
as a target it names may be placed wrong.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import re

__all__ = ["LineState"]

#: A word naming HOME where the shell may set it (`HOME=`, `export HOME`, `read HOME`, `unset HOME`, `${HOME:=…}`),
#: not where it only expands it (`$HOME`, `${HOME}`).
_SETS_HOME = re.compile(r"(?<![\w$/.{-])HOME(?![\w.])|\$\{HOME:?=")
_SETS_CDPATH = re.compile(r"(?<![\w$/.{-])CDPATH(?![\w.])|\$\{CDPATH:?=")
#: A `~` the shell expands: at a word's start, or after `=` or `:` in an assignment.
_TILDE = re.compile(r"(?:^|[\s=:;&|(<>{])~")


class LineState:
    """What the whole line sets that changes how its paths are placed (read once from its text)."""

    __slots__ = ("home_set", "cdpath_set")

    def __init__(self, text: str) -> None:
        self.home_set = bool(_SETS_HOME.search(text))
        self.cdpath_set = bool(_SETS_CDPATH.search(text))

    def unplaced(self, text: str) -> str:
        """Why the paths of the line `text` cannot be placed ("" when they can): a `~` after the line sets HOME."""
        if self.home_set and _TILDE.search(text):
            return "a `~` on a line that sets HOME"
        return ""

    def cd_unplaced(self, operands: list[str]) -> str:
        """Why a `cd` with these operands goes nowhere the line shows ("" when it does)."""
        if not operands and self.home_set:
            return "a bare `cd` on a line that sets HOME"
        if operands and self.cdpath_set and not operands[0].startswith(("/", ".", "~")):
            return "a `cd` on a line that sets CDPATH"
        return ""
