"""In force is what git holds (SPEC 22): a claim HEAD holds live keeps holding when the work tree lets it go.

A claim file that HEAD holds in a live status (the closed set's `others`: HEAD's files not terminal) and that the
work tree has deleted, or rewritten in a terminal status, without a commit, has not let anything go: the release is
not in force until committed. A live read (the conflict check, the hook, preflight, the index) then holds HEAD's
version of the claim in place of the work tree's. The other way is already fail closed: an uncommitted new or
reopened claim blocks from the work tree (the union of the two states blocks).

An uncommitted edit of a live claim loosens nothing either: a live claim whose file's bytes are not HEAD's live blob
is read as the stricter of the two copies (`strictest_with_head`). It holds the union of the two scopes (HEAD's
entries are added to the work tree's, shown in its scope text too, and the claim is flagged ``scope-in-head``); a
lift of a gate, a pause or a stale mark (a status nearer `open` than HEAD's) is HEAD's copy until committed (flagged
``status-in-head``; a write on it edits that copy); an expiry or opening time later than HEAD's (a renew) is HEAD's
until committed; so is a circuit breaker the work tree resets (`circuit:` no longer tripped, or fewer failures).
A tightening (a wider scope, a pause, a gate) is in force at once. Either side alone loosens
nothing: the work tree's claim files are fenced from the agents, HEAD is not (git's plumbing in an agent's shell can
make a commit), so a lift needs both. So does an end: a commit that ends a claim the work tree still holds live (made
in git alone) leaves it out of the closed set (`work_tree_copy`), and it reads as stale (flagged ``ended-in-head``),
blocking its scope until a human releases it or its owner closes it. A live claim moved to another file name holds
HEAD's scope of its old file too. The bytes of the live files are hashed as git hashes a blob (no git process);
HEAD's copies are read only for the files that differ.

A read of every file takes HEAD's live files from the stored closed set when it is HEAD's commit's,
else from the set brought up to date (`current_set`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from datetime import datetime, timedelta, tzinfo
from pathlib import Path

from brain_tui.core.paths.layout import CLAIMS_DIR
from brain_tui.core.paths.scope import ScopeEntry
from brain_tui.core.record import replace
from brain_tui.core.records.closed_set import ClosedSet, closed_set, head_commit, load, read_blobs
from brain_tui.core.records.formats import claim_from_mapping, parse_claim_bytes
from brain_tui.core.records.git_head import blob_id
from brain_tui.core.records.model import Claim
from brain_tui.core.records.statuses import TERMINAL_STATUSES, Status
from brain_tui.core.records.yamlio import MAX_FILE_BYTES, CorruptYaml, read_capped

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ENDED_IN_HEAD", "ENDED_REASON", "IN_HEAD", "SCOPE_IN_HEAD", "STATUS_IN_HEAD", "breaker_rank", "current_set",
           "held_in_head",
           "hold_rank", "holds_all_of", "replace_held", "scanned_statuses", "strictest_with_head", "terminal_in_head"]

#: The flag of a claim read from HEAD's copy, its work-tree file deleted or ended without a commit (a write on
#: it edits that copy: `ChangeSet.claim_doc`).
IN_HEAD = "in-head"
#: The flag of a live claim whose scope is the union of the work tree's and HEAD's (an uncommitted scope edit).
SCOPE_IN_HEAD = "scope-in-head"
#: The flag of a live claim read as HEAD's copy: the work tree lifts its gate, pause or stale mark without a commit
#: (a write on it edits that copy: `ChangeSet.claim_doc`).
STATUS_IN_HEAD = "status-in-head"
#: The flag of a live claim a commit ended while the work tree still holds it live (a close made in git alone, as
#: an agent's shell could make one): it reads as stale, blocking its scope until a human releases it or its owner
#: closes it (`work_tree_copy.live_in_work_tree` keeps such a file out of the closed set).
ENDED_IN_HEAD = "ended-in-head"
ENDED_REASON = "ended by a commit the work tree does not hold (made in git alone)"
#: How far each live status holds its claim's session back, `open` the least: a move towards `open` is a lift.
_HOLD_RANK: dict[str, int] = {Status.OPEN: 0, Status.WAITING_HUMAN: 1, Status.PAUSED: 2, Status.STALE: 3}


def held_in_head(root: Path, closed: ClosedSet, statuses: dict[str, str | None], tz: tzinfo,
                 default_ttl: timedelta, scope: Callable[[Any], tuple[ScopeEntry, ...]]) -> list[Claim]:
    """HEAD's version of each live claim of HEAD (`closed.others`) that the work tree deleted or ended without a commit.

    `statuses` maps every claim file the read scanned (``claims/<name>``) to the status the work tree gives it
    (None: unknown, not a claim, or unreadable); `scope` is the store's scope parser. None are returned when git
    does not answer: the work tree stands."""
    wanted = {name: oid for name, oid in closed.others.items() if _let_go(f"{CLAIMS_DIR}/{name}", statuses)}
    if not wanted:
        return []
    blobs = read_blobs(root, sorted(set(wanted.values())))
    if blobs is None:
        return []
    # HEAD's copy that does not read, or is not live: the work tree's state stands
    return [replace(claim, flags=(*claim.flags, IN_HEAD)) for name, oid in sorted(wanted.items())
            if (claim := _head_claim(blobs[oid], f"{CLAIMS_DIR}/{name}", root, tz, default_ttl, scope)) is not None]


def scanned_statuses(scanned: Iterable[str],
                     found: Iterable[tuple[str, Any, str | None, Any]]) -> dict[str, str | None]:
    """Every scanned claim file -> the status the store found in it (a claim, or a ``(sess_id, status)`` hint)."""
    statuses: dict[str, str | None] = dict.fromkeys(scanned)
    for rel, _st, _sess_id, item in found:
        if isinstance(item, Claim):
            statuses[rel] = item.status
        elif isinstance(item, tuple) and rel in statuses:
            statuses[rel] = str(item[1])
    return statuses


def current_set(root: Path, tz: tzinfo, *, persist: bool = True) -> ClosedSet | None:
    """The closed set of HEAD, for a read of every file: the stored one when it is HEAD's commit's (no git
    process), else brought up to date (`closed_set.closed_set`: a git catch-up, or a rebuild when none is
    stored); None outside git or when git does not answer. An older set is never used as it is: it could miss
    a claim a later commit opened."""
    stored = load(root)
    commit = head_commit(root) if stored is not None and stored.commit else None
    if stored is not None and commit is not None and stored.commit == commit:
        return stored
    return closed_set(root, tz, persist=persist)


def strictest_with_head(root: Path, closed: ClosedSet, claims: list[Claim], tz: tzinfo, default_ttl: timedelta,
                        scope: Callable[[Any], tuple[ScopeEntry, ...]]) -> list[Claim]:
    """`claims` with each live claim whose file is not HEAD's blob (`closed.others`) read as the stricter copy.

    The union of both scopes, HEAD's copy when the work tree's lifts its status, the earlier of the two
    expiries and opening times; stale when HEAD's copy is terminal (`_strictest`). The same list when none is
    edited; the work tree stands when git does not answer or HEAD's copy does not read as a live claim."""
    prefix = f"{CLAIMS_DIR}/"
    edited: dict[str, str] = {}
    for claim in claims:
        name = claim.path[len(prefix):] if claim.path.startswith(prefix) else ""
        oid = closed.others.get(name) if name and claim.status not in TERMINAL_STATUSES else None
        if oid is None:
            continue
        try:
            data = read_capped(root / claim.path)
        except OSError:
            continue  # gone since it was read: the next read sees it deleted (`held_in_head`)
        if data is None or len(data) > MAX_FILE_BYTES or blob_id(data, oid) != oid:
            edited[claim.path] = oid
    if not edited:
        return claims
    blobs = read_blobs(root, sorted(set(edited.values())))
    if blobs is None:
        return claims
    return [_strictest(claim, _head_claim(blobs[oid], claim.path, root, tz, default_ttl, scope, terminal=None))
            if (oid := edited.get(claim.path)) is not None else claim for claim in claims]


