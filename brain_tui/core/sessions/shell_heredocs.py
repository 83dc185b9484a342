"""The here-documents of a shell command line, found as the shell finds them (SPEC 21.3).

A here-document's lines are data, not commands, so the command reader leaves them out. Leaving out
lines the shell runs would let a write through unread, so a here-document is only taken out when it
is read for sure: its ``<<`` is outside quotes, comments, ``${…}`` and arithmetic; its delimiter is
the word the shell takes (``<<E\\OF``, ``<<'EOF'x``, ``<< EOF-1``, quote removal done); its body ends
on the line the shell ends it on (exactly the delimiter; after leading tabs for ``<<-``). Anything
less sure (an unbalanced quote, a backquote near a ``<<``, a missing end line, a delimiter made by
expansion) leaves the whole text as it is: its lines are then read as commands, which may find more
targets than the shell writes, never fewer.

Standard library only: the hook's fast path imports this module.
"""

from __future__ import annotations

from brain_tui.core.sessions.shell_braces import META as _META

__all__ = ["HereDocument", "split_here_documents"]


class HereDocument:
    """One here-document: `before`, its line up to the ``<<``; `after`, the rest of that line; `body`, its lines
    (without the end line); `quoted`: its delimiter was quoted, so its body is data as written (unquoted, the shell
    expands the body's ``$(…)`` and backquotes: they run)."""

    __slots__ = ("before", "after", "body", "quoted")

    def __init__(self, before: str, body: str, after: str = "", quoted: bool = False) -> None:
        self.before = before
        self.after = after
        self.body = body
        self.quoted = quoted


class _Unsure(Exception):
    """The text cannot be read for sure: nothing is taken out of it."""


def split_here_documents(text: str) -> tuple[str, list[HereDocument]]:
    """`text` without the bodies (and end lines) of its here-documents, and those here-documents.

    Returns:
        The command text to read as commands, and the here-documents; when anything is unsure, `text`
        itself and no here-document.
    """
    if "<<" not in text:
        return text, []
    try:
        return _Scanner(text).run()
    except _Unsure:
        return text, []


