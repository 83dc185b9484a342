"""The plain subset of YAML that most brain-compose.yml files are written in, read without PyYAML.

Importing PyYAML costs about as much CPU as the interpreter's own start (its reader compiles large character-class
patterns), and a read command would pay it only to read a handful of ``key: value`` lines (issue 18, start-up). This
reader accepts a deliberately small subset and answers exactly what `yamlio.safe_load_text` answers for it; for
anything outside the subset it raises `NotPlain` and the caller takes the full path.

The subset: printable text, ``\\n`` line ends, blank lines and comment lines (any printable text in them), and
lines ``KEY: VALUE`` or ``KEY:`` (a nested mapping below, indented by spaces,
or null). A key is a word (letters, digits, ``_``, ``-``; a letter first; no
bool or null word). A value is
* a plain word that starts with a letter (``UTC``, ``Europe/Paris``), a bool of YAML 1.2
  (``true``/``false`` in three spellings, as `yamlio` reads them) or a null word;
* a decimal integer without sign or leading zero (YAML 1.1 reads ``010``, ``1_000``, ``1:30`` otherwise);
* a word of digits then letters, led by 1-9, no ``e``/``E`` (``2h``, ``90s``: no YAML 1.1 int, float or
  timestamp pattern matches it, while ``0x1f``, ``0b1``, ``1e3`` or ``1.5`` are left to the full reader);
* a single- or double-quoted string without quotes, backslashes or ``#`` inside;
  optionally followed by spaces and a ``# comment``.
Lists, flow collections, anchors, tags, several documents, tabs, duplicate keys
or anything else: `NotPlain`.
"""

from __future__ import annotations

__all__ = ["NotPlain", "load_plain"]

_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_VALUE_CHARS = _WORD_CHARS | frozenset("./@+")
_QUOTED_CHARS = frozenset(chr(c) for c in range(32, 127)) - frozenset("'\"\\#")
_DIGITS = frozenset("0123456789")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULLS = frozenset({"null", "Null", "NULL", "~"})


class NotPlain(Exception):
    """The text is outside the plain subset: parse it with the full YAML reader."""


def _key(text: str) -> str:
    if not text or text[0] not in _LETTERS or not set(text) <= _WORD_CHARS or text in _BOOLS or text in _NULLS:
        raise NotPlain
    return text


def _scalar(text: str) -> object:
    """One value as the brain's safe loader reads it, or `NotPlain`."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        if not set(inner) <= _QUOTED_CHARS:
            raise NotPlain
        return inner
    if not text or not set(text) <= _VALUE_CHARS:
        raise NotPlain
    if text in _BOOLS:
        return _BOOLS[text]
    if text in _NULLS:
        return None
    first = text[0]
    if first in _LETTERS:
        return text
    if first in _DIGITS:
        if set(text) <= _DIGITS:
            if len(text) > 1 and first == "0":
                raise NotPlain
            try:
                return int(text)
            except ValueError:  # past Python's digit limit: the full reader names the file corrupt
                raise NotPlain from None
        letters = text.lstrip("0123456789")
        if first != "0" and letters and set(letters) <= _LETTERS and not set(letters) & {"e", "E"}:
            return text
    raise NotPlain


def _split(line: str) -> tuple[str, str]:
    """``KEY: VALUE  # note`` → (key, value) with the comment dropped."""
    key, sep, rest = line.partition(":")
    if not sep or (rest and rest[0] != " "):
        raise NotPlain
    value = rest.strip(" ")
    if "#" in value:
        value, _, _note = value.partition("#")
        if value and value[-1] != " ":
            raise NotPlain  # `#` inside a plain scalar belongs to it
        value = value.rstrip(" ")
    return key, value


def load_plain(text: str) -> object:
    """The data of `text` in the plain subset (see the module docstring): a dict (nested dicts, str/int/bool/None
    values), or None for a text of only comments and blanks; NotPlain when the text is outside the subset."""
    if not text.replace("\n", "").isprintable():
        raise NotPlain  # tabs, CR, YAML's other line breaks (NEL, LS, PS), a BOM, control characters
    root: dict[str, object] = {}
    # (indent, mapping) from the top level down; `pending`: a `KEY:` whose value is not known yet.
    stack: list[tuple[int, dict[str, object]]] = [(0, root)]
    pending: tuple[dict[str, object], str, int] | None = None
    seen_any = False
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        if pending is not None:
            parent, name, parent_indent = pending
            pending = None
            if indent > parent_indent:
                child: dict[str, object] = {}
                parent[name] = child
                stack.append((indent, child))
            else:
                parent[name] = None
        while indent < stack[-1][0]:
            stack.pop()
        if indent != stack[-1][0]:
            raise NotPlain
        mapping = stack[-1][1]
        raw_key, raw_value = _split(stripped.rstrip(" "))
        key = _key(raw_key)
        if key in mapping:
            raise NotPlain  # the full reader names the duplicate
        seen_any = True
        if raw_value:
            mapping[key] = _scalar(raw_value)
        else:
            mapping[key] = None
            pending = (mapping, key, indent)
    return root if seen_any else None
