"""A claim file's terminal status read from its bytes without YAML, when the bytes leave no doubt.

The closed set (`closed_set`) needs each committed claim's status once; parsing 100,000 files as YAML costs a minute.
The product writes ``status:``, ``sess_id:`` and ``closed_at:`` as top-level ``key: value`` lines, so a line scan
finds them. The scan answers only for files whose every line is plain: no multi-line quoted or flow value, no anchor,
alias, tag, document marker, complex key, duplicate key, or line break other than ``\\n``. Any other file is
*undecided* and the caller parses it (fail safe: a wrong "terminal" would hide a live claim; a wrong "undecided" only
costs a parse).
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from pathlib import PurePosixPath

from brain_tui.core.clock import try_parse_timestamp
from brain_tui.core.ids import valid_session_id
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.records.formats import claim_identity, normalize_status, parse_claim_bytes, signal_from_mapping
from brain_tui.core.records.model import Signal
from brain_tui.core.records.statuses import TERMINAL_STATUSES, SignalState
from brain_tui.core.records.yamlio import MAX_FILE_BYTES, CorruptYaml, safe_load_bytes

__all__ = ["UNDECIDED", "Terminal", "archived_of", "micros", "scan_status", "terminal_of"]

#: ``(sess_id, status, closed_at as epoch microseconds, parent_satellite or "")`` of a terminal claim.
Terminal = tuple[str, str, int, str]
#: `scan_status`'s answer when the bytes alone cannot say.
UNDECIDED = "undecided"

_KEY_LINE = LazyPattern(r"([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?")
_SINGLE = LazyPattern(r"'(?:[^']|'')*'")
_DOUBLE = LazyPattern(r'"[^"\\]*"')
_BLOCK = LazyPattern(r"[|>][+-]?[1-9]?")
#: Characters YAML reads as line breaks or that change how a line reads (beside ``\n``).
_ODD_BREAKS = ("\r", "\x85", "\u2028", "\u2029", "\t", "\ufeff")
_SPECIAL_START = "\"'[{|>&*!%@`#?"
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})


def _value(text: str) -> str | None:
    """A one-line value as YAML reads it, or None when it is not plainly one line."""
    text = text.strip(" ")
    if not text:
        return ""
    if text[0] not in _SPECIAL_START:
        if " #" in text or ": " in text or text.endswith(":") or text[0] in "-:" and text[1:2] in ("", " "):
            return None
        return text
    if _SINGLE.fullmatch(text):
        return text[1:-1].replace("''", "'")
    if _DOUBLE.fullmatch(text):
        return text[1:-1]
    if (text[0] in "[{" and _flow_ok(text)) or _BLOCK.fullmatch(text):
        return text  # a scope list or a block scalar's header: never one of the keys read here
    return None


def _flow_ok(text: str) -> bool:
    """True when a one-line flow collection closes on its last character, quotes balanced."""
    depth = 0
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\" and quote == '"':
                index += 1
            elif char == quote:
                if quote == "'" and text[index + 1:index + 2] == "'":
                    index += 1
                else:
                    quote = ""
        elif char in "'\"" and (index == 0 or text[index - 1] in " ,[{:"):
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0 and index != len(text) - 1 or depth < 0:
                return False
        elif char in "&*!|>%@`#" and (index == 0 or text[index - 1] in " ,[{"):
            return False
        index += 1
    return depth == 0 and not quote


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _skip(lines: list[str], index: int) -> int:
    """The next line holding content (blank and full-line comment lines skipped)."""
    while index < len(lines) and (not lines[index].strip(" ") or lines[index].lstrip(" ").startswith("#")):
        index += 1
    return index


def _child(lines: list[str], index: int, indent: int, in_map: bool) -> int | None:
    """After an entry with an empty value: its nested block, if any; the index after it."""
    index = _skip(lines, index)
    if index >= len(lines):
        return index
    here = _indent(lines[index])
    if here > indent:
        return _block(lines, index, here, None)
    if in_map and here == indent and lines[index][here:].startswith("- "):
        return _block(lines, index, here, None)
    return index


def _after_value(lines: list[str], index: int, indent: int, value: str) -> int | None:
    """After a one-line value: a block scalar's text is skipped; a value never runs on."""
    if _BLOCK.fullmatch(value):
        while index < len(lines) and (not lines[index].strip(" ") or _indent(lines[index]) > indent):
            index += 1
        return index
    index = _skip(lines, index)
    if index < len(lines) and _indent(lines[index]) > indent:
        return None
    return index


