"""BRAIN-INDEX.md on disk: the one-time import of legacy rows, then the regenerated block.

A legacy signal or claim row is imported when no file of its ID exists and, in a git brain, none ever did (HEAD's
history): a record deleted after its import stays deleted. A brain without git cannot tell, so a hand-written signal
row comes back (a row inside the generated table is imported only in a git brain). At migration (no generated block
yet) the legacy tables give way to the block.

`core/records/index.py` renders the block as a pure function of a snapshot; this module
does the file work around it, under the brain lock held by `Brain`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import tzinfo
from pathlib import Path

from brain_tui.core.ids import SIGNAL_ID_RE, valid_session_id
from brain_tui.core.paths.layout import CLAIMS_DIR, INDEX_FILE, SIGNALS_DIR
from brain_tui.core.records import index, index_legacy, index_signals
from brain_tui.core.records.changes import yaml_safe
from brain_tui.core.records.formats import YAML_SUFFIXES
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.records.yamlio import atomic_write_text, dump_round_trip
from brain_tui.core.sync import gitops

#: Told the paths a write is about to create, before it creates them (the write's journal entry).
Cover = Callable[[list[str]], None]


def _uncovered(_rels: list[str]) -> None:
    """A refresh outside a journal entry covers nothing."""


def refresh(root: Path, take_snapshot: Callable[[], BrainSnapshot], display_tz: tzinfo,
            cover: Cover = _uncovered) -> tuple[list[str], list[str]]:
    """Import legacy signal rows once, then regenerate the generated block of BRAIN-INDEX.md.

    `take_snapshot` reads the brain (again after an import); `cover` is given each imported file before it is
    written, so a kill before the commit rolls it back (`Journal.cover`) rather than leaving a file no commit holds
    and no later import writes again. Returns ``(signal IDs imported, brain-relative files written)``."""
    path = root / INDEX_FILE
    raw = path.read_bytes() if path.is_file() else None
    # Text outside the block is kept byte for byte, bytes that are not UTF-8 too (a hand edit saved in Latin-1);
    # the legacy rows are read as the readers read them (`index_signals.legacy_rows`: U+FFFD for such bytes).
    original = None if raw is None else raw.decode("utf-8", "surrogateescape")
    existing = None if raw is None else raw.decode("utf-8", "replace")
    written: list[str] = []
    imported: list[str] = []
    snapshot = take_snapshot()
    if existing:
        imported = _import_signals(root, existing, snapshot, written, cover)
        claims_written = _import_claims(root, existing, written, cover)
        if imported or claims_written:
            snapshot = take_snapshot()
    new_text = index.apply_block(original, index.render_block(snapshot, display_tz))
    if new_text != original:
        atomic_write_text(path, new_text, errors="surrogateescape")
        written.append(INDEX_FILE)
    return imported, written


def _archived_file(root: Path, sig_id: str, corrupt: set[str]) -> bool:
    """True when a file of `sig_id` exists that read (a live read leaves archived signals out of the snapshot)."""
    return any((root / rel).exists() and rel not in corrupt
               for rel in (f"{SIGNALS_DIR}/{sig_id}.yml", f"{SIGNALS_DIR}/{sig_id}.yaml"))


def _ever_held(history: set[str] | None, folder: str, record_id: str) -> bool:
    """True when HEAD's history added a file of this record (imported or written before, deleted since)."""
    return history is not None and any(f"{folder}/{record_id}{suffix}" in history for suffix in YAML_SUFFIXES)


def _write_imported(root: Path, rel: str, fields: dict[str, str], written: list[str], cover: Cover) -> None:
    """Write the file of one imported record, its keys in the order given (covered by the journal first)."""
    from ruamel.yaml.comments import CommentedMap  # the write path's only

    cover([rel])
    atomic_write_text(root / rel, dump_round_trip(yaml_safe(CommentedMap(fields))))
    written.append(rel)


def _import_signals(root: Path, existing: str, snapshot: BrainSnapshot, written: list[str],
                    cover: Cover) -> list[str]:
    """Write a file for each legacy signal row that never had one; returns the imported IDs.

    Rows of the hand-written ``## Signals`` tables are imported in any brain; rows a seeds-era agent
    appended inside the generated table only where git can tell them from the product's own rows
    (a file git ever held was the product's, then removed on purpose).
    """
    known = {s.sig_id for s in snapshot.signals if not index_signals.index_only(root, s)}  # rows read, not files
    corrupt = {c.path for c in snapshot.corrupt}
    # The hand-written tables are read at the migration (the block's first write); their text is kept after it
    # (SPEC 8), never read again: a signal file deleted since is not brought back.
    outside = [] if index_legacy.has_block(existing) else index_legacy.parse_legacy_signal_rows(existing)
    inside = index_legacy.parse_block_signal_rows(existing)
    candidates = [row for row in [*outside, *inside]
                  if row["sig_id"] not in known and SIGNAL_ID_RE.match(row["sig_id"])
                  and not _archived_file(root, row["sig_id"], corrupt)]
    # "Imported once": a row whose signal file git ever held was imported (or written) before and
    # deleted since; bringing it back would resurrect a pending signal someone removed on purpose.
    history = gitops.ever_added(root, SIGNALS_DIR) if candidates else None
    if history is None:
        candidates = [row for row in candidates if row in outside]
    imported: list[str] = []
    for row in candidates:
        sig_id = row["sig_id"]
        if sig_id in known or _ever_held(history, SIGNALS_DIR, sig_id):
            continue
        known.add(sig_id)
        _write_imported(root, f"{SIGNALS_DIR}/{sig_id}.yml", index_signals.signal_doc(row, snapshot.tz), written,
                         cover)
        imported.append(sig_id)
    return imported


def _import_claims(root: Path, existing: str, written: list[str], cover: Cover) -> list[str]:
    """Write a claim file for each claim row of a legacy (v1) index that has none (SPEC 6.2: it must load).

    Until then the store reads such rows as claims (they block); imported once, like signals: a row
    whose file git ever held, or whose file exists (even corrupt), is left alone.
    """
    if index_legacy.has_block(existing):
        return []
    rows = [row for row in index_legacy.parse_legacy_claim_rows(existing) if valid_session_id(row["sess_id"])]
    if not rows:
        return []
    history = gitops.ever_added(root, CLAIMS_DIR)
    done: list[str] = []
    for row in rows:
        sess_id = row["sess_id"]
        if any((root / CLAIMS_DIR / f"{sess_id}{suffix}").exists() for suffix in YAML_SUFFIXES) or \
                _ever_held(history, CLAIMS_DIR, sess_id):
            continue
        (root / CLAIMS_DIR).mkdir(exist_ok=True)
        _write_imported(root, f"{CLAIMS_DIR}/{sess_id}.yml", index_legacy.legacy_claim_doc(row), written, cover)
        done.append(sess_id)
    return done

