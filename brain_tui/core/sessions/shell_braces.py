"""Brace expansion of a shell command line, as the shell does it before anything else reads its words
(``rm -rf {c,}laims`` removes ``claims``; ``{rm,-rf,claims}`` runs ``rm -rf claims``), for the shell's reader
(`shell_targets`). Only braces outside quotes and outside ``${…}`` expand; a word holding none is left as written.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import re

__all__ = ["MAX_WORDS", "expand_braces"]

#: At most this many words come out of one command line's brace expansions (more: the reading is partial).
MAX_WORDS = 4096
_META = " \t\n;&|<>()"  # (a carriage return is no blank to bash)
_SEQUENCE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")


def expand_braces(text: str) -> tuple[str, bool]:
    """`text` with its brace expansions done (each word's expansions joined by spaces), and False when there were
    more than `MAX_WORDS` of them (the text is then the one given)."""
    if "{" not in text:
        return text, True
    out: list[str] = []
    count = 0
    index = 0
    while index < len(text):
        if text[index] in _META:
            out.append(text[index])
            index += 1
            continue
        start = index
        index, quoted = _word(text, index)
        word = text[start:index]
        if "{" not in word:
            out.append(word)
            continue
        words = _expand(word, quoted)
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
        elif ch in _META:
            break
        else:
            quoted.append(False)
            index += 1
    return index, quoted


def _expand(word: str, quoted: list[bool]) -> list[str]:
    """The words one word expands into (at most `MAX_WORDS` + 1 of them: the caller counts)."""
    done: list[str] = []
    pending = [(word, quoted)]
    while pending and len(done) <= MAX_WORDS:
        text, mask = pending.pop(0)
        found = _first_brace(text, mask)
        if found is None:
            done.append(text)
            continue
        start, end, alternatives = found
        for begin, stop, literal in alternatives:
            if literal is not None:
                pending.append((text[:start] + literal + text[end + 1:],
                                mask[:start] + [True] * len(literal) + mask[end + 1:]))
            else:
                pending.append((text[:start] + text[begin:stop] + text[end + 1:],
                                mask[:start] + mask[begin:stop] + mask[end + 1:]))
            if len(pending) > MAX_WORDS:
                break
    return done + [text for text, _mask in pending]


def _first_brace(text: str, mask: list[bool]) -> tuple[int, int, list[tuple[int, int, str | None]]] | None:
    """The first brace expression of the word: its `{` and `}` indexes, and its alternatives (a slice of the word,
    or the literal text of a sequence's member); None when it holds none."""
    for start, ch in enumerate(text):
        if ch != "{" or mask[start]:
            continue
        depth = 0
        commas: list[int] = []
        for end in range(start + 1, len(text)):
            if mask[end]:
                continue
            if text[end] == "{":
                depth += 1
            elif text[end] == "}" and depth:
                depth -= 1
            elif text[end] == "}":
                if commas:
                    bounds = [start, *commas, end]
                    return start, end, [(a + 1, b, None) for a, b in zip(bounds, bounds[1:], strict=False)]
                members = _sequence(text[start + 1:end]) if not any(mask[start:end]) else None
                if members is not None:
                    return start, end, [(0, 0, member) for member in members]
                break
            elif text[end] == "," and depth == 0:
                commas.append(end)
    return None


def _sequence(inner: str) -> list[str] | None:
    """The members of a sequence expression (``1..3``, ``a..c``, ``01..10..2``), or None."""
    match = _SEQUENCE.match(inner)
    if match is None:
        return None
    first, last, step_text = match.groups()
    step = abs(int(step_text)) if step_text and int(step_text) else 1
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        low, high = int(first), int(last)
        width = max(len(first), len(last)) if first.lstrip("-").startswith("0") or \
            last.lstrip("-").startswith("0") else 0
        numbers = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        return [str(n).zfill(width) for n in numbers[:MAX_WORDS + 1]]
    if len(first) == 1 and len(last) == 1 and not first.isdigit() and not last.isdigit():
        low, high = ord(first), ord(last)
        codes = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        return [chr(code) for code in codes]
    return None
