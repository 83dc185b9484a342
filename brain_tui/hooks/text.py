"""Brain text inside a hook message or an MCP result: facts, short, inert (SPEC 15, DESIGN 7).

What an agent reads from a hook is context for a model. Claim and signal
text comes from other sessions and is hostile: it is cut short, its control,
bidi and zero-width characters are shown as visible placeholders (``⟨ESC⟩``,
``⟨U+202E⟩``) and newlines are folded, so it can neither hide text, nor
fake a line of the message, nor reach a terminal as an escape sequence.
"""

from __future__ import annotations

import unicodedata

ELLIPSIS = "…"
_C0 = ("NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI",
       "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US")
_EXTRA = frozenset({0x2028, 0x2029, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x034F})


def _placeholder(char: str) -> str | None:
    code = ord(char)
    if code in (0x09, 0x0A, 0x0D):
        return " "
    if code < 0x20:
        return f"⟨{_C0[code]}⟩"
    if code == 0x7F:
        return "⟨DEL⟩"
    if 0x80 <= code <= 0x9F:
        return f"⟨U+{code:04X}⟩"
    if code < 0xA0:
        return None
    if code in _EXTRA or unicodedata.category(char) in ("Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
        return f"⟨U+{code:04X}⟩"
    return None


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
        shown = _placeholder(char) if (ord(char) < 0x20 or ord(char) >= 0x7F) else None
        piece = char if shown is None else shown
        out.append(piece)
        size += len(piece)
        if size > limit:
            break
    joined = " ".join("".join(out).split())
    if len(joined) > limit or len(text) > limit * 4:
        joined = joined[: limit - 1].rstrip() + ELLIPSIS
    return joined
