"""Brace expansion of a shell command line, as the shell does it before anything else reads its words
(``rm -rf {c,}laims`` removes ``claims``; ``{rm,-rf,claims}`` runs ``rm -rf claims``), for the shell's reader
(`shell_targets`). Only braces outside quotes and outside ``${…}`` expand; a word holding none is left as written.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

from brain_tui.core.lazy_re import LazyPattern

__all__ = ["MAX_TEXT", "MAX_WORDS", "expand_braces"]

#: At most this many words come out of one command line's brace expansions (more: the reading is partial).
MAX_WORDS = 4096
#: At most this many characters of words, whole or still to expand, are built while expanding one command line's
#: braces (more: the reading is partial); it bounds the reader's time and memory (``{a,{a,{a,…}}}`` 20000 deep, or
#: a 60 KiB word with ``{1..4000}``, stay under `MAX_WORDS` long after they fill the memory).
MAX_TEXT = 1 << 20
#: Characters that end an unquoted shell word (a carriage return is no blank to bash).
META = " \t\n;&|<>()"
_SEQUENCE = LazyPattern(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")


def expand_braces(text: str) -> tuple[str, bool]:
    """`text` with its brace expansions done (each word's expansions joined by spaces), and False when there were
    more than `MAX_WORDS` of them, or more than `MAX_TEXT` characters to build (the text is then the one given)."""
    if "{" not in text:
        return text, True
    out: list[str] = []
    count = 0
    budget = [MAX_TEXT]
    index = 0
    while index < len(text):
        if text[index] in META:
            out.append(text[index])
            index += 1
            continue
        start = index
        index, quoted = _word(text, index)
        word = text[start:index]
        if "{" not in word:
            out.append(word)
            continue
        words = _expand(word, quoted, budget)
        count += len(words)
        if count > MAX_WORDS:
            return text, False
        out.append(" ".join(words))
    return "".join(out), True


def _word(text: str, index: int) -> tuple[int, list[bool]]:
    """The end of the word starting at `index`, and for each of its characters whether it is quoted (or inside
    ``${…}``, escaped), so no brace expansion uses it."""
    quoted: list[bool] = []
    quote = ""
    while index < len(text):
        ch = text[index]
        if quote:
            if ch == "\\" and quote == '"' and index + 1 < len(text):
                quoted += [True, True]
                index += 2
                continue
            quote = "" if ch == quote else quote
            quoted.append(True)
            index += 1
        elif ch == "\\" and index + 1 < len(text):
            quoted += [True, True]
            index += 2
        elif ch in "'\"":
            quote = ch
            quoted.append(True)
            index += 1
        elif ch == "$" and text.startswith("${", index):
            end = text.find("}", index)
            end = len(text) if end < 0 else end + 1
            quoted += [True] * (end - index)
            index = end
        elif ch in META:
            break
        else:
            quoted.append(False)
            index += 1
    return index, quoted


def _expand(word: str, quoted: list[bool], budget: list[int]) -> list[str]:
    """The words one word expands into (at most `MAX_WORDS` + 1 of them: the caller counts); `budget` holds the
    characters the line's expansions may still build, and more than `MAX_WORDS` words come back when it runs out."""
    done: list[str] = []
    pending = [(word, quoted)]
    while pending and len(done) + len(pending) <= MAX_WORDS:  # (each pending word gives one word or more)
        text, mask = pending.pop(0)
        budget[0] -= len(text)
        if budget[0] < 0:
            return [""] * (MAX_WORDS + 1)
        found = _first_brace(text, mask)
        if found is None:
            done.append(text)
            continue
        start, end, alternatives = found
        for begin, stop, literal in alternatives:
            budget[0] -= start + (stop - begin if literal is None else len(literal)) + len(text) - end - 1
            if budget[0] < 0:
                return [""] * (MAX_WORDS + 1)
            if literal is not None:
                pending.append((text[:start] + literal + text[end + 1:],
                                mask[:start] + [True] * len(literal) + mask[end + 1:]))
            else:
                pending.append((text[:start] + text[begin:stop] + text[end + 1:],
                                mask[:start] + mask[begin:stop] + mask[end + 1:]))
            if len(done) + len(pending) > MAX_WORDS:
                break
    return done + [text for text, _mask in pending]


def _first_brace(text: str, mask: list[bool]) -> tuple[int, int, list[tuple[int, int, str | None]]] | None:
    """The first brace expression of the word: its `{` and `}` indexes, and its alternatives (a slice of the word,
    or the literal text of a sequence's member); None when it holds none.

    One pass pairs each unquoted `{` with the `}` closing it (a `{` left open is plain text, as is a pair with
    neither a comma at its own level nor a sequence inside), so a word of thousands of braces is read in time
    linear in its length."""
    # the open braces: (index of `{`, its commas, [whether it holds a brace or a quoted character])
    stack: list[tuple[int, list[int], list[bool]]] = []
    pairs: list[tuple[int, int, list[int], bool]] = []
    for index, ch in enumerate(text):
        if mask[index]:
            if stack:
                stack[-1][2][0] = True
        elif ch == "{":
            if stack:
                stack[-1][2][0] = True
            stack.append((index, [], [False]))
        elif ch == "," and stack:
            stack[-1][1].append(index)
        elif ch == "}" and stack:
            start, commas, holds = stack.pop()
            if stack and holds[0]:
                stack[-1][2][0] = True
            pairs.append((start, index, commas, holds[0]))
    for start, end, commas, nested in sorted(pairs):
        if commas:
            bounds = [start, *commas, end]
            return start, end, [(a + 1, b, None) for a, b in zip(bounds, bounds[1:], strict=False)]
        members = None if nested else _sequence(text[start + 1:end])
        if members is not None:
            return start, end, [(0, 0, member) for member in members]
    return None


def _sequence(inner: str) -> list[str] | None:
    """The members of a sequence expression (``1..3``, ``a..c``, ``01..10..2``), or None."""
    match = _SEQUENCE.match(inner)
    if match is None:
        return None
    first, last, step_text = match.groups()
    if not all(_in_bash_integers(number) for number in (first, last, step_text or "1") if number[-1].isdigit()):
        return None  # bash reads it as no sequence
    step = abs(_integer(step_text)) if step_text and _integer(step_text) else 1
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        low, high = _integer(first), _integer(last)
        width = max(len(first), len(last)) if first.lstrip("-").startswith("0") or \
            last.lstrip("-").startswith("0") else 0
        numbers = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        return [str(n).zfill(width) for n in numbers[:MAX_WORDS + 1]]
    if len(first) == 1 and len(last) == 1 and not first.isdigit() and not last.isdigit():
        low, high = ord(first), ord(last)
        codes = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        return [chr(code) for code in codes]
    return None


def _in_bash_integers(number: str) -> bool:
    """Whether the decimal `number` (its digits, after an optional `-`) is one of bash's 64-bit integers."""
    digits = number.lstrip("-").lstrip("0")
    return len(digits) < 19 or (len(digits) == 19 and -(1 << 63) <= _integer(number) < 1 << 63)


def _integer(number: str) -> int:
    """The decimal `number` (an optional `-`, digits, leading zeros as many as given) as an integer."""
    digits = number.lstrip("-").lstrip("0") or "0"
    return -int(digits) if number.startswith("-") else int(digits)