def terminal_in_head(root: Path, closed: ClosedSet, claims: list[Claim], tz: tzinfo, default_ttl: timedelta,
                     scope: Callable[[Any], tuple[ScopeEntry, ...]]) -> list[Claim]:
    """`claims` with HEAD's terminal copy in place of each live claim whose file HEAD holds terminal.

    A terminal status has no way out (SPEC 6.3) and a reopen is in force only as committed, which no bsi
    write makes: a file the work tree reopened (a hand edit, an old version checked out) reads as HEAD's.
    A live read never looks at those files (the closed set vouches for them); a read of every file, and a
    closed claim read by name (`finished.closed_claim`), call this. The work tree stands when git does not answer."""
    prefix = f"{CLAIMS_DIR}/"
    reopened = [c for c in claims if not c.is_terminal and c.path.startswith(prefix)
                and closed.has(c.path[len(prefix):])]
    if not reopened:
        return claims
    rows = {(fields := line.rstrip("\n").split("\t"))[5]: fields[3] for line in closed.lines()}
    wanted = {c.path: rows[c.path[len(prefix):]] for c in reopened if c.path[len(prefix):] in rows}
    blobs = read_blobs(root, sorted(set(wanted.values())))
    if blobs is None:
        return claims
    kept: list[Claim] = []
    for claim in claims:
        oid = wanted.get(claim.path)
        head = _head_claim(blobs[oid], claim.path, root, tz, default_ttl, scope, terminal=True) \
            if oid is not None else None
        kept.append(head if head is not None else claim)
    return kept


