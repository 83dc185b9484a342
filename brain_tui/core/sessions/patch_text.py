"""The files a Codex patch (``*** Begin Patch`` … ``*** End Patch``) changes, read as Codex reads them.

Codex's `apply_patch` (the tool, or the command fed a here-document) is lenient: a hunk header
(``*** Add File:``, ``*** Update File:``, ``*** Delete File:``) is recognised after trimming the
line's whitespace on both sides (Rust's ``str::trim``, Unicode whitespace), while a ``*** Move to:``
line is taken as it stands. A reader that wants every header at the start of its line lets an
indented ``  *** Add File: claims/x.yml`` through unseen, so every line is read the lenient way,
and a path that two readings of the whitespace could give is returned in both spellings: a path
read too often is checked once more, never one less.

Standard library only: the hook's fast path imports this module.
"""

from __future__ import annotations

__all__ = ["MARKERS", "patch_paths"]

#: The markers that name a file a patch writes (a rename's source is an `Update File` too).
MARKERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
#: Rust's `char::is_whitespace` (Unicode White_Space), which Codex's parser trims; Python's `str.strip()`
#: strips these and a few more (U+001C–U+001F), so both are tried.
_RUST_SPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
               "\u2028\u2029\u202f\u205f\u3000")


def patch_paths(text: str) -> list[str]:
    """Every path a line of `text` (a patch, or a command line or here-document holding one) names after a
    patch marker, as given, in order, without duplicates (two spellings of its surrounding whitespace are both
    files the patch may write).
    """
    found: list[str] = []
    if "*** " not in text:
        return found
    for line in text.split("\n"):
        if "*** " not in line:
            continue
        readings = [line.strip(), line.strip(_RUST_SPACE)]
        if line.startswith(MARKERS[3]):
            readings.append(line[:-1] if line.endswith("\r") else line)  # `Move to:` is taken untrimmed
        for reading in readings:
            for marker in MARKERS:
                if reading.startswith(marker):
                    path = reading[len(marker):]
                    if path and path not in found:
                        found.append(path)
    return found
