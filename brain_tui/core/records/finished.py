"""The finished claims a live read still needs, read by name or by window, never the whole history.

A live-only snapshot (`BrainStore.snapshot` with the closed set) holds no terminal claim. Some rules
need a few: a bound session's parent chain up to a closed ancestor (`with_chains`), BRAIN-INDEX.md's
30-day history and the cockpit's window (`add_closed_since`), the duplicate-ID rule against a closed
file carrying a live ID (`closed_twins`), a claim's subtree (`with_subtree`, from the rows' parent
column). Each reads only the files it names, through the store's parse cache. The children a window
leaves out are counted from the rows alone (`older_children`), no file read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from datetime import UTC, datetime

from brain_tui.core import clock, ids
from brain_tui.core.record import record, replace
from brain_tui.core.records import in_force
from brain_tui.core.records.clock_skew import skew_flagged
from brain_tui.core.records.closed_set import ClosedSet, micros
from brain_tui.core.records.formats import parse_claim_bytes
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import TERMINAL_STATUSES, Status

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

    from brain_tui.core.paths.scope import ScopeEntry
    from brain_tui.core.records.store import BrainStore

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: The stand-in of a terminal file in the store's first pass (its claim is not built).
CLOSED: Any = object()
#: ``(rows, {parent: [(sess_id, status, name)]})`` of the last rows indexed (a long-lived reader re-indexes
#: only the rows that changed: most commits change the ``claims`` tree, not its terminal rows).
_CHILDREN: _Children | None = None


@record
class _Children:
    """The by-parent index of one closed set's rows: its rows file's version and the header's rows beside it."""

    version: tuple[str, int, int, int] | None
    extra: tuple[str, ...]
    dropped: frozenset[str]
    lines: list[str] | None
    by_parent: dict[str, list[str]]


def closed_children(closed: ClosedSet) -> dict[str, list[str]]:
    """The closed set's rows by parent: ``{parent: [row]}`` (`children` reads them).

    Indexed once; for later rows only the lines added or gone are applied (to a copy: a reader holding
    the old index keeps it whole). Beside the same rows file, those are the header's rows (`ClosedSet.extra`,
    `dropped`): the whole history's rows are not compared again after each write.
    """
    global _CHILDREN
    known = _CHILDREN
    version = closed.rows_version()
    if known is not None and version is not None and known.version == version and known.dropped <= closed.dropped:
        if (known.extra, known.dropped) == (closed.extra, closed.dropped):
            return known.by_parent
        old_extra, new_extra = set(known.extra), set(closed.extra)
        removed = [line for line in known.extra if line not in new_extra]
        newly = closed.dropped - known.dropped
        if newly:  # rows of the file that left the set since
            suffixes = tuple(f"\t{name}\n" for name in newly)
            removed += [line for line in closed.file_lines() if line.endswith(suffixes)]
        by_parent = dict(known.by_parent)
        _index_rows(by_parent, removed, -1)
        _index_rows(by_parent, [line for line in closed.extra if line not in old_extra], 1)
        _CHILDREN = _Children(version, closed.extra, closed.dropped, None, by_parent)
        return by_parent
    lines = closed.lines()
    if known is not None and known.lines is not None and (known.lines is lines or known.lines == lines):
        return known.by_parent
    if known is None or known.lines is None:
        by_parent = {}
        for line in lines:
            parent = line.split("\t", 5)[4]
            if parent:
                by_parent.setdefault(parent, []).append(line)  # the row itself: no string of its own
    else:
        old, new = set(known.lines), set(lines)
        by_parent = dict(known.by_parent)
        _index_rows(by_parent, [line for line in known.lines if line not in new], -1)
        _index_rows(by_parent, [line for line in lines if line not in old], 1)
    _CHILDREN = _Children(version, closed.extra, closed.dropped, lines, by_parent)
    return by_parent


def children(by_parent: dict[str, list[str]], parent: str) -> list[tuple[str, str, str]]:
    """``[(sess_id, status, file name)]`` of the rows `closed_children` holds under `parent`."""
    out = []
    for line in by_parent.get(parent, ()):
        _us, status, sess_id, _oid, _parent, name = line.rstrip("\n").split("\t")
        out.append((sess_id, status, name))
    return out


def _index_rows(by_parent: dict[str, list[str]], lines: list[str], sign: int) -> None:
    """Add (`sign` 1) or remove (-1) these rows in `by_parent`, copying each list it changes."""
    for line in lines:
        parent = line.split("\t", 5)[4]
        if not parent:
            continue
        kept = [item for item in by_parent.get(parent, ()) if item != line]
        if sign > 0:
            kept.append(line)
        if kept:
            by_parent[parent] = kept
        else:
            by_parent.pop(parent, None)


