"""BRAIN-INDEX.md as the old tooling wrote it: its signal and claim rows, read for a one-time import.

A hand-written (v1) index holds ``## Claims actifs``, ``## Claims stale``, ``## Signals`` and
``## Historique`` tables; rows with no file in `claims/` or `signals/` are imported once
(`core/records/index_file.py`), then the generated block takes those sections' place. Pure functions:
no file I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from brain_tui.core.ids import SESSION_ID_RE, SIGNAL_ID_RE
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.layout import INDEX_FILE
from brain_tui.core.records.index import END, START

_EMPTY_CELLS = frozenset({"", "—", "-"})
_STATE_ALIASES = {
    "pending": "pending",
    "delivered": "delivered",
    "archived": "archived",
    "livré": "delivered",
    "livre": "delivered",
    "archivé": "archived",
    "archive": "archived",
}


def _split_row(line: str) -> list[str] | None:
    """Split one markdown table row into unescaped, trimmed cells (None if not a row)."""
    text = line.strip()
    if not text.startswith("|"):
        return None
    cells: list[str] = []
    current: list[str] = []
    i = 1
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] == "|":
            current.append("|")
            i += 2
            continue
        if char == "|":
            cells.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    tail = "".join(current)
    if tail.strip():  # a row without its closing pipe
        cells.append(tail)
    return [cell.strip() for cell in cells]


def _legacy_value(cell: str) -> str:
    """A legacy cell's value: ``—``, ``-`` and blank mean empty."""
    return "" if cell in _EMPTY_CELLS else cell


def _legacy_state(cell: str) -> str:
    """Normalise a legacy ``État`` cell to pending/delivered/archived (unknown → pending)."""
    words = cell.strip("*`_ ").lower().split()
    word = words[0].strip("*`_.,;:()") if words else ""
    return _STATE_ALIASES.get(word, "pending")


_SIGNALS_HEADING_RE = LazyPattern(r"^##\s+Signals\b", re.IGNORECASE)
_ACTIVE_HEADING_RE = LazyPattern(r"^##\s+Claims\s+actifs\b", re.IGNORECASE)
_STALE_HEADING_RE = LazyPattern(r"^##\s+Claims\s+stale\b", re.IGNORECASE)


def _section_lines(text: str, heading: LazyPattern, *, generated: bool = False) -> list[str]:
    """Lines of every section whose ``## `` heading matches, outside the generated block (or only inside it).

    A section runs from its heading to the next ``## `` heading or a block marker.
    """
    found: list[str] = []
    in_generated = False
    in_section = False
    for line in text.splitlines():
        stripped = line.strip()
        if in_generated and END in line:
            in_generated = False
            in_section = False
            continue
        if not in_generated and START in line:
            in_generated = END not in line.split(START, 1)[1]
            in_section = False
            continue
        if in_generated != generated:
            continue
        if stripped.startswith("## ") or stripped == "##":
            in_section = heading.match(stripped) is not None
            continue
        if in_section:
            found.append(line)
    return found


def has_block(text: str) -> bool:
    """True when the text holds the generated block's start marker (the index was migrated)."""
    return START in text


def parse_legacy_signal_rows(text: str) -> list[dict[str, str]]:
    """Read the signal rows of an old BRAIN-INDEX.md (SPEC 7, legacy import).

    Every table row of the ``## Signals`` section whose first cell is a signal ID (``sig-…``) is a signal, wherever
    it stands in the section (rows written above the table header included). The generated block is ignored.

    - 7 cells: ``ID | De | Pour | Type | Concerné | Payload | État``
    - 6 cells: ``ID | De | Pour | Type | Payload | État``

    Other cell counts, headers and separators are skipped. ``\\|`` is unescaped; ``—``, ``-`` and blank cells are
    empty strings. The state is lowercased (``livré``/``archivé`` understood); an unknown state reads ``pending``.

    Returns:
        One dict per row, in file order, with keys ``sig_id``, ``from``, ``to``,
        ``type``, ``scope``, ``payload``, ``state``.
    """
    return _signal_rows_of(_section_lines(text, _SIGNALS_HEADING_RE))


