"""BRAIN-INDEX.md on disk: the one-time import of legacy signal rows, then the regenerated block.

A legacy row is imported when no signal file of its ID exists and, in a git
brain, none ever did (HEAD's history): a signal deleted after its import stays
deleted. A brain without git cannot tell, so such a row comes back.

`core/index.py` renders the block as a pure function of a snapshot; this module
does the file work around it, under the brain lock held by `Brain`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import tzinfo
from pathlib import Path

from ruamel.yaml.comments import CommentedMap

from brain_tui.core import gitops, index
from brain_tui.core.changes import yaml_safe
from brain_tui.core.ids import SIGNAL_ID_RE
from brain_tui.core.layout import INDEX_FILE, SIGNALS_DIR
from brain_tui.core.model import BrainSnapshot
from brain_tui.core.yamlio import atomic_write_text, dump_round_trip


def refresh(root: Path, take_snapshot: Callable[[], BrainSnapshot], display_tz: tzinfo) -> tuple[list[str], list[str]]:
    """Import legacy signal rows once, then regenerate the generated block of BRAIN-INDEX.md.

    Args:
        root: the brain folder.
        take_snapshot: reads the brain now (called again after an import).
        display_tz: the zone the index shows times in.

    Returns:
        (signal IDs imported, files written relative to the brain).
    """
    path = root / INDEX_FILE
    existing = path.read_text(encoding="utf-8") if path.is_file() else None
    written: list[str] = []
    imported: list[str] = []
    snapshot = take_snapshot()
    if existing:
        known = {s.sig_id for s in snapshot.signals}
        rows = [row for row in index.parse_legacy_signal_rows(existing)
                if row["sig_id"] not in known and SIGNAL_ID_RE.match(row["sig_id"])]
        # "Imported once": a row whose signal file git ever held was imported (or written) before and
        # deleted since; bringing it back would resurrect a pending signal someone removed on purpose.
        history = gitops.ever_added(root, SIGNALS_DIR) if rows else None
        for row in rows:
            sig_id = row["sig_id"]
            if sig_id in known or (history is not None and any(
                    f"{SIGNALS_DIR}/{sig_id}{suffix}" in history for suffix in (".yml", ".yaml"))):
                continue
            known.add(sig_id)
            doc = CommentedMap()
            doc["sig_id"] = sig_id
            doc["from"] = row["from"]
            doc["to"] = row["to"]
            doc["type"] = row["type"]
            doc["scope"] = row["scope"]
            doc["payload"] = row["payload"]
            doc["state"] = row["state"]
            created = _legacy_signal_time(sig_id)
            if created:
                doc["created_at"] = created
            doc["imported_from"] = INDEX_FILE
            rel = f"{SIGNALS_DIR}/{sig_id}.yml"
            atomic_write_text(root / rel, dump_round_trip(yaml_safe(doc)))
            written.append(rel)
            imported.append(sig_id)
        if imported:
            snapshot = take_snapshot()
    new_text = index.apply_block(existing, index.render_block(snapshot, display_tz))
    if new_text != existing:
        atomic_write_text(path, new_text)
        written.append(INDEX_FILE)
    return imported, written


def _legacy_signal_time(sig_id: str) -> str | None:
    """A creation date for an imported legacy signal, from its ID (`sig-YYYYMMDD-…`)."""
    parts = sig_id.split("-")
    if len(parts) >= 2 and len(parts[1]) == 8 and parts[1].isdigit():
        day = parts[1]
        clock = parts[2] if len(parts) >= 3 and len(parts[2]) == 6 and parts[2].isdigit() else "000000"
        return f"{day[:4]}-{day[4:6]}-{day[6:]}T{clock[:2]}:{clock[2:4]}:{clock[4:]}"
    return None