def with_subtree(store: BrainStore, snapshot: BrainSnapshot, sess_id: str) -> BrainSnapshot | None:
    """A `skip_vouched` snapshot plus `sess_id`'s claim and its terminal descendants, read by name.

    The descendants HEAD holds terminal are found from the rows' parent column; each file is read
    and must name the parent its row says. None when the snapshot did not come from the closed set,
    a legacy index may hold claims, the claim is not found, or a file does not read as its row (an
    odd name, a parent edited since the commit, a missing file): the caller then reads the whole brain.
    """
    closed = store.closed_last
    if closed is None or (store._index_rows is not None and store._index_rows[1]):
        return None
    by_id = {c.sess_id: c for c in snapshot.claims}
    added: list[Claim] = []
    if sess_id not in by_id:
        top = closed_claim(store, closed, sess_id)
        if top is None:
            return None
        by_id[sess_id] = top
        added.append(skew_flagged(top, snapshot.now))
    rows = closed_children(closed)
    stack, seen = [sess_id], {sess_id}
    while stack:
        parent = stack.pop()
        below = [c.sess_id for c in snapshot.children(parent)]
        for child_id, _status, name in children(rows, parent):
            if child_id in by_id:
                continue  # the ID's claim is already read (the live file holds it: this one is its duplicate)
            if name not in (f"{child_id}.yml", f"{child_id}.yaml") or child_id in closed.odd:
                return None
            child = closed_claim(store, closed, child_id)
            if child is None or child.parent != parent:
                return None
            by_id[child_id] = child
            added.append(skew_flagged(child, snapshot.now))
            below.append(child_id)
        for child_id in below:
            if child_id not in seen:
                seen.add(child_id)
                stack.append(child_id)
    if not added:
        return snapshot
    epoch = EPOCH
    claims = sorted((*snapshot.claims, *added), key=lambda c: (c.opened_at or epoch, c.sess_id))
    return replace(snapshot, claims=tuple(claims))


def older_children(closed: ClosedSet | None, snapshot: BrainSnapshot) -> dict[str, tuple[int, int]]:
    """``{sess_id: (finished, failed)}``: the terminal children HEAD holds of the snapshot's claims that
    the snapshot does not hold (they ended before its window), counted from the rows (no file read)."""
    if closed is None:
        return {}
    rows = closed_children(closed)
    have = {c.sess_id for c in snapshot.claims}
    out: dict[str, tuple[int, int]] = {}
    for sess_id in have:
        missing = {child_id: status for child_id, status, _name in children(rows, sess_id) if child_id not in have}
        if missing:
            out[sess_id] = (len(missing), sum(1 for status in missing.values() if status == Status.FAILED))
    return out


def with_chains(store: BrainStore, snapshot: BrainSnapshot, sess_ids: Collection[str]) -> BrainSnapshot | None:
    """A live-only snapshot plus the terminal claims of these sessions' parent chains, read by name.

    For a read that needs a closed claim or a terminal ancestor (a bound session's chain) without reading the whole
    history. A claim the live read filtered out (its status was not wanted) is read from its file; one that no file
    names is unknown (the whole brain holds it nowhere either: the live read scanned every file the closed set does
    not vouch for) and the chain stops there. None when the snapshot did not come from the closed set, a legacy index
    may hold claims, or a file that does not read may be the missing claim: the caller then reads the whole brain.
    """
    closed = store.closed_last
    if closed is None or (store._index_rows is not None and store._index_rows[1]):
        return None
    claims = list(snapshot.claims)
    by_id = {c.sess_id: c for c in claims}
    for start in sess_ids:
        current, seen = start, set()
        while current and current not in seen:
            seen.add(current)
            found = by_id.get(current) or closed_claim(store, closed, current) or _filtered_out(store, current)
            if found is None:
                if any(bad.path.startswith("claims/") for bad in snapshot.corrupt) or \
                        current in store.owners_last:
                    return None
                break  # unknown: no file names it
            if current not in by_id:
                by_id[current] = found
                claims.append(found)
            current = found.parent or ""
    if len(claims) == len(snapshot.claims):
        return snapshot
    epoch = EPOCH
    claims.sort(key=lambda c: (c.opened_at or epoch, c.sess_id))
    return replace(snapshot, claims=tuple(claims))


def closed_claim(store: BrainStore, closed: ClosedSet, sess_id: str) -> Claim | None:
    """The claim of `sess_id` from its file in the closed set, or None."""
    if not ids.valid_session_id(sess_id):
        return None
    for name in (f"{sess_id}.yml", f"{sess_id}.yaml", *closed.odd.get(sess_id, ())):
        if not closed.has(name):
            continue
        item = _read_claim_file(store, f"claims/{name}")
        if isinstance(item, Claim) and item.sess_id == sess_id:  # reopened by hand: HEAD's terminal copy stands
            return item if item.is_terminal else in_force.terminal_in_head(
                store.root, closed, [item], store.tz, store.config.ttl_default, store._scope)[0]
    return None


