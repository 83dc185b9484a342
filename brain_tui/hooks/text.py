"""Brain text inside a hook message or an MCP result: facts, short, inert (SPEC 15, DESIGN 7).

What an agent reads from a hook is context for a model. Claim and signal
text comes from other sessions and is hostile: it is cut short, its control,
bidi and zero-width characters are shown as visible placeholders (``⟨ESC⟩``,
``⟨U+202E⟩``; the set is core/text_safety.py's, as on the cockpit's screen)
and newlines are folded, so it can neither hide text, nor
fake a line of the message, nor reach a terminal as an escape sequence.
"""

from __future__ import annotations

from brain_tui.core import text_safety

ELLIPSIS = "…"


def placeholder(char: str) -> str | None:
    """The placeholder of one character in a hook message (a tab or newline folds into a space).

    The hidden set is core/text_safety.py's, the same as on the cockpit's screen.
    """
    if char in "\t\n\r":
        return " "
    return text_safety.placeholder(char)


def fact(value: object, limit: int = 120) -> str:
    """One line of brain text made inert and cut to `limit` characters (with an ellipsis).

    Args:
        value: the text (anything: it is turned into a string).
        limit: the most characters kept.
    """
    text = "" if value is None else str(value)
    out: list[str] = []
    size = 0
    for char in text[: limit * 4]:
        shown = placeholder(char) if (ord(char) < 0x20 or ord(char) >= 0x7F) else None
        piece = char if shown is None else shown
        out.append(piece)
        size += len(piece)
        if size > limit:
            break
    joined = " ".join("".join(out).split())
    if len(joined) > limit or len(text) > limit * 4:
        joined = joined[: limit - 1].rstrip() + ELLIPSIS
    return joined
