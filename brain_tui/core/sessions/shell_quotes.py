"""Quoted operator characters, for the shell's reader (`shell_targets`): a word is never an operator.

`shlex` in POSIX mode gives a quoted or escaped word without its quotes, so ``touch '|' claims/x.yml`` comes out as
``touch``, ``|``, ``claims/x.yml``: the same tokens as a pipe into a command named ``claims/x.yml``, and the file the
shell would touch went unseen. Before the line is split, `shield` puts a private-use stand-in in place of each
operator character (``( ) ; < > | &`` and a new line) that quotes or a backslash make plain text; `words` gives the
tokens back with their characters, a token that held a stand-in being a `QuotedWord` (never an operator).

Inside double quotes, ``$(…)``, backquotes and ``${…}`` start their quotes anew (bash): ``"$(echo '"')"`` is one
word, and a flat reading that closed the word at the inner ``"`` would take the ``'`` after it for a quote holding
the line's next pipe or ``;``. `nested_end` finds where such a part ends; `shield` stands in for every operator and
quote character inside it (`shell_comments` and `shell_substitutions` skip it the same way).

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import re

from brain_tui.core.lazy_re import LazyPattern

__all__ = ["ASSIGNMENT", "continued", "is_operator", "OPERATOR_CHARS", "QuotedWord", "nested_end", "shield", "words"]

#: The characters `shlex` splits off as operators (`punctuation_chars`), a new line among them.
OPERATOR_CHARS = "();<>|&\n"
#: Stand-ins for the operator characters, then (inside a nested part of a double-quoted word only) the quotes.
_NESTED_STAND_IN = {ch: chr(0xF8F0 + index) for index, ch in enumerate(OPERATOR_CHARS + "'\"")}
_STAND_IN = {ch: _NESTED_STAND_IN[ch] for ch in OPERATOR_CHARS}
_BACK = {ord(stand_in): ch for ch, stand_in in _NESTED_STAND_IN.items()}
#: The operators after which the command list goes on past a new line (`false &&` NEWLINE `cd D`), and `&` (a job
#: sent to the background: the new line after it ends nothing more), with the new lines that follow them.
_GOES_ON = LazyPattern(r"(&&|\|\||\|&|\||&)\n+")
#: A word bash takes as an assignment before a command (`X=1`, `X+=1` appending, `A[K]=1` to an element): its
#: name (group 1) and its value after `=`; the command after it runs all the same.
ASSIGNMENT = LazyPattern(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[.*\])?(\+?)=", re.DOTALL)


def is_operator(token: str) -> bool:
    """True when a token of the line is an operator (`;`, `|`, `&&`, `>`, `(`…), never a `QuotedWord`."""
    return bool(token) and not isinstance(token, QuotedWord) and all(ch in OPERATOR_CHARS for ch in token)


class QuotedWord(str):
    """A token that held a quoted or escaped operator character: a word of its command, whatever it spells."""

    __slots__ = ()


def shield(text: str) -> str | None:
    """`text` with each operator character inside single or double quotes, or after a backslash, replaced by its
    stand-in; None when `text` holds a stand-in already (it could not be told from one: the line cannot be read)."""
    if any(ord(ch) in _BACK for ch in text):
        return None
    out: list[str] = []
    quote = ""
    escaped = False
    index = 0
    while index < len(text):
        ch = text[index]
        index += 1
        if quote == '"' and not escaped and (ch == "`" or text.startswith(("$(", "${"), index - 1)):
            end = nested_end(text, index - 1)
            out.extend(_NESTED_STAND_IN.get(part, part) for part in text[index - 1:end])
            index = end
            continue
        if escaped:
            out.append(_STAND_IN.get(ch, ch) if ch != "\n" else ch)  # (a line join was undone before)
            escaped = False
            continue
        if ch == "\\" and quote != "'":
            escaped = True
        elif quote and ch == quote:
            quote = ""
        elif not quote and ch in "'\"":
            quote = ch
        elif quote:
            out.append(_STAND_IN.get(ch, ch))
            continue
        out.append(ch)
    return "".join(out)


def nested_end(text: str, index: int) -> int:
    """The index just past the ``$(…)``, ``${…}`` or backquoted part that starts at `index` (its quotes, escapes
    and nested parts skipped, as bash reads them); the end of `text` when it is unclosed.

    The parts nested in it are followed on a stack of their own, not by recursion: a line thousands of parts deep
    is read to its end, never past Python's recursion limit."""
    if text[index] == "`":
        return _backquote_end(text, index)
    # each open part: [opener, closer, parentheses or braces open inside it], or None for a double-quoted part
    stack: list[list[str | int] | None] = []
    while True:
        if text[index] == "`":
            index = _backquote_end(text, index)
        elif text[index] == '"':
            stack.append(None)
            index += 1
        else:  # `$(` or `${`
            stack.append(["(", ")", 0] if text[index + 1] == "(" else ["{", "}", 0])
            index += 2
        index = _inner_end(text, index, stack)
        if index >= len(text):
            return len(text)
        if not stack:
            return index


def _inner_end(text: str, index: int, stack: list[list[str | int] | None]) -> int:
    """Read `text` from `index` inside the parts open on `stack`, closing them as they end; return where the
    outermost closes (`stack` then empty), or where the next nested part starts (to be opened), or the end of
    `text`."""
    while index < len(text):
        frame = stack[-1]
        ch = text[index]
        if ch == "\\":
            index += 2
        elif ch == "`" or text.startswith(("$(", "${"), index):
            return index
        elif frame is None:  # in double quotes
            index += 1
            if ch == '"':
                stack.pop()
        elif ch == "'":
            close = text.find("'", index + 1)
            index = len(text) if close < 0 else close + 1
        elif ch == '"':
            return index
        else:
            index += 1
            if ch == frame[0]:
                frame[2] = int(frame[2]) + 1
            elif ch == frame[1]:
                if frame[2] == 0:
                    stack.pop()
                    if not stack:
                        return index
                else:
                    frame[2] = int(frame[2]) - 1
    return len(text)


def _backquote_end(text: str, index: int) -> int:
    """The index just past the backquote closing the backquoted part that starts at `index`."""
    end = index + 1
    while end < len(text) and text[end] != "`":
        end += 2 if text[end] == "\\" else 1
    return min(end + 1, len(text))


def words(tokens: list[str]) -> list[str]:
    """`tokens` with the stand-ins turned back into their characters; such a token is a `QuotedWord`."""
    return [QuotedWord(token.translate(_BACK)) if any(ord(ch) in _BACK for ch in token) else token
            for token in tokens]


def continued(tokens: list[str]) -> list[str]:
    """`tokens` (the split line) without the new lines bash skips: after `&&`, `||`, `|` or `|&` the command list
    goes on on the next line (``false &&`` NEWLINE ``cd D`` runs `cd` only when `false` succeeds), and after `&` a
    new line ends nothing more. Such an operator then reads as itself (``&&``, not ``&&`` NEWLINE)."""
    kept: list[str] = []
    for token in tokens:
        if is_operator(token) and not any(ch in token for ch in "<>"):
            token = _GOES_ON.sub(r"\1", token)
            if not token.strip("\n") and kept and is_operator(kept[-1]) and kept[-1].endswith(("&", "|")):
                continue
        kept.append(token)
    return kept
