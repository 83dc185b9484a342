"""What a push may carry: never a claim looser than this clone's work tree holds it (SPEC 21, 22).

The work tree's claim files are fenced from the agents (the sandbox's ``denyWrite``); git's objects are not (a
satellite commits its work), so git's plumbing in an agent's shell can make a commit that ends another session's
claim, lifts a pause or removes a claim file without touching the work tree. On this clone such a claim keeps holding
(`records.in_force`); pushed, the other clones would take the commit into their work trees and let it go. So before a
push, every claim and lock file the commits to push change (``git diff --raw`` from the remote's tip to HEAD) is
compared with the work tree's copy: a file whose HEAD copy holds less than both the work tree's and the remote's
(the work tree's alone when the remote has no copy: a claim opened and paused here, never pushed) (a
claim ended, removed, or in a live status nearer ``open``: `in_force.hold_rank`; a lock removed), or a live claim
that lets go of what both still hold (a scope entry, the circuit breaker's trip or count, an earlier expiry: the
scope was free on the other clones) or takes a scope entry neither holds (no verb widens a claim:
the entry met no conflict check), or a lock both hold rewritten (another file, an earlier expiry), stops the push
(exit 65), naming the file. A human then commits the work tree's copy, or decides in the cockpit. A commit made from
the work tree (a hand close committed, bsi's own writes) carries what the work tree holds and goes through.
"""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.layout import CLAIMS_DIR, LOCKS_DIR
from brain_tui.core.records.closed_set import read_blobs
from brain_tui.core.records.formats import claim_from_mapping, claim_identity, parse_claim_bytes
from brain_tui.core.records.git_head import blob_id
from brain_tui.core.records.in_force import breaker_rank, hold_rank
from brain_tui.core.records.model import Claim
from brain_tui.core.records.statuses import TERMINAL_STATUSES
from brain_tui.core.records.work_tree_copy import work_tree_bytes
from brain_tui.core.records.yamlio import CorruptYaml
from brain_tui.core.sync import gitops

__all__ = ["check"]

#: How much a claim file holds that is not there (or holds a terminal claim): nothing.
_NOTHING = -1
#: How much a claim file that does not read holds: the most (it may hold anything).
_UNREAD = 99


def check(root: Path, tip: str | None) -> None:
    """Refuse a push of HEAD over the remote's `tip` (None: no branch there yet, nothing to loosen) that carries a
    claim looser than the work tree holds: InvalidData (exit 65) naming the file and what to do."""
    if not tip:
        return
    out = gitops.run_git(root, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", tip, "HEAD", "--",
                         f"{CLAIMS_DIR}/", f"{LOCKS_DIR}/").stdout
    parts = out.split("\0")
    changed: dict[str, tuple[str | None, str | None]] = {}
    for meta, name in zip(parts[0::2], parts[1::2], strict=False):
        fields = meta.lstrip(":").split(" ")
        if len(fields) == 5:
            changed[name] = (_present(fields[2]), _present(fields[3]))
    if not changed:
        return
    blobs = read_blobs(root, sorted({oid for pair in changed.values() for oid in pair if oid}))
    if blobs is None:
        raise InvalidData("cannot read the claim files of the commits to push from git: nothing was pushed")
    for rel, (at_tip, at_head) in sorted(changed.items()):
        work = work_tree_bytes(root, rel)
        if work is not None and at_head is not None and blob_id(work, at_head) == at_head:
            continue  # HEAD holds what the work tree holds
        head, tip_data = blobs[at_head] if at_head else None, blobs[at_tip] if at_tip else None
        holds = _holds if rel.startswith(f"{CLAIMS_DIR}/") else _lock_holds
        held = holds(head, rel)
        # the remote without the file (a claim opened here, never pushed) holds nothing to compare: the work tree says
        what = "ends, lifts or removes" if held < holds(work, rel) and (at_tip is None or held < holds(tip_data, rel)) \
            else None
        if what is None and rel.startswith(f"{CLAIMS_DIR}/"):
            what = _drops(*(_live(data, rel, root) for data in (head, work, tip_data)))
        elif what is None and None not in (head, work, tip_data):  # a lock both hold, rewritten in git alone
            what = "rewrites"
        if what is not None:
            raise InvalidData(
                f"nothing was pushed: a local commit {what} {rel}, which the work tree still holds "
                "(a commit made in git alone); a human decides: commit the work tree's copy "
                f"(`git commit -- {rel}`) or act on the claim from the cockpit")


def _present(oid: str) -> str | None:
    """A blob ID of ``git diff --raw``, None for the all-zero ID of a file that is not there."""
    return None if not oid.strip("0") else oid


def _holds(data: bytes | None, rel: str) -> int:
    """How much a claim file's bytes hold back (`in_force.hold_rank`; nothing when absent or terminal)."""
    if data is None:
        return _NOTHING
    try:
        parsed = parse_claim_bytes(data)
    except CorruptYaml:
        return _UNREAD
    identity = claim_identity(parsed, rel, UTC)  # the zone only reads a naive closing time: set or not is the same
    if not isinstance(identity, tuple):
        return _UNREAD
    status = identity[1]
    return _NOTHING if status in TERMINAL_STATUSES else hold_rank(status)


def _live(data: bytes | None, rel: str, root: Path) -> Claim | None:
    """The live claim a claim file's bytes hold (None: absent, terminal, or not a claim that reads)."""
    if data is None:
        return None
    try:
        claim = claim_from_mapping(parse_claim_bytes(data), rel, root, UTC)
    except CorruptYaml:
        return None
    return claim if isinstance(claim, Claim) and not claim.is_terminal else None


def _drops(head: Claim | None, work: Claim | None, tip: Claim | None) -> str | None:
    """What HEAD's live claim lets go of that the work tree's copy and the remote's both hold, None when nothing:
    a scope entry, the circuit breaker's count or trip, an earlier expiry or opening time (a renew); or a scope
    entry HEAD's copy adds that neither holds (what other claims hold, taken with no conflict check)."""
    if head is not None and work is not None and any(
            entry not in work.scope and (tip is None or entry not in tip.scope) for entry in head.scope):
        return "widens the scope of"  # no verb widens a claim: the new entry met no conflict check
    if head is None or work is None or tip is None:
        return None
    if any(entry in tip.scope and entry not in head.scope for entry in work.scope):
        return "narrows the scope of"
    if breaker_rank(head.data) < min(breaker_rank(work.data), breaker_rank(tip.data)):
        return "resets the circuit breaker of"
    for name in ("expires_at", "opened_at"):
        ours, mine, theirs = getattr(head, name), getattr(work, name), getattr(tip, name)
        if ours is not None and mine is not None and theirs is not None and ours > max(mine, theirs):
            return "renews"
    return None


def _lock_holds(data: bytes | None, _rel: str) -> int:
    """How much a lock file holds: a lock while it is there (its holder releases it through bsi, which commits
    the work tree's removal), nothing once it is gone."""
    return _NOTHING if data is None else 0
