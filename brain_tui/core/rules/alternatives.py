"""Free scopes near a refused one (seed 000: « Proposer scope alternatif si possible »).

When a claim is refused, the session is told which narrower scopes next to what it
asked for are free: the entries of a folder it asked for, or the other ``##``
sections of a markdown file. Each proposal is checked with the same conflict rule
as a claim (`conflicts.find_conflicts`), so a proposal is never itself refused at
the time it is made. Bounded: at most `SCAN_LIMIT` folder entries and one file
header scan of at most `HEADER_BYTES`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.layout import DATA_DIRS, INDEX_FILE, STATE_DIR
from brain_tui.core.paths.scope import ScopeEntry, format_scope, is_markdown, parse_scope
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.records.yamlio import read_capped
from brain_tui.core.rules.conflicts import find_conflicts

#: How many proposals a refusal carries.
LIMIT = 5
#: How many entries of a folder are looked at.
SCAN_LIMIT = 200
#: How much of a markdown file is read for its ``##`` headings.
HEADER_BYTES = 256 * 1024

_PROTOCOL_NAMES = frozenset({*DATA_DIRS, INDEX_FILE, STATE_DIR})
_SECTION_RE = re.compile(r"^##[ \t]+(?P<title>[^\n#][^\n]*?)[ \t#]*$", re.MULTILINE)


def nearby_free(snapshot: BrainSnapshot, entries: Sequence[ScopeEntry], *, parent: str | None = None,
                satellite_type: str | None = None, limit: int = LIMIT) -> list[str]:
    """Scopes next to the refused `entries` that a claim could take now, as written (``agents/x.md``).

    Each proposal replaces one refused entry: the children of a refused folder, the other
    sections of a refused markdown file or section. Empty when nothing near is free.
    """
    root = Path(snapshot.root)
    proposals: list[str] = []
    for entry in entries:
        if not find_conflicts(snapshot, [entry], parent=parent, satellite_type=satellite_type):
            continue
        for candidate in _candidates(root, entry):
            if len(proposals) >= limit:
                return proposals
            try:
                parsed = parse_scope([candidate], root)
            except InvalidData:
                continue
            if find_conflicts(snapshot, parsed, parent=parent, satellite_type=satellite_type):
                continue
            text = format_scope(parsed)
            if isinstance(text, str) and text not in proposals:
                proposals.append(text)
    return proposals


def _candidates(root: Path, entry: ScopeEntry) -> list[str]:
    """Narrower scopes inside `entry`, in a stable order."""
    if entry.kind == "dir":
        return _folder_entries(root, entry.path)
    if entry.kind == "global":
        return _folder_entries(root, "")
    if is_markdown(entry.path):
        wanted = entry.section.strip().lower() if entry.kind == "section" else None
        return [f"{entry.path}#{title}" for title in _sections(root / entry.path)
                if title.strip().lower() != wanted]
    return []


def _folder_entries(root: Path, folder: str) -> list[str]:
    """The visible files and folders of `folder` (protocol folders and hidden names left out)."""
    base = root / folder if folder else root
    prefix = f"{folder}/" if folder else ""
    found: list[str] = []
    try:
        with os.scandir(base) as listing:
            for item in listing:
                if len(found) >= SCAN_LIMIT:
                    break
                if item.name.startswith(".") or (not folder and item.name in _PROTOCOL_NAMES):
                    continue
                try:
                    is_dir = item.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                found.append(f"{prefix}{item.name}/" if is_dir else f"{prefix}{item.name}")
    except OSError:
        return []
    return sorted(found)


def _sections(path: Path) -> list[str]:
    """The ``##`` titles of a markdown file (first `HEADER_BYTES`), in file order; none when it is no regular file
    (a FIFO planted there is never waited on) or cannot be read."""
    try:
        raw = read_capped(path, HEADER_BYTES)
    except OSError:
        return []
    if raw is None:
        return []
    text = raw.decode("utf-8", errors="replace")
    return [m.group("title").strip() for m in _SECTION_RE.finditer(text)]