def _block(lines: list[str], index: int, indent: int, top: dict[str, str] | None) -> int | None:
    """Check one block mapping or sequence whose entries sit at `indent`; the index after it, or None.

    `top` collects the entries of the top-level mapping. Values are one-line plain, quoted or
    flow scalars, block scalars, or nested blocks of the same kind.
    """
    index = _skip(lines, index)
    if index >= len(lines):
        return index
    is_seq = lines[index][indent:].startswith("- ") or lines[index][indent:] == "-"
    if top is not None and is_seq:
        return None
    keys: set[str] = set()
    while index < len(lines):
        line = lines[index]
        here = _indent(line)
        if here < indent:
            return index
        if here > indent:
            return None
        body = line[indent:]
        if is_seq:
            if not (body.startswith("- ") or body == "-"):
                return index if indent and not body.startswith("-") else None
            rest = body[2:].lstrip(" ")
            if _KEY_LINE.fullmatch(rest):
                lines[index] = " " * (len(line) - len(rest)) + rest  # `- a: b`: a mapping inside the item
                after = _block(lines, index, len(line) - len(rest), None)
            elif not rest:
                after = _child(lines, index + 1, indent, False)
            else:
                value = _value(rest)
                after = None if value is None else _after_value(lines, index + 1, indent, value)
        else:
            match = _KEY_LINE.fullmatch(body)
            if match is None or match.group(1) in keys:
                return None
            keys.add(match.group(1))
            value = _value(match.group(2) or "")
            if value is None:
                return None
            if top is not None:
                top[match.group(1)] = value
            if value == "":
                after = _child(lines, index + 1, indent, True)
            else:
                after = _after_value(lines, index + 1, indent, value)
        if after is None:
            return None
        index = after
        if index < len(lines) and not is_seq and _indent(lines[index]) == indent and \
                lines[index][indent:].startswith("-"):
            return None
    return index


def _top_keys(text: str) -> dict[str, str] | None:
    """The top-level ``key: value`` pairs of a plainly written file, or None when it is not plain."""
    lines = text.split("\n")
    found: dict[str, str] = {}
    end = _block(lines, 0, 0, found)
    return found if end is not None and _skip(lines, end) >= len(lines) else None


def scan_status(raw: bytes, name: str, tz: tzinfo) -> Terminal | None | str:
    """What a claim file's bytes say of its status, read line by line (`name`: the session ID when it names none;
    `tz` reads a naive ``closed_at``): `Terminal` when plainly a claim in a terminal status, None when plainly
    not terminal (open, paused…), `UNDECIDED` when only a parse can tell."""
    if len(raw) > MAX_FILE_BYTES:
        return UNDECIDED
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return UNDECIDED
    if any(mark in text for mark in _ODD_BREAKS):
        return UNDECIDED
    found = _top_keys(text)
    if found is None or not any(key in found for key in ("sess_id", "name", "scope")):
        return UNDECIDED
    status = normalize_status(found.get("status", ""))
    if not status or _BLOCK.fullmatch(status) or status[0] in "[{":
        return UNDECIDED
    if status not in TERMINAL_STATUSES:
        return None
    raw_id = found.get("sess_id") if "sess_id" in found else found.get("name")
    if raw_id is not None and (raw_id in _NULLS or not raw_id.startswith("sess-")):
        return UNDECIDED
    sess_id = raw_id.strip() if raw_id is not None else PurePosixPath(name).stem
    if not valid_session_id(sess_id):
        return UNDECIDED
    parent = _scanned_parent(found)
    if parent is None:
        return UNDECIDED
    # When it ended, as BRAIN-INDEX.md's history reads it: closed_at, else opened_at.
    ended = next((found[k] for k in ("closed_at", "closed", "opened_at", "opened") if found.get(k)), None)
    return sess_id, status, _micros(try_parse_timestamp(ended, tz) if ended else None), parent


