"""Breath records of the context-broker (SPEC 17): reading ``breath/<sprint-id>.yml``.

One record per sprint, ``breath/<sprint-id>.yml``::

    sprint: sprint-20261129-1000-be6
    session: sess-…
    opened_at: …
    closed_at: …                        # set by expire
    inhale: {tech-lead: [projets/x.md, src/auth.ts], testing: [tests/auth.spec.ts]}
    referenced: [projets/x.md, src/auth.ts]
    released: [projets/x.md]
    kept: {src/auth.ts: "pagination not tested"}

Writes (`inhale`, `reference`, `expire`) live in core/environment/breath.py, metrics in breath_metrics.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, tzinfo
from pathlib import Path

from brain_tui.core.clock import try_parse_timestamp
from brain_tui.core.errors import InvalidData
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.layout import BREATH_DIR
from brain_tui.core.paths.scope_paths import BadPath, normalize
from brain_tui.core.records.model import BreathRecord, CorruptFile

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["SPRINT_ID_RE", "BreathRecord", "breath_from_mapping", "file_list", "order_records",
           "record_from_mapping", "record_path", "str_list", "validate_sprint_id"]

SPRINT_ID_RE = LazyPattern(r"^sprint-[A-Za-z0-9._-]+\Z")


def validate_sprint_id(sprint: str) -> str:
    """Return a valid sprint ID (``^sprint-[A-Za-z0-9._-]+$``; never a path); else raise InvalidData (exit 65)."""
    if not isinstance(sprint, str) or not SPRINT_ID_RE.match(sprint) or sprint in (".", ".."):
        raise InvalidData(f"invalid sprint ID {sprint!r}: expected sprint-<letters, digits, . _ ->")
    return sprint


def record_path(sprint: str) -> str:
    """``breath/<sprint-id>.yml`` for a valid sprint ID."""
    return f"{BREATH_DIR}/{validate_sprint_id(sprint)}.yml"


# -- reading --------------------------------------------------------------------------------------
def str_list(value: Any) -> tuple[str, ...]:
    """A record field as a tuple of distinct non-empty strings (a lone string is one; None none); ValueError else."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(dict.fromkeys(str(v) for v in value if v is not None and str(v) != ""))
    raise ValueError(f"expected a list of files, got {type(value).__name__}")


def _file_name(raw: str) -> str:
    """One file of a record as SPEC 5.1 normalises a brain path (`./y.md` and `y.md` are one file); a name that
    does not normalise (written by hand: absolute, `..`) is kept as written, so the record still reads."""
    try:
        return normalize(raw)
    except BadPath:
        return raw


def file_list(value: Any) -> tuple[str, ...]:
    """A record's list of files (`str_list`) with each name normalised and counted once (SPEC 17: `loaded` counts
    distinct files, whatever spelling a hand-written record uses); ValueError when it is not a list of files."""
    return tuple(dict.fromkeys(_file_name(name) for name in str_list(value)))


def record_from_mapping(data: Any, sprint: str | None = None, tz: tzinfo | None = None,
                        path: str = "") -> BreathRecord:
    """A BreathRecord from a parsed mapping (ValueError when it is not one); `sprint` defaults to the mapping's,
    `tz` (naive times) to UTC; `path` is the file's brain-relative path."""
    if not isinstance(data, Mapping):
        raise ValueError("top level is not a mapping")
    zone = tz or UTC
    sprint_id = sprint or str(data.get("sprint") or "")
    if not SPRINT_ID_RE.match(sprint_id):
        raise ValueError(f"invalid sprint ID {sprint_id!r}")
    inhale_raw = data.get("inhale") or {}
    if not isinstance(inhale_raw, Mapping):
        raise ValueError("inhale is not a mapping of agent → files")
    inhale = {str(agent): file_list(files) for agent, files in inhale_raw.items()}
    kept_raw = data.get("kept") or {}
    if isinstance(kept_raw, Mapping):
        kept = {_file_name(str(k)): "" if v is None else str(v) for k, v in kept_raw.items()}
    elif isinstance(kept_raw, list):
        kept = {_file_name(str(k)): "" for k in kept_raw}
    else:
        raise ValueError("kept is not a mapping of file → reason")
    session = data.get("session")
    return BreathRecord(
        sprint=sprint_id,
        path=path or f"{BREATH_DIR}/{sprint_id}.yml",
        session=str(session) if session else None,
        opened_at=try_parse_timestamp(data.get("opened_at"), zone),
        closed_at=try_parse_timestamp(data.get("closed_at"), zone),
        inhale=inhale,
        referenced=file_list(data.get("referenced")),
        released=file_list(data.get("released")),
        kept=kept,
    )


def breath_from_mapping(data: Any, rel_path: str, tz: tzinfo) -> BreathRecord | CorruptFile:
    """Read one ``breath/<sprint-id>.yml`` file's parsed data (the store's reader; never raises): the record, or a
    CorruptFile when the file's name is not a sprint ID or its data is not a record."""
    stem = Path(rel_path).stem
    if not SPRINT_ID_RE.match(stem):
        return CorruptFile(rel_path, 0, "not a sprint record (name must be sprint-<id>.yml)")
    try:
        return record_from_mapping(data, stem, tz, rel_path)
    except ValueError as exc:
        return CorruptFile(rel_path, 0, str(exc))


def order_records(records: Iterable[BreathRecord]) -> list[BreathRecord]:
    """Sprints ordered by opened_at (unknown last) then ID."""

    def key(rec: BreathRecord) -> tuple[bool, float, str]:
        opened = rec.opened_at
        return (opened is None, opened.timestamp() if opened else 0.0, rec.sprint)

    return sorted(records, key=key)
