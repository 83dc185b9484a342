"""Regular expressions compiled on first use, not at import (start-up, issue 18).

A module-level ``re.compile`` runs in every process that imports the module, used
or not: the index renderer's patterns, for instance, cost every read command that
only lists claims. `LazyPattern` keeps the pattern's source and compiles it (once)
when it is first matched.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # not `typing`: the hooks' fast path imports this module
if TYPE_CHECKING:
    from typing import Any

__all__ = ["LazyPattern"]


class LazyPattern:
    """`re.compile(source, flags)` on first use; the `re.Pattern` methods the product calls.

    Args:
        source: the pattern.
        flags: `re` flags.
    """

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now when it is the first use)."""
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    @property
    def pattern(self) -> str:
        """The pattern's source."""
        return self._source

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """`re.Pattern.match`."""
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """`re.Pattern.fullmatch`."""
        return self.compiled.fullmatch(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """`re.Pattern.search`."""
        return self.compiled.search(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        """`re.Pattern.sub`."""
        return self.compiled.sub(repl, string, count)

    def finditer(self, string: str) -> Iterator[re.Match[str]]:
        """`re.Pattern.finditer`."""
        return self.compiled.finditer(string)

    def findall(self, string: str) -> list[Any]:
        """`re.Pattern.findall`."""
        return self.compiled.findall(string)

    def split(self, string: str, maxsplit: int = 0) -> list[Any]:
        """`re.Pattern.split`."""
        return self.compiled.split(string, maxsplit)
