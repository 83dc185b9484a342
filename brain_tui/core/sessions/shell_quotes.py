"""Quoted operator characters, for the shell's reader (`shell_targets`): a word is never an operator.

`shlex` in POSIX mode gives a quoted or escaped word without its quotes, so ``touch '|' claims/x.yml`` comes out as
``touch``, ``|``, ``claims/x.yml``: the same tokens as a pipe into a command named ``claims/x.yml``, and the file the
shell would touch went unseen. Before the line is split, `shield` puts a private-use stand-in in place of each
operator character (``( ) ; < > | &`` and a new line) that quotes or a backslash make plain text; `words` gives the
tokens back with their characters, a token that held a stand-in being a `QuotedWord` (never an operator).

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

__all__ = ["OPERATOR_CHARS", "QuotedWord", "shield", "words"]

#: The characters `shlex` splits off as operators (`punctuation_chars`), a new line among them.
OPERATOR_CHARS = "();<>|&\n"
_STAND_IN = {ch: chr(0xF8F0 + index) for index, ch in enumerate(OPERATOR_CHARS)}
_BACK = {ord(stand_in): ch for ch, stand_in in _STAND_IN.items()}


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
    for ch in text:
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


def words(tokens: list[str]) -> list[str]:
    """`tokens` with the stand-ins turned back into their characters; such a token is a `QuotedWord`."""
    return [QuotedWord(token.translate(_BACK)) if any(ord(ch) in _BACK for ch in token) else token
            for token in tokens]