def _scanned_parent(found: dict[str, str]) -> str | None:
    """``parent_satellite`` as the store reads it (``""`` for none), or None when only a parse can tell.

    Only an absent key or a ``sess-…`` text is answered: an empty value may open a nested block, the
    scan no longer knows whether ``null`` or ``true`` was quoted, and YAML types a plain one.
    """
    if "parent_satellite" not in found:
        return ""
    value = found["parent_satellite"]
    return _row_text(value.strip()) if value.startswith("sess-") else None


def _row_text(parent: str) -> str | None:
    """A parent a row can carry (no tab, no line break), else None."""
    return None if any(mark in parent for mark in ("\t", "\n", "\r")) else parent


#: The end of a terminal claim whose file gives no time: sorted as the most recent, so every
#: `closed_since` read builds it and the caller's own rule decides (a claim is never lost from the history).
UNKNOWN_END = 2**62


def micros(moment: datetime) -> int:
    """Epoch microseconds of an aware datetime (how the closed set orders close times)."""
    delta = moment.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _micros(moment: object) -> int:
    """Epoch microseconds of an aware datetime, `UNKNOWN_END` for anything else."""
    return micros(moment) if isinstance(moment, datetime) else UNKNOWN_END


def terminal_of(raw: bytes, name: str, tz: tzinfo) -> Terminal | None:
    """The terminal claim a file's bytes hold, or None (not terminal, not a claim, or corrupt).

    The line scan first; a file it cannot decide is parsed as the store parses it.
    """
    scanned = scan_status(raw, name, tz)
    if scanned != UNDECIDED:
        return scanned if isinstance(scanned, tuple) else None
    try:
        data = parse_claim_bytes(raw)
    except CorruptYaml:
        return None
    identity = claim_identity(data, f"claims/{name}", tz)
    if not isinstance(identity, tuple) or identity[1] not in TERMINAL_STATUSES:
        return None
    assert isinstance(data, dict) or hasattr(data, "get")
    ended = next((data[k] for k in ("closed_at", "closed", "opened_at", "opened") if data.get(k)), None)
    raw_parent = data.get("parent_satellite")
    # read as `claim_from_mapping` reads it; a parent no row can carry leaves the file live (read as before)
    parent = _row_text(("" if raw_parent is None else str(raw_parent)).strip())
    if parent is None:
        return None
    return identity[0], identity[1], _micros(try_parse_timestamp(ended, tz)), parent


def archived_of(raw: bytes, name: str, tz: tzinfo) -> Terminal | None:
    """``(sig_id, "archived", created_at µs)`` when a signal file's bytes read as an archived signal, else None.

    Read exactly as the store reads a signal file (`signal_from_mapping`), so a file that would be a
    corrupt row, or any other state, is never taken for archived. Bytes without the word are not parsed
    (a state spelled with escapes is then read as live: safe, it only costs a read).
    """
    if SignalState.ARCHIVED.encode() not in raw.lower() or len(raw) > MAX_FILE_BYTES:
        return None
    try:
        item = signal_from_mapping(safe_load_bytes(raw), f"signals/{name}", tz)
    except CorruptYaml:
        return None
    if not isinstance(item, Signal) or item.state != SignalState.ARCHIVED:
        return None
    return item.sig_id, SignalState.ARCHIVED, _micros(item.created_at), ""
