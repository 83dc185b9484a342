"""An agent's write changes only its own claims, read from what the write would leave on disk (SPEC 21.4).

`Brain`'s verbs refuse an agent acting for another session's claim before they stage anything
(`facade.mutate_for`, `claims.open_claim`'s `require_delegation`). The library has lower doors too: the rule
functions over a `ChangeSet` and `write_path.apply`. This is the last one every write passes, whatever built
the write: in an agent's process each claim file the write changes or deletes is one the agent owns
(`authority.owns`), and a claim the write gives a parent (a new child, a claim moved under another) is under a
claim it may delegate from (`authority.require_delegation`) -- the same rules the verbs apply, to the actor they
decided on (`writing_as`). Two moves the product makes on another session's claim from an agent's process pass:
the watchdog's stale mark of a claim it would mark (`watchdog.marks`) that changes nothing else, and the derived
rules' moves (`ChangeSet.derived`, checked as `human_lifts.derived_move` checks them: a claim lost at sync, a
skewed stale mark revived).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up asks `acting` (issue 18)
if TYPE_CHECKING:
    import os
    from datetime import datetime
    from typing import Any

    from brain_tui.core.records.model import BrainSnapshot, Claim
    from brain_tui.core.rules.authority import Actor

#: The actor the verb running in this thread decided on (`writing_as`); None: the process's own.
_WRITER: ContextVar[Actor | None] = ContextVar("bsi_writer", default=None)

#: The fields a watchdog's stale mark sets (and the history event it appends): nothing else of the claim changes.
_STALE_MARK = frozenset({"status", "stale_since", "stale_from", "stale_reason", "gate_history"})


@contextmanager
def writing_as(actor: Actor | None) -> Iterator[None]:
    """The writes made inside act as `actor` (the one a verb was given: an MCP server's) at the last door."""
    token = _WRITER.set(actor)
    try:
        yield
    finally:
        _WRITER.reset(token)


def acting() -> Actor | None:
    """The actor the verb running in this thread decided on (`writing_as`); None: the process's own."""
    return _WRITER.get()


def writer(root: str | os.PathLike[str]) -> Actor:
    """Who a write acts as at the last door: `authority.acting_in` of the actor the verb gave (`writing_as`)."""
    from brain_tui.core.rules.authority import acting_in

    return acting_in(root, _WRITER.get())


def refuse_not_owned(actor: Actor, snapshot: BrainSnapshot, rendered: Mapping[str, str | None],
                     derived: Collection[str], at: datetime) -> None:
    """Refuse a write of `actor`, an agent, that changes a claim it does not own or delegates under one (SPEC 21.4).

    `rendered`: the files the write leaves (brain-relative path → text; None = deleted). `at`: when the derived
    rules' moves are judged (as `human_lifts` judges them); the watchdog's mark is judged at `snapshot`'s time, never
    past the machine's clock (a clock set ahead would expire another's claim).

    Raises:
        NotYours: a claim changed is another session's, or a parent given is one the agent holds neither it nor an
            ancestor of (exit 77), naming the holder; nothing is written.
    """
    if not actor.is_agent:
        return
    from brain_tui.core.paths.layout import CLAIMS_DIR
    from brain_tui.core.rules.authority import owns, require_delegation, require_owner

    by_path = {claim.path: claim for claim in snapshot.claims}
    for rel, text in rendered.items():
        if not rel.startswith(f"{CLAIMS_DIR}/") or not rel.endswith((".yml", ".yaml")):
            continue
        data = _mapping(text)
        after = _claim(snapshot, rel, data)
        old = by_path.get(rel) or (snapshot.claim(after.sess_id) if after is not None else None)
        if old is not None and not owns(actor, old, snapshot) and data != old.data \
                and not _products_move(snapshot, old, text, data, derived, at):
            _refuse_early_mark(snapshot, old, data)
            require_owner(actor, old, snapshot, "change")
        parent = after.parent if after is not None else None
        if parent and parent != (old.parent if old is not None else None) \
                and (up := snapshot.claim(parent)) is not None:
            require_delegation(actor, up, snapshot)


def _products_move(snapshot: BrainSnapshot, old: Claim, text: str | None, data: Mapping[str, Any] | None,
                   derived: Collection[str], at: datetime) -> bool:
    """True when the write's change to `old` (another session's claim) is one the product makes from any process."""
    if text is None or data is None:
        return False
    if old.sess_id in derived:
        from brain_tui.core.rules.human_lifts import derived_move, status_of

        if derived_move(snapshot, old, status_of(text, old.path), at):
            return True
    return _watchdog_mark(snapshot, old, data)


def _watchdog_mark(snapshot: BrainSnapshot, old: Claim, data: Mapping[str, Any]) -> bool:
    """True when `data` is `old` as the watchdog marks it: stale, its history only appended to, nothing else changed,
    and `old` a claim the watchdog marks at `snapshot`'s time, never past the machine's clock: a claim is expired at
    its deadline (SPEC 6.3), so an agent's clock ahead, even within SPEC 3's skew limit, never ends another's early."""
    from brain_tui.core.clock import system_clock
    from brain_tui.core.record import replace
    from brain_tui.core.records.statuses import Status
    from brain_tui.core.rules.watchdog import marks

    if data.get("status") != Status.STALE.value:
        return False
    if {k: v for k, v in data.items() if k not in _STALE_MARK} != \
            {k: v for k, v in old.data.items() if k not in _STALE_MARK}:
        return False
    history, before = data.get("gate_history") or [], old.data.get("gate_history") or []
    if not isinstance(history, list) or not isinstance(before, list) or history[:len(before)] != before:
        return False
    latest = system_clock()
    judged = snapshot if snapshot.now <= latest else replace(snapshot, now=latest)
    return marks(old, judged) is not None


def _refuse_early_mark(snapshot: BrainSnapshot, old: Claim, data: Mapping[str, Any] | None) -> None:
    """Say why a STALE mark of another's claim is refused when only the agent's clock ahead made it due."""
    from brain_tui.core.clock import system_clock
    from brain_tui.core.errors import NotYours
    from brain_tui.core.records.statuses import Status
    from brain_tui.core.rules.skew import deadline
    from brain_tui.core.rules.watchdog import marks

    end = deadline(old)
    if data is None or data.get("status") != Status.STALE.value or end is None or marks(old, snapshot) is None \
            or end <= system_clock():
        return
    raise NotYours(f"cannot mark {old.sess_id} stale: it is live until {end.isoformat()} by this machine's clock; "
                   "an agent's clock ahead of the machine's (--now, $BRAIN_NOW) ends no other session's claim "
                   "early; nothing was written")


def _mapping(text: str | None) -> Mapping[str, Any] | None:
    """The mapping a claim text holds, or None (deleted, or no mapping that reads)."""
    if text is None:
        return None
    from brain_tui.core.records.yamlio import CorruptYaml, safe_load_text

    try:
        data = safe_load_text(text)
    except (CorruptYaml, ValueError):
        return None
    return data if isinstance(data, Mapping) else None


def _claim(snapshot: BrainSnapshot, rel: str, data: Mapping[str, Any] | None) -> Claim | None:
    """The claim `data` reads as at `rel`, or None (no claim that reads)."""
    if data is None:
        return None
    from brain_tui.core.records.formats import claim_from_mapping
    from brain_tui.core.records.model import Claim as ClaimRecord

    try:
        claim = claim_from_mapping(data, rel, snapshot.root, snapshot.tz, scope_parser=lambda _: ())
    except ValueError:
        return None
    return claim if isinstance(claim, ClaimRecord) else None
