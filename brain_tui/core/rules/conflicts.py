"""Conflicts: which blocking claims a new scope would meet (SPEC 5.3).

A claim blocks while open, waiting for a human, paused or stale (search
claims never block). The check runs through a `ScopeIndex` over the blocking
claims, built once per snapshot; the parent's whole chain is exempt
(delegation to a satellite is not a conflict).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from brain_tui.core.paths.path_keys import resolve_in_brain
from brain_tui.core.paths.scope import FILE, ScopeEntry
from brain_tui.core.paths.scope_index import ScopeIndex
from brain_tui.core.paths.text_safety import inert_line
from brain_tui.core.record import record
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.records.statuses import Status
from brain_tui.core.records.unreadable import holder_id, repair_command, shown_path
from brain_tui.core.rules.effective import delegating_chain, effective_status


@record
class Conflict:
    """One blocking claim a new scope would meet.

    A claim file that does not read is one too (SPEC 22, status ``corrupt``): `path` names
    the file, `reason` why it does not read.
    """

    sess_id: str
    instance: str
    scope: str
    status: str
    overlap: str
    path: str = ""
    reason: str = ""

    def as_dict(self) -> dict[str, str]:
        """JSON shape of SPEC 19 (plus ``path`` for a corrupt claim file)."""
        shape = {
            "sess_id": self.sess_id,
            "instance": self.instance,
            "scope": self.scope,
            "status": self.status,
            "overlap": self.overlap,
        }
        if self.status == CORRUPT:
            shape["path"] = self.path
        return shape

    def describe(self) -> str:
        """One line for stderr."""
        if self.status == CORRUPT:
            return (f"{shown_path(self.path)} does not read ({self.reason}) and may hold {self.scope} [{CORRUPT}, "
                    f"{self.overlap}]: repair it (`{repair_command(self.path)}`) or fix the file by hand")
        # the instance is the holder's own text (a hand-written file may hold anything): one inert line, cut short
        holder = inert_line(self.instance, 200) if self.instance else "unknown instance"
        return f"{self.sess_id} ({holder}) holds {self.scope} [{self.status}, {self.overlap}]"


#: The status of a conflict with a claim file that does not read.
CORRUPT = "corrupt"
#: Index owners for unreadable claim files are their paths behind this mark (never a session ID).
_UNREADABLE = "\0unreadable:"


def blocking_index(snapshot: BrainSnapshot) -> ScopeIndex:
    """A ScopeIndex over every blocking claim of the snapshot (search claims never block), and over what
    every claim file that does not read may hold (it fails closed, SPEC 22)."""
    index = ScopeIndex()
    for claim in snapshot.claims:
        if claim.is_blocking and claim.scope:
            index.add(claim.sess_id, claim.scope)
    held: dict[str, list[ScopeEntry]] = {}
    for bad in snapshot.unreadable_claims:  # one path may hold several (the legacy index's rows that do not read)
        held.setdefault(bad.path, []).extend(bad.holds)
    for path, holds in held.items():
        index.add(_UNREADABLE + path, holds)
    return index


def _unreadable_conflict(snapshot: BrainSnapshot, path: str, overlap: str) -> Conflict | None:
    for bad in snapshot.unreadable_claims:
        if bad.path == path:
            line = f"line {bad.line}: " if bad.line else ""
            return Conflict(holder_id(path), "", format_scope_text(bad.holds), CORRUPT, overlap, path,
                            f"{line}{bad.reason}")
    return None


def find_conflicts(
    snapshot: BrainSnapshot,
    entries: Sequence[ScopeEntry],
    *,
    parent: str | None = None,
    satellite_type: str | None = None,
    exclude: str | None = None,
    index: ScopeIndex | None = None,
) -> list[Conflict]:
    """The blocking claims a claim on `entries` would conflict with (SPEC 5.3).

    A claim file that does not read conflicts as an open claim would, whatever the tree: it never counts as an
    ancestor (delegation needs a readable tree); only `exclude`'s own file (the claim re-checked) is not held
    against it. `parent`'s chain is exempt up to its first ancestor not effectively open (`delegating_chain`);
    ``search`` never conflicts; `index` defaults to the snapshot's own `blocking_index`.
    """
    if satellite_type == "search":
        return []
    if index is None:  # not `or`: an empty index is falsy
        # Memoised on the (immutable) snapshot like a cached_property, so repeated checks never rebuild it.
        index = snapshot.__dict__.get("_blocking_index")
        if index is None:
            index = snapshot.__dict__["_blocking_index"] = blocking_index(snapshot)
    exempt: set[str] = set()
    if exclude:
        exempt.add(exclude)
        exempt.update(c.sess_id for c in snapshot.descendants(exclude))
    if parent:
        exempt.update(delegating_chain(snapshot, parent))
    conflicts = []
    for owner, overlap in index.conflicts_with(entries):
        if owner.startswith(_UNREADABLE):
            found = _unreadable_conflict(snapshot, owner[len(_UNREADABLE):], overlap)
            if found is not None and found.sess_id != exclude:
                conflicts.append(found)
            continue
        if owner in exempt:
            continue
        claim = snapshot.claim(owner)
        if claim is None:
            continue
        # the status every rule decides on: an expired claim is stale before the watchdog writes it down
        status = str(effective_status(claim, snapshot.now))
        conflicts.append(Conflict(owner, claim.instance, claim.scope_text or "—", status, overlap))
    return conflicts


def as_judged(snapshot: BrainSnapshot, parent: str | None, met: Callable[[BrainSnapshot], list[Conflict]],
              lives_at: Callable[[datetime], bool]) -> list[Conflict]:
    """The conflicts `met` finds for a claim under `parent`, its delegation judged as the acting process judges it.

    The one rule of the open's last door (`last_door.refuse_new_conflicts`) and of the queries that say what an
    open would meet (`facade_check`): when `met` finds none on `snapshot` and an agent acts at a clock behind the
    machine's (`authority.agents_time`), it asks again at the machine's clock if the claim is live then
    (`lives_at`): an ancestor stale by then delegates nothing, and a child ending before it carries nothing past
    it. A human's process keeps its given clock (tests, demos, snapshots).
    """
    conflicts = met(snapshot)
    if conflicts or not parent:
        return conflicts
    from brain_tui.core.rules.authority import agents_time

    at = agents_time(snapshot.now)
    if at is None or at <= snapshot.now or not lives_at(at):
        return conflicts
    from brain_tui.core.record import replace

    return met(replace(snapshot, now=at))


def unreadable_holders(snapshot: BrainSnapshot, file: str, exclude: str | None = None) -> list[Conflict]:
    """The claim files that do not read and may hold `file` (normalised, keyed through the brain's links),
    which another claim must neither write nor lock (SPEC 22); `exclude`'s own file is not held against it.
    """
    if not snapshot.unreadable_claims:
        return []
    target = resolve_in_brain(snapshot.root, file)
    entry = ScopeEntry(FILE, file, "", target if target and target != file else "")
    return [c for c in find_conflicts(snapshot, (entry,), exclude=exclude) if c.status == CORRUPT]


def format_scope_text(entries: Sequence[ScopeEntry]) -> str:
    """Scope entries as one display string."""
    return " ".join(str(e) for e in entries)


def chain_complete(snapshot: BrainSnapshot, sess_id: str) -> bool:
    """True when `sess_id` and every ancestor it names are in `snapshot` (a cycle ends the chain)."""
    current = snapshot.claim(sess_id)
    seen = {sess_id}
    while current is not None:
        if not current.parent or current.parent in seen:
            return True
        seen.add(current.parent)
        current = snapshot.claim(current.parent)
    return False


def chain_hidden(snapshot: BrainSnapshot, sess_id: str) -> bool:
    """True when what lies above `sess_id` is unknown: its parent chain stops at an ID the brain has no claim for
    while a claim file does not read (it may be that ancestor, SPEC 22: fails closed). A chain that stops at an ID
    no file can be (none fails to read) hides nothing: no claim lies past that link."""
    return not chain_complete(snapshot, sess_id) and bool(snapshot.unreadable_claims)


def ask_holder(holder: str, status: str, sender: str | None = None) -> str:
    """What frees a file or scope `holder` holds, in a refusal's words: a stale claim's session no longer works, so
    only a human's release frees it; any other holder is asked with BLOCKED_ON (`sender`: the asking claim)."""
    if status == Status.STALE:
        return (f"{holder} is stale: only a human frees it (`bsi claim release {holder} --reason …` in the pilot's "
                "own terminal, or `R` in the cockpit)")
    origin = f"--from {sender} " if sender else ""
    return f"ask its holder (`bsi signal send {origin}--to {holder} --type BLOCKED_ON …`)"