class _Scanner:
    """One pass over the text: quotes, `$(…)` nesting, comments, and the here-documents' operators and bodies."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.kept: list[str] = []
        self.docs: list[HereDocument] = []
        self.pending: list[tuple[bool, str, str, bool]] = []  # (strip tabs, delimiter, text before it, quoted)
        self.start = 0  # where the text not yet copied to `kept` starts

    def run(self) -> tuple[str, list[HereDocument]]:
        end = self._commands(0, nested=False)
        if end != len(self.text) or self.pending:
            raise _Unsure
        self.kept.append(self.text[self.start:])
        return "".join(self.kept), self.docs

    # -- contexts ---------------------------------------------------------------------------------
    def _commands(self, i: int, nested: bool) -> int:
        """Read commands from `i` (inside `$(…)` when `nested`, up to its `)`); return where they end."""
        text, depth = self.text, 0
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2
            elif ch == "'":
                i = self._closing(i + 1, "'")
            elif text.startswith("$'", i):
                i = self._ansi_c(i + 2)
            elif ch == '"':
                i = self._double(i + 1)
            elif text.startswith(("$((", "(("), i):
                i = self._arithmetic(i + (3 if ch == "$" else 2))
            elif text.startswith("$(", i):
                i = self._commands(i + 2, nested=True)
            elif text.startswith("${", i):
                i = self._braces(i + 2)
            elif ch == "`" or (ch == "[" and "<<" in text[i:text.find("]", i) + 1 or len(text)]):
                raise _Unsure  # a backquote, or a subscript holding `<<` (an arithmetic shift): not read here
            elif ch == "#" and (i == 0 or text[i - 1] in _META):
                i = self._line_end(i)
            elif text.startswith("<<<", i):
                i += 3
            elif text.startswith("<<", i):
                i = self._operator(i)
            elif ch == "\n":
                i = self._bodies(i + 1) if self.pending else i + 1
            elif nested and ch == "(":
                depth, i = depth + 1, i + 1
            elif nested and ch == ")":
                if depth == 0:
                    return i + 1
                depth, i = depth - 1, i + 1
            elif nested and text.startswith("case", i) and (i == 0 or text[i - 1] in _META):
                raise _Unsure  # a `case` pattern's `)` inside `$(…)` would end it too early here
            else:
                i += 1
        if nested:
            raise _Unsure
        return i

    def _closing(self, i: int, quote: str) -> int:
        end = self.text.find(quote, i)
        if end < 0:
            raise _Unsure
        return end + 1

    def _ansi_c(self, i: int) -> int:
        while i < len(self.text):
            if self.text[i] == "\\":
                i += 2
            elif self.text[i] == "'":
                return i + 1
            else:
                i += 1
        raise _Unsure

    def _double(self, i: int) -> int:
        text = self.text
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2
            elif ch == '"':
                return i + 1
            elif ch == "`":
                raise _Unsure
            elif text.startswith("$((", i):
                i = self._arithmetic(i + 3)
            elif text.startswith("$(", i):
                i = self._commands(i + 2, nested=True)
            elif text.startswith("${", i):
                i = self._braces(i + 2)
            elif ch == "\n" and self.pending:
                raise _Unsure
            else:
                i += 1
        raise _Unsure

    def _arithmetic(self, i: int) -> int:
        """Past the `))` closing an arithmetic expression (no `<<` there is a here-document)."""
        end = self._past_nest(i, "(", ")")
        if self.text.startswith("))", end - 1):
            return end + 1
        raise _Unsure

    def _braces(self, i: int) -> int:
        """Past the `}` closing a parameter expansion (its `<<` is a word's text)."""
        return self._past_nest(i, "{", "}")

    def _past_nest(self, i: int, opening: str, closing: str) -> int:
        """Past the `closing` that ends the nest begun before `i`; unsure at a quote, escape, line end or `$`."""
        depth = 0
        while i < len(self.text):
            ch = self.text[i]
            if ch in "'\"`\\\n$":
                raise _Unsure
            if ch == opening:
                depth += 1
            elif ch == closing:
                if depth == 0:
                    return i + 1
                depth -= 1
            i += 1
        raise _Unsure

    def _line_end(self, i: int) -> int:
        end = self.text.find("\n", i)
        return len(self.text) if end < 0 else end

    # -- here-documents ---------------------------------------------------------------------------
    def _operator(self, i: int) -> int:
        """Read `<<[-] WORD` at `i`: its delimiter after quote removal joins the pending here-documents."""
        text = self.text
        before = text[text.rfind("\n", 0, i) + 1:i]
        i += 2
        tabs = text.startswith("-", i)
        i += 1 if tabs else 0
        while i < len(text) and text[i] in " \t":
            i += 1
        word: list[str] = []
        begin = i
        while i < len(text) and text[i] not in _META:
            ch = text[i]
            if ch in "$`":
                raise _Unsure  # `$'…'`, `$"…"`, a variable: not read here
            if ch == "\\":
                if i + 1 >= len(text) or text[i + 1] == "\n":
                    raise _Unsure
                word.append(text[i + 1])
                i += 2
            elif ch == "'":
                end = self._closing(i + 1, "'")
                word.append(text[i + 1:end - 1])
                i = end
            elif ch == '"':
                end = self._closing(i + 1, '"')
                inner = text[i + 1:end - 1]
                if "\\" in inner or "$" in inner or "`" in inner:
                    raise _Unsure
                word.append(inner)
                i = end
            else:
                word.append(ch)
                i += 1
        if i == begin:
            raise _Unsure  # no word: the shell refuses the line
        self.pending.append((tabs, "".join(word), before, any(ch in "\\'\"" for ch in text[begin:i])))
        return i

    def _bodies(self, i: int) -> int:
        """The pending here-documents' bodies, one after another from line start `i`; returns the index after them."""
        text = self.text
        self.kept.append(text[self.start:i])
        operator_line = text[text.rfind("\n", 0, i - 1) + 1:i - 1]
        for tabs, delimiter, before, quoted in self.pending:
            lines: list[str] = []
            while True:
                if i >= len(text):
                    raise _Unsure  # no end line: the shell reads to the end; taken as unsure here
                end = text.find("\n", i)
                end = len(text) if end < 0 else end
                line = text[i:end]
                i = end + 1
                if (line.lstrip("\t") if tabs else line) == delimiter:
                    break
                lines.append(line)
            self.docs.append(HereDocument(before, "\n".join(lines), operator_line[len(before):], quoted))
        self.pending = []
        i = min(i, len(text))
        self.start = i
        return i