def parse_block_signal_rows(text: str) -> list[dict[str, str]]:
    """Signal rows inside the generated block's ``## Signals`` table (one a seeds-era agent appended).

    Same shape as `parse_legacy_signal_rows`; the rows the product rendered itself have their files.
    """
    return _signal_rows_of(_section_lines(text, _SIGNALS_HEADING_RE, generated=True))


def parse_legacy_claim_rows(text: str) -> list[dict[str, str]]:
    """The claim rows of a hand-written (v1) BRAIN-INDEX.md, outside the generated block.

    - ``## Claims actifs``: ``Session | Instance | Portée | Niveau | Ouvert le | Expire le | État`` (7 cells);
    - ``## Claims stale``: ``Session | Instance | Portée | Expiré le | Action requise`` (5 cells): stale.

    Rows whose first cell is not a session ID (headers, ``—`` placeholders) are skipped.

    Returns:
        One dict per row with keys ``sess_id``, ``instance``, ``scope``, ``level``, ``opened``,
        ``expires``, ``status`` (``stale`` for the stale table; else the ``État`` cell, ``open`` when empty).
    """
    rows: list[dict[str, str]] = []
    for heading, stale in ((_ACTIVE_HEADING_RE, False), (_STALE_HEADING_RE, True)):
        for line in _section_lines(text, heading):
            cells = _split_row(line)
            if not cells or not SESSION_ID_RE.match(cells[0].strip("`")):
                continue
            sess_id = cells[0].strip("`")
            if not stale and len(cells) == 7:
                _id, instance, scope, level, opened, expires, state = cells
                status = _legacy_value(state).strip("*`_ ").lower() or "open"
            elif stale and len(cells) == 5:
                _id, instance, scope, expires, _action = cells
                level, opened, status = "", "", "stale"
            else:
                continue
            rows.append({"sess_id": sess_id, "instance": _legacy_value(instance), "scope": _legacy_value(scope),
                         "level": _legacy_value(level), "opened": _legacy_value(opened),
                         "expires": _legacy_value(expires), "status": status})
    return rows


def _signal_rows_of(lines: Iterable[str]) -> list[dict[str, str]]:
    """The signal rows among table lines (7 or 6 cells, SPEC 7)."""
    signals: list[dict[str, str]] = []
    for line in lines:
        cells = _split_row(line)
        if not cells or not SIGNAL_ID_RE.match(cells[0]):
            continue
        if len(cells) == 7:
            sig_id, sender, to, kind, scope, payload, state = cells
        elif len(cells) == 6:
            sig_id, sender, to, kind, payload, state = cells
            scope = ""
        else:
            continue
        signals.append(
            {
                "sig_id": sig_id,
                "from": _legacy_value(sender),
                "to": _legacy_value(to),
                "type": _legacy_value(kind),
                "scope": _legacy_value(scope),
                "payload": _legacy_value(payload),
                "state": _legacy_state(state),
            }
        )
    return signals


def legacy_claim_doc(row: dict[str, str]) -> dict[str, str]:
    """The claim file a legacy index row stands for (a v2-style mapping; naive times are the brain's zone).

    ``Niveau`` is the v1 scope level (``global``, ``dir``, ``file``, ``section``) or a tree level
    (``pilote``, ``domain``, ``leaf``): ``dir`` gives the scope its trailing slash, ``global`` is ``*``. The
    ``Portée`` cell's backticks are dropped: ```a/`, `b/``` holds ``a/`` and ``b/``.
    """
    scope = row["scope"].replace("`", "")  # markdown code spans, around the cell or each entry: markup, not names
    level = row["level"].strip("`").lower()
    if level == "global" or not scope:
        scope = "*"
    elif level == "dir" and not scope.endswith("/"):
        scope += "/"
    doc = {"sess_id": row["sess_id"], "instance": row["instance"], "scope": scope, "status": row["status"]}
    if level in ("pilote", "pilot"):
        doc["type"] = "pilote"
    elif level == "domain":
        doc["satellite_level"] = "domain"
    if row["opened"]:
        doc["opened_at"] = row["opened"]
    if row["expires"]:
        doc["expires_at"] = row["expires"]
    doc["imported_from"] = INDEX_FILE
    return doc
