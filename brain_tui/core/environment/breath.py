"""Breath records of the context-broker (SPEC 17): the writes.

Writes are staged in a ChangeSet (`inhale`, `reference`, `expire`); existing records are edited round-trip so
comments and unknown keys survive. Records are read in core/records/breath_records.py; metrics and alerts are computed
in `breath_metrics`.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from brain_tui.core.environment.breath_metrics import SprintMetrics, inhale_alerts
from brain_tui.core.errors import InvalidData, NotFound
from brain_tui.core.ids import valid_session_id
from brain_tui.core.paths.scope_paths import normalize_path
from brain_tui.core.paths.text_safety import CONTROL_RE
from brain_tui.core.records.breath_records import (
    file_list,
    record_from_mapping,
    record_path,
    str_list,
    validate_sprint_id,
)
from brain_tui.core.records.changes import ChangeSet, flow_map
from brain_tui.core.records.yamlio import CorruptYaml, load_round_trip, safe_load_file

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:  # ruamel is the write path's: the alerts a read shows never load it
    from typing import Any

    from ruamel.yaml.comments import CommentedMap, CommentedSeq

#: Records already being edited by a ChangeSet (so several calls in one change compose).
_STAGED: weakref.WeakKeyDictionary[ChangeSet, dict[str, CommentedMap]] = weakref.WeakKeyDictionary()


def breath_files(files: Iterable[str]) -> list[str]:
    """The files an inhale, reference or expire records: normalised brain paths, each once, in the order given.
    Raises InvalidData for a bad path or none."""
    out: list[str] = []
    for raw in files:
        path = normalize_path(str(raw))
        if path not in out:
            out.append(path)
    if not out:
        raise InvalidData("no files given")
    return out


def release_map(files: Sequence[str], kept: Mapping[str, str] | None = None) -> tuple[list[str], dict[str, str]]:
    """What an expire records: (released files, kept file → reason), paths normalised and distinct, reasons on one
    line. Raises InvalidData for a bad path, an empty reason, a file both released and kept, or nothing at all."""
    released = breath_files(files) if files else []
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
    return released, keep


def _seq(items: Iterable[str]) -> CommentedSeq:
    from ruamel.yaml.comments import CommentedSeq

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
            record_from_mapping(safe_load_file(target), sprint)  # a record that does not read is not edited
            doc = load_round_trip(target.read_text(encoding="utf-8"))
        except CorruptYaml as exc:
            raise InvalidData(f"{rel} line {exc.line}: {exc.reason}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidData(f"{rel}: {exc}") from None
        except ValueError as exc:
            raise InvalidData(f"{rel}: {exc}; fix or remove the file by hand") from None
    elif create:
        from ruamel.yaml.comments import CommentedMap

        doc = CommentedMap()
        doc["sprint"] = sprint
    else:
        return None
    staged[rel] = doc
    cs.put(rel, doc)
    return doc


def _list_field(doc: CommentedMap, key: str) -> CommentedSeq:
    from ruamel.yaml.comments import CommentedSeq

    value = doc.get(key)
    if isinstance(value, CommentedSeq):
        return value
    seq = _seq(str_list(value) if isinstance(value, (list, str)) else ())
    doc[key] = seq
    return seq


def _map_field(doc: CommentedMap, key: str) -> CommentedMap:
    from ruamel.yaml.comments import CommentedMap

    value = doc.get(key)
    if isinstance(value, CommentedMap):
        return value
    mapping = flow_map(value) if isinstance(value, Mapping) else flow_map({})
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
    """Stage the source map of one agent: the files (relative to the brain or project) loaded for it, in the record
    of `sprint` (created with ``opened_at`` = `at`, default the brain's now, when new; `session` is recorded when not
    yet set).

    Gives the inhale-rule alerts for this agent (more than 2 sources); empty when within the rule. Raises InvalidData
    for a bad sprint ID, agent name, session ID or path, or a corrupt existing record.
    """
    validate_sprint_id(sprint)
    if not isinstance(agent, str) or not 0 < len(agent) <= 80 or CONTROL_RE.search(agent) or not agent.strip():
        raise InvalidData(f"invalid agent name {agent!r}")
    agent = agent.strip()
    if session is not None and not valid_session_id(session):
        raise InvalidData(f"invalid session ID {session[:80]!r}: expected sess-…")
    paths = breath_files(files)
    doc = _record_doc(cs, sprint, create=True)
    assert doc is not None
    if session and not doc.get("session"):
        _set_after(doc, "session", session, "sprint")
    if not doc.get("opened_at"):
        _set_after(doc, "opened_at", cs.ts(at), "session", "sprint")
    inhaled = _map_field(doc, "inhale")
    current = inhaled.get(agent)
    merged = list(file_list(current)) if current is not None else []  # as the reader counts them
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
    """Stage files the sprint actually referenced; gives the files newly added. Raises InvalidData for a bad sprint ID
    or path, NotFound when the sprint has no record."""
    validate_sprint_id(sprint)
    paths = breath_files(files)
    doc = _require(cs, sprint)
    seq = _list_field(doc, "referenced")
    added = [p for p in paths if p not in seq]
    seq.extend(added)
    cs.message = f"bsi: breath reference {sprint}"
    return added


def expire(cs: ChangeSet, sprint: str, files: Sequence[str], kept: Mapping[str, str] | None = None,
           *, at: datetime | None = None) -> list[str]:
    """Stage the release map: release `files`, keep each file of `kept` with its reason; set closed_at. Gives
    warnings (a released or kept file that was never inhaled).

    Raises InvalidData for a bad sprint ID or path, an empty reason, a file both released and kept; NotFound when the
    sprint has no record.
    """
    validate_sprint_id(sprint)
    released, keep = release_map(files, kept)
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


def write_demo_breath(cs: ChangeSet) -> None:
    """Stage five realistic sprints for the demo brain, timed from the demo clock.

    Depths of the four closed sprints are 1, 1, 3, 4: the last three grow (trend alert on the fourth); the third
    over-loads (context_load and stale_ratio alerts) and keeps too much (exhale alert); the open fifth sprint has an
    agent with three sources (inhale-rule alert).
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


