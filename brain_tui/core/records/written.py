"""The snapshots of one write: what it decides on, and the brain after its files are written, in memory.

A write reads the brain once (`decision_snapshot`): the claims that can block plus those that ended in the last 30
days, which is all that conflicts and BRAIN-INDEX.md need (SPEC 8: the history table looks 30 days back). The closed
history before that is never decoded. Two things send a write to the whole brain instead, so every rule stays exact:

- a live claim whose parent chain passes through a claim the partial read skipped (a delegation or a
  cascade would walk through it): the whole brain is read before deciding;
- an action that asks for a claim the partial read skipped (closing an old claim again, a parent closed
  long ago, a new ID whose file exists): `PartialSnapshot.misses` records the ask and the action is
  decided again on the whole brain (`core.write_path`).

`after_write` applies the texts a ChangeSet rendered to the snapshot it was decided on, parsed exactly
as the store parses files, so BRAIN-INDEX.md is rendered without reading the brain a second time.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain_tui.core.paths.layout import CLAIMS_DIR, SIGNALS_DIR
from brain_tui.core.record import field, field_names, record
from brain_tui.core.records.clock_skew import skew_flagged
from brain_tui.core.records.formats import YAML_SUFFIXES, claim_from_mapping, parse_claim_bytes, signal_from_mapping
from brain_tui.core.records.index import HISTORY_WINDOW
from brain_tui.core.records.model import BLOCKING_STATUSES, BrainSnapshot, Claim, Signal
from brain_tui.core.records.yamlio import CorruptYaml, safe_load_bytes

if TYPE_CHECKING:
    from brain_tui.core.records.store import BrainStore


@record
class PartialSnapshot(BrainSnapshot):
    """A snapshot without the claims that ended before `closed_since`; `misses` records the session IDs `claim()`
    was asked for and did not hold (the action is then decided again on the whole brain)."""

    closed_since: datetime | None = None
    misses: set[str] = field(default_factory=set, compare=False, repr=False)

    def claim(self, sess_id: str) -> Claim | None:
        """The claim with this ID, or None (the ask is recorded in `misses`)."""
        found = super().claim(sess_id)
        if found is None:
            self.misses.add(sess_id)
        return found


def _chains_complete(snapshot: BrainSnapshot) -> bool:
    """True when every live claim's parent chain is in `snapshot` (up to its root or a cycle)."""
    held = {c.sess_id: c for c in snapshot.claims}
    for claim in snapshot.claims:
        if claim.is_terminal:
            continue
        seen = {claim.sess_id}
        current: Claim | None = claim
        while current is not None and current.parent and current.parent not in seen:
            seen.add(current.parent)
            current = held.get(current.parent)
            if current is None:
                return False
    return True


def decision_snapshot(store: BrainStore, now: datetime) -> BrainSnapshot:
    """What a write decides on: a `PartialSnapshot` of the live claims and those ended in the 30-day window; the
    whole brain (a plain snapshot) when a live claim's parent chain leaves the partial read."""
    since = now - HISTORY_WINDOW
    partial = index_snapshot(store, now)
    if not _chains_complete(partial):
        return store.snapshot(now)
    fields = {name: getattr(partial, name) for name in field_names(BrainSnapshot)}
    return PartialSnapshot(**fields, closed_since=since)


def index_snapshot(store: BrainStore, now: datetime) -> BrainSnapshot:
    """What BRAIN-INDEX.md shows, read: the claims that can block and those ended in the 30-day window."""
    return store.snapshot(now, only_statuses=BLOCKING_STATUSES, closed_since=now - HISTORY_WINDOW)


def needs_whole_brain(snapshot: BrainSnapshot, rendered: Iterable[str]) -> bool:
    """True when an action decided on a partial snapshot must be decided again on the whole brain.

    It asked for a claim or a signal the partial read skipped, or it creates a claim or signal file
    that already exists (an ID the skipped history, or an archived signal, holds).
    """
    if not isinstance(snapshot, PartialSnapshot):
        return False
    if snapshot.misses:
        return True
    root = snapshot.root
    known = {c.path for c in snapshot.claims} | {s.path for s in snapshot.signals}
    for rel in rendered:
        folder, _, name = rel.partition("/")
        if folder not in (CLAIMS_DIR, SIGNALS_DIR) or rel in known or not name.endswith(YAML_SUFFIXES):
            continue
        stem = name.rsplit(".", 1)[0]
        if any((Path(root) / folder / f"{stem}{suffix}").exists() for suffix in YAML_SUFFIXES):
            return True
    return False


def _read(text: str, parse: Any) -> Any:
    try:
        return parse(text.encode("utf-8"))
    except (CorruptYaml, UnicodeEncodeError):
        return _UNREADABLE


_UNREADABLE = object()
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def after_write(snapshot: BrainSnapshot, rendered: dict[str, str | None]) -> BrainSnapshot | None:
    """`snapshot` with the claim and signal files in `rendered` (None = deleted) as the store would read them;
    None when a written record does not read as one (the caller reads the brain again)."""
    from brain_tui.core.paths.scope import parse_scope

    root = snapshot.root
    claims: dict[str, Claim] = {c.path: c for c in snapshot.claims}
    signals: dict[str, Signal] = {s.path: s for s in snapshot.signals}
    for rel, text in rendered.items():
        folder, _, name = rel.partition("/")
        if folder not in (CLAIMS_DIR, SIGNALS_DIR) or "/" in name or not name.endswith(YAML_SUFFIXES):
            continue
        table: dict[str, Any] = claims if folder == CLAIMS_DIR else signals
        if text is None:
            table.pop(rel, None)
            continue
        if folder == CLAIMS_DIR:
            data = _read(text, parse_claim_bytes)
            item: Any = None if data is _UNREADABLE else claim_from_mapping(
                data, rel, root, snapshot.tz, snapshot.default_ttl,
                lambda value: parse_scope(value, root, typed=False))
            wanted: type = Claim
        else:
            data = _read(text, safe_load_bytes)
            item = None if data is _UNREADABLE else signal_from_mapping(data, rel, snapshot.tz)
            wanted = Signal
        if not isinstance(item, wanted):
            return None
        if isinstance(item, Claim):
            item = skew_flagged(item, snapshot.now)  # as the store marks it
        table[rel] = item
    if len({c.sess_id for c in claims.values()}) != len(claims):
        return None  # two files name one ID: the store's reading decides which is the claim
    fields = {name: getattr(snapshot, name) for name in field_names(BrainSnapshot)}
    fields.update(claims=tuple(sorted(claims.values(), key=lambda c: (c.opened_at or _EPOCH, c.sess_id))),
                  signals=tuple(sorted(signals.values(), key=lambda s: (s.created_at or _EPOCH, s.sig_id))))
    return BrainSnapshot(**fields)


