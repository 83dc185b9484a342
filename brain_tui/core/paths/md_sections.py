"""The `##` sections of a markdown text, as a section scope names them (SPEC 5.1): the reader of the write decision.

A text is cut into parts at each heading of level 1 or 2; a part runs from its heading line to the next one. Only an
ATX ``## Title`` heading (up to 3 spaces before it, a space or tab after the marks; a closing ``##``, emphasis marks,
case and spaces folded by `scope_paths.section_key`) opens a part a section scope can hold. Every other line a reader
may take for such a heading also cuts, and opens a part no scope holds: an h1 (``# Title``), a setext heading (a line
underlined with ``===`` or ``---``), ``##Title`` without a space or tab (``##\u00a0Title`` too: Python-Markdown's
heading), an h1 or h2 inside a block quote or a list item (``> ## Title``, ``- ## Title``, ``> Title`` over
``> ---``), an HTML ``<h1>`` or ``<h2>`` opening a line. So text some reader puts under another heading is
never read as the held section's. A heading inside a fenced code block (```` ``` ```` or ``~~~``, closed by a fence of
the same mark at least as long) is text of its part. A fence never closed is read both ways: CommonMark runs it to the
end, a reader of the raw text sees the headings below it, so they cut (`unclosed_fence` tells it). Lines end in
``\\n``, ``\\r\\n`` or a lone ``\\r`` (CommonMark's; a form feed, NEL or U+2028 ends none: a heading after one
is text of that line); a byte order mark before the first line is ignored. The parts joined give the text back
unchanged.
"""

from __future__ import annotations

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.scope_paths import section_key
from brain_tui.core.record import record

__all__ = ["HELD_LEVEL", "Part", "parts", "read", "unclosed_fence"]

#: The heading level a section scope names (``##``).
HELD_LEVEL = 2

