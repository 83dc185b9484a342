"""Signals that only a legacy BRAIN-INDEX.md records (SPEC 7, 14.4): seen and acted on before any import.

The old tools kept the signal bus as table rows of BRAIN-INDEX.md. The first write imports each row as a
file (`index_file.refresh`); until then a read takes the rows of an unmigrated index (no generated block)
as signals, so a pending signal is never unseen, and acknowledging one writes its file (the import). A row
whose ID already has a file, or an archived row in a live read, is left out.
"""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path

from brain_tui.core.ids import SIGNAL_ID_RE
from brain_tui.core.paths.layout import INDEX_FILE, SIGNALS_DIR
from brain_tui.core.records import index_legacy
from brain_tui.core.records.formats import signal_from_mapping
from brain_tui.core.records.model import Signal
from brain_tui.core.records.statuses import SignalState

#: The row fields a signal file takes, in file order.
ROW_FIELDS = ("sig_id", "from", "to", "type", "scope", "payload", "state")

Rows = list[dict[str, str]]


def legacy_rows(raw: bytes) -> tuple[Rows, Rows]:
    """(claim rows, signal rows) of a legacy BRAIN-INDEX.md; none once it holds the generated block (migrated)."""
    text = raw.decode("utf-8", errors="replace")
    if index_legacy.has_block(text):
        return [], []
    return index_legacy.parse_legacy_claim_rows(text), index_legacy.parse_legacy_signal_rows(text)


def signal_doc(row: dict[str, str], tz: tzinfo) -> dict[str, str]:
    """The signal file a legacy row becomes (`imported_from: BRAIN-INDEX.md`)."""
    doc = {key: row[key] for key in ROW_FIELDS}
    created = legacy_signal_time(row["sig_id"], tz)
    if created:
        doc["created_at"] = created
    doc["imported_from"] = INDEX_FILE
    return doc


def has_file(root: Path, sig_id: str) -> bool:
    """True when a file of `sig_id` exists in `signals/` (whatever it holds)."""
    return any((root / SIGNALS_DIR / f"{sig_id}{suffix}").exists() for suffix in (".yml", ".yaml"))


def index_only(root: Path, sig: Signal) -> bool:
    """True for a signal read from a legacy index row that has no file yet."""
    return sig.data.get("imported_from") == INDEX_FILE and not (root / sig.path).exists()


def index_signals(root: Path, rows: Rows, known: set[str], tz: tzinfo, *, live: bool) -> list[Signal]:
    """The signals of legacy rows that no file records (`known`: IDs read from files; `live`: archived left out)."""
    found: list[Signal] = []
    for row in rows:
        sig_id = row["sig_id"]
        if sig_id in known or not SIGNAL_ID_RE.match(sig_id) or (live and row["state"] == SignalState.ARCHIVED):
            continue
        if has_file(root, sig_id):
            continue
        known.add(sig_id)
        item = signal_from_mapping(signal_doc(row, tz), f"{SIGNALS_DIR}/{sig_id}.yml", tz)
        if isinstance(item, Signal):
            found.append(item)
    return found


def legacy_signal_time(sig_id: str, tz: tzinfo) -> str | None:
    """A creation date for an imported legacy signal, from its ID (`sig-YYYYMMDD-…`).

    The ID's time is the old tools' local time: read in the brain's zone `tz` and written with its offset
    (SPEC 3), so every machine reads the same instant after the import.
    """
    from brain_tui.core.clock import format_timestamp, try_parse_timestamp

    parts = sig_id.split("-")
    if len(parts) >= 2 and len(parts[1]) == 8 and parts[1].isdigit():
        day = parts[1]
        clock = parts[2] if len(parts) >= 3 and len(parts[2]) == 6 and parts[2].isdigit() else "000000"
        moment = try_parse_timestamp(f"{day[:4]}-{day[4:6]}-{day[6:]}T{clock[:2]}:{clock[2:4]}:{clock[4:]}", tz)
        return format_timestamp(moment, tz) if moment is not None else None
    return None
