"""Breath records and metrics of the context-broker (SPEC 17).

One record per sprint, ``breath/<sprint-id>.yml``::

    sprint: sprint-20261129-1000-be6
    session: sess-…
    opened_at: …
    closed_at: …                        # set by expire
    inhale: {tech-lead: [projets/x.md, src/auth.ts], testing: [tests/auth.spec.ts]}
    referenced: [projets/x.md, src/auth.ts]
    released: [projets/x.md]
    kept: {src/auth.ts: "pagination not tested"}

Writes are staged in a ChangeSet (`inhale`, `reference`, `expire`); existing
records are edited round-trip so comments and unknown keys survive.

Metrics (seed formulas), where `loaded` is the number of distinct files inhaled
by all agents:

- ``context_load = loaded / referenced``                 alert > 2.0
- ``stale_ratio  = loaded not referenced / loaded``      alert > 0.30
- ``breath_depth = loaded − released``                   alert when it grows 3 sprints in a row
- ``exhale_rate  = released / loaded``                   alert < 0.50

`released` counts only released files that were loaded, so a stray release
can neither push the exhale rate above 1 nor the depth below 0. A division by
zero gives a null metric and no alert. The exhale-side alerts (exhale rate,
depth trend) wait for the sprint's expire: before it nothing can have been
released. The inhale rule "at most 2 sources per agent" is reported as an
alert, never refused.
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from brain_tui.core.changes import ChangeSet, flow_map
from brain_tui.core.clock import try_parse_timestamp
from brain_tui.core.errors import InvalidData, NotFound
from brain_tui.core.layout import BREATH_DIR
from brain_tui.core.model import CorruptFile
from brain_tui.core.scope import normalize_path
from brain_tui.core.yamlio import CorruptYaml, load_round_trip, safe_load_file

SPRINT_ID_RE = re.compile(r"^sprint-[A-Za-z0-9._-]+$")
MAX_SOURCES_PER_AGENT = 2
#: The trend alert fires when breath_depth grew over this many consecutive (closed) sprints.
DEPTH_TREND_SPRINTS = 3
#: Alert thresholds (SPEC 17), for display next to each metric.
THRESHOLDS: dict[str, tuple[str, float]] = {
    "context_load": (">", 2.0),
    "stale_ratio": (">", 0.30),
    "exhale_rate": ("<", 0.50),
}


def thresholds_text() -> str:
    """The alert thresholds in one line (shown under the metrics table)."""
    load, stale, exhale = THRESHOLDS["context_load"], THRESHOLDS["stale_ratio"], THRESHOLDS["exhale_rate"]
    return (f"thresholds: context_load {load[0]} {load[1]:.1f}, stale_ratio {stale[0]} {stale[1]:.0%}, "
            f"exhale_rate {exhale[0]} {exhale[1]:.0%}, breath_depth growing {DEPTH_TREND_SPRINTS} sprints in a row, "
            f"at most {MAX_SOURCES_PER_AGENT} sources per agent")


_AGENT_RE = re.compile(r"^[^\x00-\x1f\x7f]{1,80}$")

#: Records already being edited by a ChangeSet (so several calls in one change compose).
_STAGED: weakref.WeakKeyDictionary[ChangeSet, dict[str, CommentedMap]] = weakref.WeakKeyDictionary()


def validate_sprint_id(sprint: str) -> str:
    """Check a sprint ID (``^sprint-[A-Za-z0-9._-]+$``; never a path).

    Raises:
        InvalidData: the ID does not match (exit 65).
    """
    if not isinstance(sprint, str) or not SPRINT_ID_RE.match(sprint) or sprint in (".", ".."):
        raise InvalidData(f"invalid sprint ID {sprint!r}: expected sprint-<letters, digits, . _ ->")
    return sprint


def record_path(sprint: str) -> str:
    """``breath/<sprint-id>.yml`` for a valid sprint ID."""
    return f"{BREATH_DIR}/{validate_sprint_id(sprint)}.yml"


# -- reading --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BreathRecord:
    """One sprint's breath record, read leniently.

    Attributes:
        sprint: the sprint ID (the file's name).
        path: ``breath/<sprint>.yml``.
        session: the session that ran the sprint, or None.
        opened_at / closed_at: parsed times (None when absent or unreadable).
        inhale: agent → files loaded for it.
        referenced: files the sprint referenced.
        released: files released at expire.
        kept: file → reason it was kept.
    """

    sprint: str
    path: str = ""
    session: str | None = None
    opened_at: datetime | None = None
    closed_at: datetime | None = None
    inhale: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    referenced: tuple[str, ...] = ()
    released: tuple[str, ...] = ()
    kept: Mapping[str, str] = field(default_factory=dict)

    @property
    def loaded(self) -> tuple[str, ...]:
        """Distinct files inhaled by all agents, in first-seen order."""
        return tuple(dict.fromkeys(f for files in self.inhale.values() for f in files))

    @property
    def is_closed(self) -> bool:
        """True once the sprint was expired (closed_at set)."""
        return self.closed_at is not None


def _str_list(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(dict.fromkeys(str(v) for v in value if v is not None and str(v) != ""))
    raise ValueError(f"expected a list of files, got {type(value).__name__}")


def record_from_mapping(data: Any, sprint: str | None = None, tz: tzinfo | None = None,
                        path: str = "") -> BreathRecord:
    """Build a BreathRecord from a parsed mapping.

    Args:
        data: the parsed YAML mapping.
        sprint: the sprint ID (default: the mapping's `sprint`).
        tz: zone for naive timestamps (default UTC).
        path: the file's path relative to the brain.

    Raises:
        ValueError: the mapping is not a breath record.
    """
    if not isinstance(data, Mapping):
        raise ValueError("top level is not a mapping")
    zone = tz or UTC
    sprint_id = sprint or str(data.get("sprint") or "")
    if not SPRINT_ID_RE.match(sprint_id):
        raise ValueError(f"invalid sprint ID {sprint_id!r}")
    inhale_raw = data.get("inhale") or {}
    if not isinstance(inhale_raw, Mapping):
        raise ValueError("inhale is not a mapping of agent → files")
    inhale = {str(agent): _str_list(files) for agent, files in inhale_raw.items()}
    kept_raw = data.get("kept") or {}
    if isinstance(kept_raw, Mapping):
        kept = {str(k): "" if v is None else str(v) for k, v in kept_raw.items()}
    elif isinstance(kept_raw, list):
        kept = {str(k): "" for k in kept_raw}
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
        referenced=_str_list(data.get("referenced")),
        released=_str_list(data.get("released")),
        kept=kept,
    )


def load_records(root: str | os.PathLike[str], tz: tzinfo | None = None
                 ) -> tuple[list[BreathRecord], list[CorruptFile]]:
    """Read every ``breath/*.yml`` (bounded safe loads); bad files become corrupt rows.

    Returns:
        (records ordered by opened_at then ID, corrupt files).
    """
    folder = Path(root) / BREATH_DIR
    records: list[BreathRecord] = []
    corrupt: list[CorruptFile] = []
    if not folder.is_dir():
        return records, corrupt
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.suffix not in (".yml", ".yaml") or entry.name.startswith("."):
            continue
        rel = f"{BREATH_DIR}/{entry.name}"
        if not SPRINT_ID_RE.match(entry.stem) or not entry.is_file():
            corrupt.append(CorruptFile(rel, 0, "not a sprint record (name must be sprint-<id>.yml)"))
            continue
        try:
            data = safe_load_file(entry)
            records.append(record_from_mapping(data, entry.stem, tz, rel))
        except CorruptYaml as exc:
            corrupt.append(CorruptFile(rel, exc.line, exc.reason))
        except (ValueError, OSError) as exc:
            corrupt.append(CorruptFile(rel, 0, str(exc)))
    return order_records(records), corrupt


def order_records(records: Iterable[BreathRecord]) -> list[BreathRecord]:
    """Sprints ordered by opened_at (unknown last) then ID."""

    def key(rec: BreathRecord) -> tuple[bool, float, str]:
        opened = rec.opened_at
        return (opened is None, opened.timestamp() if opened else 0.0, rec.sprint)

    return sorted(records, key=key)


# -- writing --------------------------------------------------------------------------------------
def _files(files: Iterable[str]) -> list[str]:
    out: list[str] = []
    for raw in files:
        path = normalize_path(str(raw))
        if path not in out:
            out.append(path)
    if not out:
        raise InvalidData("no files given")
    return out


def _seq(items: Iterable[str]) -> CommentedSeq:
    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def _record_doc(cs: ChangeSet, sprint: str, create: bool) -> CommentedMap | None:
    """The record being edited in this ChangeSet: staged, else read from disk, else None."""
    rel = record_path(sprint)
    staged = _STAGED.setdefault(cs, {})
    if rel in staged:
        return staged[rel]
    target = cs.root / rel
    if target.is_file():
        try:
            safe_load_file(target)
            doc = load_round_trip(target.read_text(encoding="utf-8"))
        except CorruptYaml as exc:
            raise InvalidData(f"{rel} line {exc.line}: {exc.reason}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidData(f"{rel}: {exc}") from None
    elif create:
        doc = CommentedMap()
        doc["sprint"] = sprint
    else:
        return None
    staged[rel] = doc
    cs.put(rel, doc)
    return doc


def _list_field(doc: CommentedMap, key: str) -> CommentedSeq:
    value = doc.get(key)
    if isinstance(value, CommentedSeq):
        return value
    seq = _seq(_str_list(value) if isinstance(value, (list, str)) else ())
    doc[key] = seq
    return seq


def _map_field(doc: CommentedMap, key: str, flow: bool = True) -> CommentedMap:
    value = doc.get(key)
    if isinstance(value, CommentedMap):
        return value
    mapping = flow_map(value) if flow and isinstance(value, Mapping) else flow_map({})
    doc[key] = mapping
    return mapping


def _set_after(doc: CommentedMap, key: str, value: Any, *anchors: str) -> None:
    """Set `key`; a new key goes right after the first anchor present (the SPEC 17 field order)."""
    if key in doc:
        doc[key] = value
        return
    keys = list(doc.keys())
    for anchor in anchors:
        if anchor in keys:
            doc.insert(keys.index(anchor) + 1, key, value)
            return
    doc.insert(0, key, value)


def _require(cs: ChangeSet, sprint: str) -> CommentedMap:
    doc = _record_doc(cs, sprint, create=False)
    if doc is None:
        raise NotFound(f"no breath record for {sprint}: start it with `bsi breath inhale {sprint} --agent A FILE…`")
    return doc


def inhale(cs: ChangeSet, sprint: str, agent: str, files: Sequence[str], session: str | None = None,
           *, at: datetime | None = None) -> list[dict[str, Any]]:
    """Stage the source map of one agent (created with ``opened_at`` when the record is new).

    Args:
        cs: the change being built.
        sprint: the sprint ID.
        agent: the agent the files are loaded for.
        files: files to load (paths relative to the brain or project).
        session: the session running the sprint (recorded when not yet set).
        at: when (default: the brain's now) — for opened_at of a new record.

    Returns:
        The inhale-rule alerts for this agent (more than 2 sources); empty when within the rule.

    Raises:
        InvalidData: bad sprint ID, agent name or path; corrupt existing record.
    """
    validate_sprint_id(sprint)
    if not isinstance(agent, str) or not _AGENT_RE.match(agent) or not agent.strip():
        raise InvalidData(f"invalid agent name {agent!r}")
    agent = agent.strip()
    paths = _files(files)
    doc = _record_doc(cs, sprint, create=True)
    assert doc is not None
    if session and not doc.get("session"):
        _set_after(doc, "session", session, "sprint")
    if not doc.get("opened_at"):
        _set_after(doc, "opened_at", cs.ts(at), "session", "sprint")
    inhaled = _map_field(doc, "inhale")
    current = inhaled.get(agent)
    merged = list(_str_list(current)) if current is not None else []
    for path in paths:
        if path not in merged:
            merged.append(path)
    inhaled[agent] = _seq(merged)
    for key in ("referenced", "released"):
        _list_field(doc, key)
    _map_field(doc, "kept")
    cs.message = f"bsi: breath inhale {sprint}"
    return inhale_alerts({agent: tuple(merged)})


def reference(cs: ChangeSet, sprint: str, files: Sequence[str]) -> list[str]:
    """Stage files the sprint actually referenced.

    Returns:
        The files newly added.

    Raises:
        InvalidData: bad sprint ID or path. NotFound: no record for the sprint.
    """
    validate_sprint_id(sprint)
    paths = _files(files)
    doc = _require(cs, sprint)
    seq = _list_field(doc, "referenced")
    added = [p for p in paths if p not in seq]
    seq.extend(added)
    cs.message = f"bsi: breath reference {sprint}"
    return added


def expire(cs: ChangeSet, sprint: str, files: Sequence[str], kept: Mapping[str, str] | None = None,
           *, at: datetime | None = None) -> list[str]:
    """Stage the release map: release `files`, keep each file of `kept` with its reason; set closed_at.

    Returns:
        Warnings (a released or kept file that was never inhaled).

    Raises:
        InvalidData: bad sprint ID or path, an empty reason, a file both released and kept.
        NotFound: no record for the sprint.
    """
    validate_sprint_id(sprint)
    released = _files(files) if files else []
    keep: dict[str, str] = {}
    for raw, reason in (kept or {}).items():
        text = " ".join(str(reason or "").split())
        if not text:
            raise InvalidData(f"kept file {raw!r} needs a reason (--keep FILE=REASON)")
        keep[normalize_path(str(raw))] = text
    if not released and not keep:
        raise InvalidData("nothing to expire: give files to release or --keep FILE=REASON")
    both = sorted(set(released) & set(keep))
    if both:
        raise InvalidData(f"{both[0]} is both released and kept")
    doc = _require(cs, sprint)
    record = record_from_mapping(doc, sprint)
    loaded = set(record.loaded)
    warnings = [f"{p} was not inhaled in {sprint}" for p in [*released, *keep] if p not in loaded]
    rel_seq = _list_field(doc, "released")
    kept_map = _map_field(doc, "kept")
    for path in released:
        if path not in rel_seq:
            rel_seq.append(path)
        if path in kept_map:
            del kept_map[path]
    for path, reason in keep.items():
        kept_map[path] = reason
        while path in rel_seq:
            rel_seq.remove(path)
    _set_after(doc, "closed_at", cs.ts(at), "opened_at", "session", "sprint")
    cs.message = f"bsi: breath expire {sprint}"
    return warnings


# -- metrics --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SprintMetrics:
    """The four breath metrics of one sprint and its alerts.

    Attributes:
        sprint: the sprint ID.
        opened_at / closed_at: as recorded (None when absent).
        loaded / referenced / released / stale / kept: counts of distinct files.
        context_load / stale_ratio / exhale_rate: ratios, None on a division by zero.
        breath_depth: loaded − released (released ∩ loaded).
        alerts: ``{"metric", "message", …}`` dicts.
    """

    sprint: str
    opened_at: datetime | None
    closed_at: datetime | None
    loaded: int
    referenced: int
    released: int
    stale: int
    kept: int
    context_load: float | None
    stale_ratio: float | None
    breath_depth: int
    exhale_rate: float | None
    alerts: tuple[dict[str, Any], ...] = ()

    @property
    def is_open(self) -> bool:
        """True before the sprint's expire."""
        return self.closed_at is None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi breath show --json` (ratios rounded to 4 places)."""

        def r(value: float | None) -> float | None:
            return None if value is None else round(value, 4)

        return {
            "sprint": self.sprint,
            "context_load": r(self.context_load),
            "stale_ratio": r(self.stale_ratio),
            "breath_depth": self.breath_depth,
            "exhale_rate": r(self.exhale_rate),
            "alerts": [dict(a) for a in self.alerts],
            "open": self.is_open,
            "opened_at": self.opened_at.isoformat() if self.opened_at else None,
            "closed_at": self.closed_at.isoformat() if self.closed_at else None,
            "loaded": self.loaded,
            "referenced": self.referenced,
            "released": self.released,
            "stale": self.stale,
            "kept": self.kept,
        }


def inhale_alerts(inhale_map: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
    """Alerts of the inhale rule: at most 2 sources per agent."""
    alerts = []
    for agent, files in inhale_map.items():
        count = len(dict.fromkeys(files))
        if count > MAX_SOURCES_PER_AGENT:
            alerts.append({
                "metric": "inhale",
                "agent": agent,
                "value": count,
                "threshold": MAX_SOURCES_PER_AGENT,
                "message": f"{agent} inhaled {count} sources (rule: at most {MAX_SOURCES_PER_AGENT} per agent)",
            })
    return alerts


def _ratio(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


def metrics(records: Iterable[BreathRecord | Mapping[str, Any]]) -> list[SprintMetrics]:
    """Compute the breath metrics of every sprint, ordered by opened_at then ID.

    Args:
        records: BreathRecords (or raw record mappings with a `sprint` key).

    Returns:
        One SprintMetrics per sprint, with its alerts (the depth trend is computed
        over the closed sprints in order).
    """
    recs = order_records(r if isinstance(r, BreathRecord) else record_from_mapping(r) for r in records)
    out: list[SprintMetrics] = []
    closed_depths: list[int] = []
    for rec in recs:
        loaded = rec.loaded
        loaded_set = set(loaded)
        referenced_set = set(rec.referenced)
        released = len(loaded_set & set(rec.released))
        stale = len(loaded_set - referenced_set)
        n_loaded = len(loaded_set)
        context_load = _ratio(n_loaded, len(referenced_set))
        stale_ratio = _ratio(stale, n_loaded)
        exhale_rate = _ratio(released, n_loaded)
        depth = n_loaded - released
        alerts = inhale_alerts(rec.inhale)
        load_max = THRESHOLDS["context_load"][1]
        stale_max = THRESHOLDS["stale_ratio"][1]
        if context_load is not None and context_load > load_max:
            alerts.append({"metric": "context_load", "value": round(context_load, 4), "threshold": load_max,
                           "message": f"context_load {context_load:.2f} > {load_max:.1f}: over-loading"})
        if stale_ratio is not None and stale_ratio > stale_max:
            alerts.append({"metric": "stale_ratio", "value": round(stale_ratio, 4), "threshold": stale_max,
                           "message": f"stale_ratio {stale_ratio:.0%} > {stale_max:.0%}: noise"})
        if rec.is_closed:
            exhale_min = THRESHOLDS["exhale_rate"][1]
            if exhale_rate is not None and exhale_rate < exhale_min:
                alerts.append({"metric": "exhale_rate", "value": round(exhale_rate, 4), "threshold": exhale_min,
                               "message": f"exhale_rate {exhale_rate:.0%} < {exhale_min:.0%}: retention"})
            closed_depths.append(depth)
            window = closed_depths[-DEPTH_TREND_SPRINTS:]
            if len(window) == DEPTH_TREND_SPRINTS and all(a < b for a, b in zip(window, window[1:], strict=False)):
                trend = " → ".join(str(d) for d in window)
                alerts.append({"metric": "breath_depth", "value": depth, "threshold": DEPTH_TREND_SPRINTS,
                               "message": f"breath_depth grew {DEPTH_TREND_SPRINTS} sprints in a row "
                                          f"({trend}): accumulation"})
        out.append(SprintMetrics(
            sprint=rec.sprint, opened_at=rec.opened_at, closed_at=rec.closed_at, loaded=n_loaded,
            referenced=len(referenced_set), released=released, stale=stale, kept=len(rec.kept),
            context_load=context_load, stale_ratio=stale_ratio, breath_depth=depth, exhale_rate=exhale_rate,
            alerts=tuple(alerts),
        ))
    return out


# -- demo -----------------------------------------------------------------------------------------
def write_demo_breath(cs: ChangeSet) -> None:
    """Stage five realistic sprints for the demo brain, timed from the demo clock.

    Depths of the four closed sprints are 1, 1, 3, 4: the last three grow (trend
    alert on the fourth); the third over-loads (context_load and stale_ratio
    alerts) and keeps too much (exhale alert); the open fifth sprint has an agent
    with three sources (inhale-rule alert).
    """
    now = cs.snapshot.now
    tz = cs.snapshot.tz
    pilot = next((c.sess_id for c in cs.snapshot.claims if c.slug == "pilote-be7"), None)

    def sprint_id(moment: datetime, slug: str) -> str:
        return f"sprint-{moment.astimezone(tz).strftime('%Y%m%d-%H%M')}-{slug}"

    # (start offset, duration, slug, inhale, referenced, released, kept)
    plan: list[tuple[timedelta, timedelta | None, str, dict[str, list[str]], list[str], list[str],
                     dict[str, str]]] = [
        (timedelta(days=-4, hours=-3), timedelta(hours=2), "wiki",
         {"scribe": ["wiki/concepts.md"], "coach": ["todo/brain.md"]},
         ["wiki/concepts.md", "todo/brain.md"], ["wiki/concepts.md"], {"todo/brain.md": "two items left for Monday"}),
        (timedelta(days=-3, hours=-2), timedelta(hours=3), "be5",
         {"tech-lead": ["brain-engine/server.py", "brain-engine/search.py"],
          "testing": ["brain-engine/tests/test_search.py"]},
         ["brain-engine/server.py", "brain-engine/search.py", "brain-engine/tests/test_search.py"],
         ["brain-engine/server.py", "brain-engine/tests/test_search.py"],
         {"brain-engine/search.py": "ranking still being tuned"}),
        (timedelta(days=-2, hours=-4), timedelta(hours=2, minutes=30), "be6",
         {"tech-lead": ["brain-engine/api/routes.py", "brain-engine/search.py"],
          "testing": ["brain-engine/tests/test_search.py", "brain-engine/api/routes.py"],
          "vps": ["deploy/vps.md"], "doc": ["wiki/concepts.md"]},
         ["brain-engine/api/routes.py", "brain-engine/search.py"],
         ["brain-engine/tests/test_search.py", "deploy/vps.md"],
         {"brain-engine/api/routes.py": "pagination not tested", "brain-engine/search.py": "ranking still open"}),
        (timedelta(days=-1, hours=-3), timedelta(hours=3), "be6b",
         {"tech-lead": ["brain-engine/api/routes.py", "brain-engine/server.py"],
          "testing": ["brain-engine/tests/test_search.py", "brain-engine/search.py"],
          "scribe": ["todo/brain.md", "wiki/concepts.md"], "doc": ["README.md"], "vps": ["deploy/vps.md"]},
         ["brain-engine/api/routes.py", "brain-engine/server.py", "brain-engine/tests/test_search.py",
          "brain-engine/search.py", "todo/brain.md", "wiki/concepts.md", "README.md"],
         ["wiki/concepts.md", "brain-engine/tests/test_search.py", "brain-engine/server.py", "README.md"],
         {"brain-engine/api/routes.py": "pagination not tested", "brain-engine/search.py": "ranking still open",
          "todo/brain.md": "sprint 12 wrap-up pending"}),
        (timedelta(hours=-2), None, "be7",
         {"tech-lead": ["brain-engine/api/routes.py", "brain-engine/search.py", "brain-engine/server.py"],
          "testing": ["brain-engine/tests/test_search.py"]},
         ["brain-engine/api/routes.py", "brain-engine/tests/test_search.py", "brain-engine/search.py"], [], {}),
    ]
    for start, duration, slug, inhaled, referenced, released, kept in plan:
        opened = now + start
        sprint = sprint_id(opened, slug)
        session = pilot if slug == "be7" else None
        for agent, files in inhaled.items():
            inhale(cs, sprint, agent, files, session=session, at=opened)
        reference(cs, sprint, referenced)
        if duration is not None:
            expire(cs, sprint, released, kept, at=opened + duration)
    cs.message = "bsi: breath demo sprints"
