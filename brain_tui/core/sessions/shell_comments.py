"""A shell command line's comments, as the shell finds them: a ``#`` that starts a word outside quotes, to the end
of its line. Read before the line is split into words, since the words no longer say what was quoted
(``echo '#!/bin/sh' > f`` holds no comment and writes ``f``)."""

from __future__ import annotations

__all__ = ["without_comments"]


def without_comments(text: str) -> str:
    """`text` without its comments: a ``#`` that starts a word outside quotes, to the end of its line (as the shell
    reads it: ``echo '#x' > f`` and ``a#b`` hold no comment; the tokens no longer say what was quoted)."""
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(text):
        ch = text[index]
        if quote:
            if ch == "\\" and quote == '"' and index + 1 < len(text):
                out.append(text[index:index + 2])
                index += 2
                continue
            quote = "" if ch == quote else quote
        elif ch == "\\" and index + 1 < len(text):
            out.append(text[index:index + 2])
            index += 2
            continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (index == 0 or text[index - 1] in " \t\r\n;&|()<>"):
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
            continue
        out.append(ch)
        index += 1
    return "".join(out)