_ATX2_RE = LazyPattern(r" {0,3}##(?:[ \t]+(?P<title>.*?))?[ \t]*")
_ATX1_RE = LazyPattern(r" {0,3}#(?:[ \t].*)?")
#: ``##`` followed by anything but a space or a tab (``##Title``, ``##\u00a0Title``): Python-Markdown's heading.
_NO_SPACE_RE = LazyPattern(r" {0,3}##[^# \t].*")
_SETEXT_RE = LazyPattern(r" {0,3}(?:=+|-+)[ \t]*")
#: The block quote and list item marks before a line's content (``> ``, ``- ``, ``1. ``, nested): a heading after
#: them is one too, inside the quote or the item.
_CONTAINER_RE = LazyPattern(r" {0,3}(?:(?:>|(?:[-+*]|[0-9]{1,9}[.)])(?=[ \t]))[ \t]*)+")
#: An HTML h1 or h2 opening a line, which a reader renders as that heading.
_HTML_HEADING_RE = LazyPattern(r"(?i) {0,3}<h[12](?:[\s/>].*)?")
_FENCE_RE = LazyPattern(r" {0,3}(?P<mark>`{3,}|~{3,})(?P<info>.*)")
#: A line as CommonMark ends it (LF, CRLF, a lone CR), never `str.splitlines`' other breaks (a form feed, NEL,
#: U+2028): a heading after one of those is text of the line a reader sees.
#: CommonMark's HTML block starts (kinds 1-5, each with what ends it on a line: that line is the block's last) and,
#: wider than kinds 6 and 7, any line starting with a tag (the block then ends before a blank line).
_HTML_ENDS = (
    (LazyPattern(r"(?i) {0,3}<(?:script|pre|style|textarea)(?:[\s>].*)?"),
     LazyPattern(r"(?i).*</(?:script|pre|style|textarea)>")),
    (LazyPattern(r" {0,3}<!--.*"), LazyPattern(r".*-->")),
    (LazyPattern(r" {0,3}<\?.*"), LazyPattern(r".*\?>")),
    (LazyPattern(r" {0,3}<!\[CDATA\[.*"), LazyPattern(r".*\]\]>")),
    (LazyPattern(r" {0,3}<![A-Za-z].*"), LazyPattern(r".*>")),
)
_HTML_TAG_RE = LazyPattern(r" {0,3}</?[A-Za-z][A-Za-z0-9-]*(?:[\s/>].*)?")
#: The first characters (after up to 3 spaces) of a line that may open a fence, or be or underline a heading:
#: any other line is read by no pattern (a 5 MB file is read in well under a second).
_FENCE_LEADS = ("`", "~")
_HEADING_LEADS = ("#", "=", "-", ">", "*", "+", "<", *"0123456789")
_LINE_RE = LazyPattern(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


@record
class Part:
    """One part of a markdown text.

    Attributes:
        key: the `section_key` of its ``##`` heading; None for the text before the first heading and for a part
            whose heading no section scope names (an h1, a setext heading, ``##Title``).
        text: the part's text, its heading line first (and the line above a setext underline).
        hidden: its heading lies inside an HTML block, which a markdown reader shows as raw HTML (or not at all:
            a comment), so to that reader it is no heading.
    """

    key: str | None
    text: str
    hidden: bool = False


def _bare(line: str) -> str:
    return line.rstrip("\n").rstrip("\r")


def _fence_closes(line: str, mark: str) -> bool:
    found = _FENCE_RE.fullmatch(_bare(line))
    return found is not None and found.group("mark")[0] == mark[0] and len(found.group("mark")) >= len(mark) \
        and not found.group("info").strip()


def _lines(text: str) -> tuple[list[str], str]:
    lines = _LINE_RE.findall(text)
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
        return lines, "\ufeff"
    return lines, ""


def _closers(lines: list[str]) -> list[dict[str, int]]:
    """For each line, the longest closing fence of each mark below it (0: none): a fence opened there closes only
    when one at least as long follows."""
    longest = {"`": 0, "~": 0}
    below: list[dict[str, int]] = [longest] * len(lines)
    for number in range(len(lines) - 1, -1, -1):
        below[number] = longest
        found = _FENCE_RE.fullmatch(_bare(lines[number])) if lines[number].lstrip(" ")[:1] in _FENCE_LEADS else None
        if found is not None and not found.group("info").strip():
            mark = found.group("mark")
            if len(mark) > longest[mark[0]]:
                longest = {**longest, mark[0]: len(mark)}
    return below


def _html_end(bare: str) -> LazyPattern | None | bool:
    """What ends an HTML block starting at this line: the pattern of its last line, None (a blank line), False
    when no block starts here."""
    for start, end in _HTML_ENDS:
        if start.fullmatch(bare):
            return end
    return None if _HTML_TAG_RE.fullmatch(bare) else False


def _starts(lines: list[str]) -> tuple[list[tuple[int, str | None]], bool, set[int]]:
    """Where the parts start (line, key), whether a fence is left open, and the starts inside an HTML block.

    A fence that never closes is no fence (the headings below it cut): known from the closing fences below it
    (`_closers`), so each line is read once however many fences are left open. Inside an HTML block a heading
    still cuts (the raw text shows it) but is hidden; no fence opens there.
    """
    starts: list[tuple[int, str | None]] = [(0, None)]
    hidden: set[int] = set()
    below = _closers(lines)
    fence, left_open = "", False
    html: LazyPattern | None | bool = False
    for number, line in enumerate(lines):
        bare = _bare(line)
        if fence:
            if line.lstrip(" ")[:1] == fence[0] and _fence_closes(line, fence):
                fence = ""
            continue
        lead = bare.lstrip(" ")[:1]
        if html is False:
            html = _html_end(bare) if lead == "<" else False
        elif html is None and not bare.strip():
            html = False
        if html is not False:
            if lead in _HEADING_LEADS:
                cut = len(starts)
                _cut(starts, lines, number, bare)
                hidden.update(begin for begin, _key in starts[cut:])
            if isinstance(html, LazyPattern) and html.fullmatch(bare):
                html = False
            continue
        if lead not in _FENCE_LEADS:
            if lead in _HEADING_LEADS:
                _cut(starts, lines, number, bare)
            continue
        opened = _FENCE_RE.fullmatch(bare)
        if opened is not None and not (opened.group("mark")[0] == "`" and "`" in opened.group("info")):
            mark = opened.group("mark")
            if below[number][mark[0]] >= len(mark):
                fence = mark
                continue
            left_open = True
        _cut(starts, lines, number, bare)
    return starts, left_open, hidden


def _inner(bare: str) -> str | None:
    """The content of a line inside its block quote and list item marks; None when it has none."""
    found = _CONTAINER_RE.match(bare)
    return bare[found.end():] if found is not None else None


def _cut(starts: list[tuple[int, str | None]], lines: list[str], number: int, bare: str) -> None:
    """Add the part line `number` starts, if it is a heading's (a setext underline: the line above it).

    A heading inside a block quote or a list item (``> ## Title``, ``- ## Title``), and an HTML ``<h1>`` or
    ``<h2>``, open a part no section scope holds."""
    held = _ATX2_RE.fullmatch(bare)
    inner = _inner(bare)
    if held is not None:
        starts.append((number, section_key(held.group("title") or "")))
    elif _heading(bare) or (inner is not None and _heading(inner.lstrip(" \t"))):
        starts.append((number, None))
    elif number and starts[-1][0] != number - 1 and _underlines(bare, _bare(lines[number - 1])):
        starts.append((number - 1, None))  # the underlined line is the heading's


def _heading(content: str) -> bool:
    """True when a line's content inside its container marks is an h1 or h2 a reader sees (ATX or HTML)."""
    return bool(_ATX2_RE.fullmatch(content) or _ATX1_RE.fullmatch(content) or _NO_SPACE_RE.fullmatch(content)
                or _HTML_HEADING_RE.fullmatch(content))


def _underlines(bare: str, above: str) -> bool:
    """True when `bare` is a setext underline of the line `above`, both at the top level or both inside container
    marks (``> Title`` over ``> ---``)."""
    if _SETEXT_RE.fullmatch(bare):
        return bool(above.strip())
    inner, inner_above = _inner(bare), _inner(above)
    return inner is not None and inner_above is not None and bool(_SETEXT_RE.fullmatch(inner.lstrip(" \t"))) \
        and bool(inner_above.strip())


def unclosed_fence(text: str) -> bool:
    """True when a code fence of `text` is never closed."""
    return _starts(_lines(text)[0])[1]


def parts(text: str) -> list[Part]:
    """The parts of `text`, in order; the first is the text before the first heading (maybe "")."""
    return read(text)[0]


def read(text: str) -> tuple[list[Part], bool]:
    """The parts of `text` (as `parts`) and whether a code fence of it is never closed (as `unclosed_fence`), read
    once."""
    lines, bom = _lines(text)
    starts, left_open, hidden = _starts(lines)
    found: list[Part] = []
    for index, (begin, key) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        found.append(Part(key, "".join(lines[begin:end]), begin in hidden and index > 0))
    if bom:
        found[0] = Part(found[0].key, bom + found[0].text, found[0].hidden)
    return found, left_open