def _filtered_out(store: BrainStore, sess_id: str) -> Claim | None:
    """The claim of `sess_id` from the file the last live read scanned but did not keep, or None."""
    rel = store.owners_last.get(sess_id)
    item = _read_claim_file(store, rel) if rel is not None else None
    return item if isinstance(item, Claim) and item.sess_id == sess_id else None


def _read_claim_file(store: BrainStore, rel: str, *, history: bool = False) -> Any:
    """What the store reads in the claim file `rel` (None when it is missing or not a regular file); `history`:
    for the history's display (`BrainStore.load_history`)."""
    try:
        st = os.lstat(os.path.join(store.root, rel))
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return store.load_history(rel, st) if history else store._load(rel, st, "claim")


def closed_twins(store: BrainStore, closed: ClosedSet, found: list[tuple[str, Any, str | None, Any]],
                  live: set[str]) -> list[tuple[str, Any, str | None, Any]]:
    """The terminal files that carry the session ID of a live one (the duplicate-ID rule still applies)."""
    twins: list[tuple[str, Any, str | None, Any]] = []
    # A name the set lists as live is not in it: the set's names (one long line) are loaded only for the others.
    listed_live = set(closed.live) | {rel.rpartition("/")[2] for rel in live}
    for _rel, _st, sess_id, _item in list(found):
        if sess_id is None:
            continue
        names = [n for n in (f"{sess_id}.yml", f"{sess_id}.yaml") if n not in listed_live
                 and os.path.lexists(os.path.join(store.root, "claims", n)) and closed.has(n)]
        names += [n for n in closed.odd.get(sess_id, ()) if n not in names]
        twins.extend((f"claims/{name}", None, sess_id, CLOSED) for name in names)
    return twins


def duplicate_holds(store: BrainStore, rel: str, st: Any, item: Any, own_file: bool) -> tuple[ScopeEntry, ...]:
    """What a second file carrying a session ID holds (`rel`, read in pass 1 as `item`): nothing when the ID has
    its own file (``claims/<ID>.yml`` or ``.yaml``: that file says what the claim holds); else its own scope
    while it blocks. Which of several other names is the claim is not the product's to guess: a name that
    sorts first (or a closed copy) never takes the scope of another live file away (SPEC 22, fails closed).
    """
    if own_file or item is CLOSED:
        return ()
    if not isinstance(item, Claim):  # a hint (sess_id, status): built only when it may block
        if item[1] in TERMINAL_STATUSES:
            return ()
        item = store._load(rel, st, "claim")  # noqa: SLF001  (as `_read_claim_file` reads)
    if isinstance(item, Claim):
        return item.scope if item.is_blocking else ()
    return ()


def add_closed_since(store: BrainStore, closed: ClosedSet | None, claims: list[Claim], since: datetime) -> None:
    """Add the terminal claims closed at or after `since` (read from their files: few, the recent ones)."""
    if closed is None:
        return
    have = {c.path for c in claims}
    used: set[str] = set()
    for name, _row in closed.closed_since(micros(since)):
        rel = f"claims/{name}"
        if rel in have:
            continue
        used.add(rel)
        item = _read_claim_file(store, rel, history=True)
        if isinstance(item, Claim) and item.status in TERMINAL_STATUSES:
            claims.append(item)
    for gone in [rel for rel in store.history_cache if rel not in used]:  # the window's claims only
        del store.history_cache[gone]


def ended_since(store: BrainStore, rel: str, st: os.stat_result, since: datetime) -> bool:
    """True when the terminal claim in `rel` ended (``closed_at``, else ``opened_at``) at `since` or later.

    Read from the raw mapping (no claim built); a file that does not tell is kept (built, then decided).
    """
    parsed = store.files.get(rel, st, parse_claim_bytes)
    if parsed is None or parsed.corrupt is not None or not isinstance(parsed.data, dict):
        return True
    data = parsed.data
    ended = clock.try_parse_timestamp(data.get("closed_at", data.get("closed")), store.tz) or \
        clock.try_parse_timestamp(data.get("opened_at", data.get("opened")), store.tz)
    return ended is None or ended >= since


def claim_file_rank(rel_path: str, sess_id: str | None) -> int:
    """0 for `claims/<sess_id>.yml`, 1 for `.yaml`, 2 for any other name: the lowest holds the ID."""
    if sess_id is None:
        return 3
    if rel_path == f"claims/{sess_id}.yml":
        return 0
    return 1 if rel_path == f"claims/{sess_id}.yaml" else 2
