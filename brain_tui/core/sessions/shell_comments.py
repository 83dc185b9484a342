"""A shell command line's words as the shell's first pass leaves them, before it is split into words (the words no
longer say what was quoted): comments out (a ``#`` that starts a word outside quotes, to the end of its line:
``echo '#!/bin/sh' > f`` holds no comment and writes ``f``), line joins done (a backslash-newline outside single
quotes joins its lines into one word, and never continues a comment), and ANSI-C quotes (``$'\\x63laims'``) and
locale quotes (``$"…"``) turned into the plain quotes of the text they stand for."""

from __future__ import annotations

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.sessions.shell_quotes import nested_end

__all__ = ["without_comments"]

_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
           "\\": "\\", "'": "'", '"': '"', "?": "?"}
_NUMERIC = LazyPattern(r"[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|c.")


def without_comments(text: str) -> str:
    """`text` without its comments and line joins, its ``$'…'`` and ``$"…"`` quotes made plain (see the module)."""
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(text):
        ch = text[index]
        if quote == '"' and (ch == "`" or text.startswith(("$(", "${"), index)):  # its quotes start anew
            end = nested_end(text, index)
            out.append(text[index:end])
            index = end
            continue
        if quote:
            if ch == "\\" and quote == '"' and index + 1 < len(text):
                if text[index + 1] != "\n":
                    out.append(text[index:index + 2])
                index += 2
                continue
            quote = "" if ch == quote else quote
        elif ch == "\\" and index + 1 < len(text):
            if text[index + 1] != "\n":
                out.append(text[index:index + 2])
            index += 2
            continue
        elif ch == "$" and text.startswith(("$'", '$"'), index):
            if text[index + 1] == "'":
                word, index = _ansi_c(text, index + 2)
                out.append("'" + word.replace("'", "'\"'\"'") + "'")
                continue
            index += 1  # `$"…"`: the text is translated for the locale, a double-quoted word still
            continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (index == 0 or text[index - 1] in " \t\n;&|()<>"):  # (`a\r#` is one word)
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
            continue
        out.append(ch)
        index += 1
    return "".join(out)


def _ansi_c(text: str, index: int) -> tuple[str, int]:
    """The text an ANSI-C quote stands for, from just past its ``$'``, and the index past its closing quote (an
    unclosed one runs to the end, as the word splitting then finds it unclosed)."""
    word: list[str] = []
    while index < len(text):
        ch = text[index]
        if ch == "'":
            return "".join(word), index + 1
        if ch != "\\" or index + 1 >= len(text):
            word.append(ch)
            index += 1
            continue
        escape = text[index + 1]
        if escape in _SIMPLE:
            word.append(_SIMPLE[escape])
            index += 2
            continue
        number = _NUMERIC.match(text, index + 1)
        if number is None:
            word.append(text[index:index + 2])
            index += 2
            continue
        digits = number.group()
        index = number.end()
        if digits[0] == "c":
            word.append(chr(ord(digits[1]) & 0x1F))
        elif digits[0] in "xuU":
            word.append(chr(min(int(digits[1:], 16), 0x10FFFF)))
        else:
            word.append(chr(int(digits, 8) & 0xFF))
    return "".join(word) + "'", index