def _head_claim(data: bytes, rel: str, root: Path, tz: tzinfo, default_ttl: timedelta,
                scope: Callable[[Any], tuple[ScopeEntry, ...]], *, terminal: bool | None = False) -> Claim | None:
    """HEAD's copy of a claim file when it reads as a live claim (a terminal one with `terminal`, either with
    None), else None."""
    try:
        parsed = parse_claim_bytes(data)
    except CorruptYaml:
        return None
    claim = claim_from_mapping(parsed, rel, root, tz, default_ttl, scope)
    return claim if isinstance(claim, Claim) and terminal in (None, claim.is_terminal) else None


def _let_go(rel: str, statuses: dict[str, str | None]) -> bool:
    """True when the work tree deleted `rel` or gives it a terminal status."""
    return rel not in statuses or statuses[rel] in TERMINAL_STATUSES


def replace_held(claims: Iterable[Claim], held: Collection[Claim],
                 only_statuses: Collection[str] | None) -> list[Claim]:
    """`claims` with the work tree's versions of `held`'s files dropped and `held` added (as the read wants)."""
    paths = {c.path for c in held}
    kept = [c for c in claims if c.path not in paths]
    # moved to another file in the work tree: that copy stands, holding HEAD's scope too
    moved = {c.sess_id: c for c in held}
    kept = [_widened(c, moved[c.sess_id]) if c.sess_id in moved and not c.is_terminal else c for c in kept]
    present = {c.sess_id for c in kept if not c.is_terminal}
    kept.extend(c for c in held if c.sess_id not in present and (only_statuses is None or c.status in only_statuses))
    return kept


def _widened(claim: Claim, head: Claim | None) -> Claim:
    """`claim` holding `head`'s scope entries too (flagged `SCOPE_IN_HEAD` when that adds any)."""
    extra = tuple(entry for entry in head.scope if entry not in claim.scope) if head is not None else ()
    if not extra:
        return claim
    return replace(claim, scope=claim.scope + extra, flags=(*claim.flags, SCOPE_IN_HEAD),
                   scope_text=" ".join([claim.scope_text, *(str(entry) for entry in extra)]).strip())


def _strictest(claim: Claim, head: Claim | None) -> Claim:
    """The work tree's live `claim` and HEAD's live copy of its file read as one: what both hold, the least
    each lets its session do (a lift in force needs both)."""
    if head is None:
        return claim
    if head.is_terminal:  # ended by a commit the work tree does not hold (git alone): it blocks until a human acts
        return replace(claim, status=Status.STALE, flags=(*claim.flags, ENDED_IN_HEAD),
                       data={**claim.data, "stale_from": str(claim.status), "stale_reason": ENDED_REASON})
    base = claim
    if hold_rank(head.status) > hold_rank(claim.status):  # the work tree lifts HEAD's hold: not in force yet
        base = replace(head, flags=(*claim.flags, STATUS_IN_HEAD))
    if breaker_rank(head.data) > breaker_rank(base.data):  # an uncommitted reset of the breaker: not in force
        base = replace(base, data={**base.data, "circuit": head.data["circuit"]})
    opened, expires = _earlier(claim.opened_at, head.opened_at), _earlier(claim.expires_at, head.expires_at)
    if (base.opened_at, base.expires_at) != (opened, expires):
        base = replace(base, opened_at=opened, expires_at=expires)  # a later one (a renew): in force once committed
    return _widened(base, head if base is claim else claim)


def holds_all_of(work: Claim, head: Claim) -> bool:
    """True when the work tree's copy of a live claim holds at least all HEAD's live copy of its file holds: read
    together (`_strictest`), they read as the work tree's copy, so committing it lifts, ends or releases nothing
    (one session, one parent, no status nearer `open`, no scope entry dropped, no later expiry, no breaker reset)."""
    if work.is_terminal or head.is_terminal or \
            (work.sess_id, work.parent, work.satellite_type) != (head.sess_id, head.parent, head.satellite_type):
        return False
    read = _strictest(work, head)
    return (read.status == work.status and set(read.scope) == set(work.scope) and read.opened_at == work.opened_at
            and read.expires_at == work.expires_at and breaker_rank(read.data) == breaker_rank(work.data))


def breaker_rank(data: Any) -> tuple[bool, int]:
    """How far a claim's `circuit:` field holds its session back: tripped first, then the failures counted."""
    raw = data.get("circuit")
    if not isinstance(raw, Mapping):
        return False, 0
    fails = raw.get("fails")
    return raw.get("tripped") is True, fails if isinstance(fails, int) and not isinstance(fails, bool) else 0


def hold_rank(status: str) -> int:
    """How far a live status holds its claim's session back (`open` 0); an unknown one holds the most (it blocks,
    and nothing lifts it)."""
    return _HOLD_RANK.get(status, len(_HOLD_RANK))


def _earlier(one: datetime | None, other: datetime | None) -> datetime | None:
    """The earlier of two times; None (unreadable: stale for every rule) when either is."""
    return None if one is None or other is None else min(one, other)
