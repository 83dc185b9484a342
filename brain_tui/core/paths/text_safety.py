"""The characters brain text may not show as they are, and the visible placeholder of each (SPEC 15).

Claim and signal text is written by other sessions and is hostile wherever it is shown: on the cockpit's screen
(tui/safe.py), in a hook message or an MCP result (`inert_line`, one line, cut short). Every front-end asks
`placeholder` here, so the set of hidden characters is decided once:

- C0 controls, DEL and C1 controls: they move the cursor, ring, or start an escape sequence (``⟨ESC⟩``, ``⟨DEL⟩``,
  ``⟨CSI⟩``, …);
- every "format" character (Unicode category Cf: bidi overrides and isolates, zero-width spaces and joiners, tag
  characters), lone surrogates (Cs), private-use (Co) and unassigned (Cn) code points, line and paragraph separators
  (Zl, Zp), and a few letters and marks that draw as nothing (Hangul fillers, the combining grapheme joiner, the
  variation selectors and the other default-ignorable marks): they can hide or reorder text, or take a width no
  terminal agrees on (``⟨U+202E⟩``).

What a front-end does with newlines and tabs is its own choice (the cockpit keeps them in detail views, a hook folds
them into spaces): it handles them before it asks here; asked, they are controls like the others.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from brain_tui.core.lazy_re import LazyPattern

#: A control character: C0 (NUL to US), DEL or C1 (U+0080 to U+009F). One definition for every rule that refuses
#: them (paths, scopes, agent names) or drops them (the index table, a terminal notice).
CONTROL_RE = LazyPattern("[\x00-\x1f\x7f-\x9f]")
#: The ASCII spaces (space, tab, new line, vertical tab, form feed, carriage return): what separates a legacy scope's
#: entries and is trimmed off a path's ends. Python's ``\s`` and ``str.strip`` also take U+001C–U+001F and NEL
#: (U+0085), which are controls: a rule that splits or trims must not drop them unseen.
ASCII_SPACES = " \t\n\x0b\x0c\r"
#: A control character that is not one of the ASCII spaces (`CONTROL_RE` minus `ASCII_SPACES`).
CONTROL_BUT_SPACES_RE = LazyPattern("[\x00-\x08\x0e-\x1f\x7f-\x9f]")

#: The names of the C0 controls, by code.
C0_NAMES = (
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO", "SI",
    "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US",
)
#: The C1 controls shown by name (the others as ``⟨U+0080⟩``): the ones terminals act on.
C1_NAMES = {0x85: "NEL", 0x90: "DCS", 0x9B: "CSI", 0x9C: "ST", 0x9D: "OSC", 0x9E: "PM", 0x9F: "APC"}
#: Unicode categories that are never shown as they are.
HIDDEN_CATEGORIES = frozenset({"Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Characters of other categories that draw as nothing.
EXTRA_INVISIBLE = frozenset({
    0x115F, 0x1160, 0x3164, 0xFFA0,  # Hangul fillers (letters that render blank)
    0x034F,  # combining grapheme joiner
    0x2800,  # braille pattern blank (a symbol that renders blank)
    0x17B4, 0x17B5,  # Khmer inherent vowels (marks that render as nothing)
    0x180B, 0x180C, 0x180D, 0x180F,  # Mongolian free variation selectors
    *range(0xFE00, 0xFE10),  # variation selectors 1-16
    *range(0xE0100, 0xE01F0),  # variation selectors 17-256: one per byte hides a whole message after one letter
})


@lru_cache(maxsize=4096)
def placeholder(char: str) -> str | None:
    """The visible placeholder of one character: ``⟨ESC⟩`` for a named control, ``⟨U+202E⟩`` for another control or
    an invisible or direction-changing character, None for ordinary text (shown as it is)."""
    code = ord(char)
    if code < 0x20:
        return f"⟨{C0_NAMES[code]}⟩"
    if code == 0x7F:
        return "⟨DEL⟩"
    if 0x80 <= code <= 0x9F:
        return f"⟨{C1_NAMES.get(code, f'U+{code:04X}')}⟩"
    if code < 0xA0:
        return None
    if code in EXTRA_INVISIBLE or unicodedata.category(char) in HIDDEN_CATEGORIES:
        return f"⟨U+{code:04X}⟩"
    return None


#: What a cut line of brain text ends with.
ELLIPSIS = "…"


def fold_placeholder(char: str) -> str | None:
    """`placeholder`, with a tab or line break folded into a space (a one-line message: a hook, MCP, a peek)."""
    if char in "\t\n\r":
        return " "
    return placeholder(char)


def inert_line(value: object, limit: int = 120) -> str:
    """One line of brain text made inert and cut to `limit` characters (with an ellipsis).

    Any value is turned into a string; a list is its items joined by spaces. Hidden characters become their
    placeholders (`placeholder`), line breaks and tabs spaces, runs of spaces one. At most ``4 × limit`` characters
    are looked at, so a 10 MB value costs what a short one does.
    """
    text = "" if value is None else str(value)
    if isinstance(value, list):
        text = " ".join(str(part) for part in value)
    out: list[str] = []
    size = 0
    for char in text[: limit * 4]:
        shown = fold_placeholder(char) if (ord(char) < 0x20 or ord(char) >= 0x7F) else None
        piece = char if shown is None else shown
        out.append(piece)
        size += len(piece)
        if size > limit:
            break
    joined = " ".join("".join(out).split())
    if len(joined) > limit or len(text) > limit * 4:
        joined = joined[: limit - 1].rstrip() + ELLIPSIS
    return joined


def inert_quoted(value: object, limit: int = 120) -> str:
    """`inert_line(value, limit)` between double quotes, as a JSON string: a `"` or `\\` inside is escaped, so
    the text cannot close the quote it is shown in and write on after it as if the product said it (SPEC 15)."""
    import json

    return json.dumps(inert_line(value, limit), ensure_ascii=False)


def quoted_exact(value: str) -> str:
    """`value` as a JSON string that shows it exactly and inertly: every hidden character is a ``\\uXXXX`` escape.

    For an argument a human reviews before it runs (`bsi launch --dry-run`): unlike `inert_line` it keeps every
    character (`json.loads` gives `value` back), and unlike plain JSON it never sends a bidi override, a C1
    control or an invisible character to the terminal.
    """
    import json

    out: list[str] = []
    for char in json.dumps(value, ensure_ascii=False):
        code = ord(char)
        if placeholder(char) is None:
            out.append(char)
        elif code > 0xFFFF:
            high, low = divmod(code - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)


#: What may be hidden in a block of text: anything but a line break, a tab and printable ASCII (the rest is asked).
_BLOCK_SUSPECT = LazyPattern("[^\t\n\x20-\x7e]+")


def inert_block(text: str) -> str:
    """Lines of brain text shown whole (a claim file printed by `bsi claim show`, every text result of `bsi`): line
    breaks and tabs kept, every other hidden character its placeholder (`placeholder`). Only the characters outside
    printable ASCII are looked at one by one, so a long listing costs what its accents do."""
    return _BLOCK_SUSPECT.compiled.sub(
        lambda run: "".join(placeholder(ch) or ch for ch in run.group()), text)
