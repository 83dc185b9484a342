"""In force is what git holds (SPEC 22): a claim HEAD holds live keeps holding when the work tree lets it go.

A claim file that HEAD holds in a live status (the closed set's `others`: HEAD's files not
terminal) and that the work tree has deleted, or rewritten in a terminal status, without a
commit, has not let anything go: the release is not in force until committed. A live read
(the conflict check, the hook, preflight, the index) then holds HEAD's version of the claim
in place of the work tree's. The other way is already fail closed: an uncommitted new or
reopened claim blocks from the work tree (the union of the two states blocks).

A read of every file takes HEAD's live files from the stored closed set when it is HEAD's commit's
(`current_set`). What this does not cover: an uncommitted edit that keeps a live status but narrows the
scope (the work tree's scope is read), and a read of every file when the stored set is older than HEAD.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from datetime import timedelta, tzinfo
from pathlib import Path
from typing import Any

from brain_tui.core.paths.layout import CLAIMS_DIR
from brain_tui.core.paths.scope import ScopeEntry
from brain_tui.core.records.closed_set import ClosedSet, head_commit, load, read_blobs
from brain_tui.core.records.formats import claim_from_mapping, parse_claim_bytes
from brain_tui.core.records.model import Claim
from brain_tui.core.records.statuses import TERMINAL_STATUSES
from brain_tui.core.records.yamlio import CorruptYaml

__all__ = ["current_set", "held_in_head", "replace_held", "scanned_statuses"]


def held_in_head(root: Path, closed: ClosedSet, statuses: dict[str, str | None], tz: tzinfo,
                 default_ttl: timedelta, scope: Callable[[Any], tuple[ScopeEntry, ...]]) -> list[Claim]:
    """HEAD's version of each live claim of HEAD that the work tree deleted or ended without a commit.

    Args:
        root: the brain folder.
        closed: the closed set the read used (its `others` are HEAD's files that are not terminal).
        statuses: every claim file the read scanned (``claims/<name>``) -> the status the work tree
            gives it (None: unknown, not a claim, or a file that does not read).
        tz: the brain's timezone.
        default_ttl: the brain's default TTL.
        scope: the store's scope parser.

    Returns:
        The claims HEAD holds live in those files (none when git does not answer: the work tree stands).
    """
    wanted = {name: oid for name, oid in closed.others.items() if _let_go(f"{CLAIMS_DIR}/{name}", statuses)}
    if not wanted:
        return []
    blobs = read_blobs(root, sorted(set(wanted.values())))
    if blobs is None:
        return []
    held: list[Claim] = []
    for name, oid in sorted(wanted.items()):
        try:
            data = parse_claim_bytes(blobs[oid])
        except CorruptYaml:  # HEAD's copy does not read: the work tree's state stands
            continue
        claim = claim_from_mapping(data, f"{CLAIMS_DIR}/{name}", root, tz, default_ttl, scope)
        if isinstance(claim, Claim) and claim.status not in TERMINAL_STATUSES:
            held.append(claim)
    return held


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


def current_set(root: Path) -> ClosedSet | None:
    """The stored closed set when it is HEAD's commit's (read without a git process), else None.

    A read of every file uses no closed set; HEAD's live files are taken from the stored one only when it is
    exactly HEAD's (an older set could name a claim a later commit closed).
    """
    stored = load(root)
    commit = head_commit(root) if stored is not None and stored.commit else None
    return stored if stored is not None and commit is not None and stored.commit == commit else None


def _let_go(rel: str, statuses: dict[str, str | None]) -> bool:
    """True when the work tree deleted `rel` or gives it a terminal status."""
    return rel not in statuses or statuses[rel] in TERMINAL_STATUSES


def replace_held(claims: Iterable[Claim], held: Collection[Claim],
                 only_statuses: Collection[str] | None) -> list[Claim]:
    """`claims` with the work tree's versions of `held`'s files dropped and `held` added (as the read wants)."""
    paths = {c.path for c in held}
    kept = [c for c in claims if c.path not in paths]
    present = {c.sess_id for c in kept if not c.is_terminal}  # moved in the work tree: that copy stands
    kept.extend(c for c in held if c.sess_id not in present and (only_statuses is None or c.status in only_statuses))
    return kept
