"""The text a Codex patch (``*** Begin Patch`` … ``*** End Patch``) leaves in the one file it updates, as Codex's
`apply_patch` computes it: for `section_writes`, which lets a session holding `##` sections of a markdown file
patch inside them.

Only what can be known for sure is computed: a patch of exactly one ``*** Update File:`` (no ``*** Move to:``, no
other file) whose lines all match the file exactly. Codex reads the patch's lines (a CRLF ending dropped), cuts the
file at ``\\n`` (a final empty line dropped), applies each chunk (``@@`` with an optional context line that must
be found first, then its `` ``/``-`` lines, its ``+`` lines replacing them) at the first place at or after the
previous chunk where they match, and writes the lines back joined by ``\\n`` with a final newline. Where no exact
match exists, Codex tries again ignoring trailing spaces, then all surrounding spaces, then typographic
punctuation: the place it finds then is not computed here, and the answer is None (the write is refused).
"""

from __future__ import annotations

__all__ = ["patched_text"]

_BEGIN, _END = "*** Begin Patch", "*** End Patch"
_UPDATE, _EOF = "*** Update File: ", "*** End of File"
_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
#: Rust's `char::is_whitespace`, which Codex's `str::trim` strips (Python's `strip()` strips a few more).
_RUST_SPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
               "\u2028\u2029\u202f\u205f\u3000")

_Chunk = tuple[str | None, list[str], list[str], bool]  # context line, old lines, new lines, end of file


def _header(line: str) -> bool:
    return any(reading.startswith(_HEADERS) for reading in (line.strip(), line.strip(_RUST_SPACE), line))


def _chunks(lines: list[str]) -> list[_Chunk] | None:
    """The chunks of one update's lines (after its header); None when they do not read as Codex reads them."""
    chunks: list[_Chunk] = []
    at = 0
    while at < len(lines):
        if not lines[at].strip(_RUST_SPACE):
            at += 1  # blank lines between chunks
            continue
        first = lines[at]
        if first == "@@":
            context, at = None, at + 1
        elif first.startswith("@@ "):
            context, at = first[3:], at + 1
        elif chunks:
            return None
        else:
            context = None  # the first chunk may omit its `@@`
        old: list[str] = []
        new: list[str] = []
        eof, read = False, 0
        while at < len(lines):
            line = lines[at]
            if line == _EOF:
                eof, at = True, at + 1
                break
            if line[:1] in ("", " "):
                old.append(line[1:])
                new.append(line[1:])
            elif line[:1] == "-":
                old.append(line[1:])
            elif line[:1] == "+":
                new.append(line[1:])
            else:
                break
            at, read = at + 1, read + 1
        if not read:
            return None
        chunks.append((context, old, new, eof))
    return chunks


def _seek(lines: list[str], pattern: list[str], start: int, eof: bool) -> int | None:
    """Where `pattern` first matches `lines` exactly, from `start` (the end of the file for an end-of-file chunk);
    None when it does not (Codex may then match it loosely: unknown)."""
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    begin = len(lines) - len(pattern) if eof else start
    for index in range(begin, len(lines) - len(pattern) + 1):
        if lines[index:index + len(pattern)] == pattern:
            return index
    return None


def patched_text(patch: str, before: str) -> str | None:
    """The file's text once `patch` updated it (`before`: its text now); None when the patch does more than
    update one file, does not read, or does not match the file exactly."""
    lines = [line[:-1] if line.endswith("\r") else line for line in patch.strip(_RUST_SPACE).split("\n")]
    if len(lines) < 3 or lines[0].strip(_RUST_SPACE) != _BEGIN or lines[-1].strip(_RUST_SPACE) != _END:
        return None
    body = lines[1:-1]
    if not body or not body[0].strip(_RUST_SPACE).startswith(_UPDATE) or any(_header(line) for line in body[1:]):
        return None
    chunks = _chunks(body[1:])
    if not chunks:
        return None
    text = before.split("\n")
    if text and text[-1] == "":
        text.pop()
    done: list[tuple[int, int, list[str]]] = []
    at = 0
    for context, old, new, eof in chunks:
        if context is not None:
            found = _seek(text, [context], at, False)
            if found is None:
                return None
            at = found + 1
        if not old:  # added at the end (before a last empty line)
            done.append((len(text) - 1 if text and text[-1] == "" else len(text), 0, new))
            continue
        found = _seek(text, old, at, eof)
        if found is None:
            return None
        done.append((found, len(old), new))
        at = found + len(old)
    for start, count, new in reversed(sorted(done, key=lambda one: one[0])):  # as Codex: stable, applied last first
        text[start:start + count] = new
    if not text or text[-1] != "":
        text.append("")
    return "\n".join(text)