def settled_alerts(sprint: SprintMetrics) -> tuple[dict[str, Any], ...]:
    """The alerts a sprint has for good: the inhale rule at once, the ratios once the sprint is expired.

    While a sprint is open nothing has been referenced yet, so every ratio would alarm; the breath pane shows them as
    they move, the pilot and the attention queue hear of them at the end.
    """
    if not sprint.is_open:
        return sprint.alerts
    return tuple(a for a in sprint.alerts if a.get("metric") == "inhale")


def tell_pilot(cs: ChangeSet, sprint: str) -> list[str]:
    """Stage an INFO signal to the pilot for each alert the staged change made new on `sprint` (seed 003); gives the
    IDs of the signals staged.

    The pilot is the root of the tree of the sprint's session; a sprint whose session is not a claim, or is its own
    root, sends nothing (its alerts still reach the attention queue).
    """
    from brain_tui.core.environment.breath_metrics import metrics

    doc = _STAGED.get(cs, {}).get(record_path(sprint))
    if doc is None:
        return []
    record = record_from_mapping(doc, sprint)
    claim = cs.snapshot.claim(record.session) if record.session else None
    if claim is None:
        return []
    pilot = cs.snapshot.resolve_destination(claim, "pilote")
    if pilot == claim.sess_id:
        return []
    others = [r for r in cs.snapshot.breath if r.sprint != sprint]

    def alerts_of(records: list[Any]) -> dict[tuple[str, str], str]:
        found = next((m for m in metrics(records) if m.sprint == sprint), None)
        return {(str(a.get("metric")), str(a.get("agent", ""))): str(a.get("message", ""))
                for a in (settled_alerts(found) if found else ())}

    before = alerts_of([*others, *(r for r in cs.snapshot.breath if r.sprint == sprint)])
    after = alerts_of([*others, record])
    sent = [cs.add_signal(claim.sess_id, pilot, "INFO", f"breath alert {sprint}: {message}", "")
            for key, message in after.items() if key not in before]
    return [sig for sig in sent if sig]
