"""What the protocol decides when the remote brings other machines' work in (SPEC 4, 11).

The remote (core/sync/remote.py) only moves commits. After it integrated the remote
tip, two things can be true that only the protocol can settle:

- an ID taken on two machines (the same `--slug` in the same minute, one of
  them offline): IDs are unique across machines, so the local, unpushed claim
  takes a fresh slug (`fresh_id`; `ids.rename_text` in its texts) before its commits are rebased;
- a claim opened while offline whose scope another machine claimed and pushed
  first: the remote's claim holds the scope, the local one lost (`lost_claims`)
  and is marked `failed` with the reason (`mark_lost`) — never two holders;
- a claim of a session a human paused elsewhere, opened here and not yet pushed when the pause landed: a paused
  session opens no claim, and no time an agent gives tells an open made after the pause from one before it
  (`held.paused_elsewhere`): it is lost the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from brain_tui.core.ids import random_slug
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.record import record
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.rules import conflicts, held

if TYPE_CHECKING:
    from brain_tui.core.records.changes import ChangeSet

#: The statuses a human's hold leaves a claim in (a pause, a gate): named in a lost claim's reason.
_HELD = frozenset({"paused", "waiting_human"})
_CANONICAL_RE = re.compile(r"^(sess-\d{8}-\d{4}-)[a-z0-9][a-z0-9-]*\Z")


@record
class LostClaim(JsonShaped):
    """A local claim whose scope another machine's claim (pushed first) holds."""

    sess_id: str
    scope: str
    winners: tuple[conflicts.Conflict, ...]
    #: its session's claim a human paused before it was opened (the one winner), unseen by its clone then
    paused_first: bool = False


@record
class Renamed(JsonShaped):
    """A local, unpushed claim renamed because another machine pushed the same ID first."""

    old: str
    new: str


@record
class SyncReport(JsonShaped):
    """What `bsi sync` did: the remote's part and the protocol's."""

    fetched: bool = False
    rebased: bool = False
    pushed: bool = False
    ahead: int = 0
    behind: int = 0
    tries: int = 0
    lost: tuple[LostClaim, ...] = ()
    renamed: tuple[Renamed, ...] = ()
    #: local writes dropped whole because the remote's side of their claim won (their commit subjects)
    dropped: tuple[str, ...] = ()
    last_sync: str | None = None
    #: a pause written while git could not commit, undone before its commit (`records.held_back`): the lines to tell
    notes: tuple[str, ...] = ()


def dropped_warning(subject: str) -> str:
    """What a person is told of a local write sync dropped (`SyncReport.dropped`): it did not happen."""
    return (f"not kept: `{subject}`, made here while another machine changed the same claim; the other side "
            "won by the protocol's rules (a human's decision first), so this write did not happen: "
            "`bsi claim show` gives the claim as it is")


def fresh_id(old: str, taken: Callable[[str], bool]) -> str:
    """A new ID for a claim whose ID another machine took: same date and minute, a fresh random slug."""
    match = _CANONICAL_RE.match(old)
    prefix = match.group(1) if match else f"{old}-"
    candidate = prefix + random_slug()
    while taken(candidate):
        candidate = prefix + random_slug()
    return candidate


def lost_claims(snapshot: BrainSnapshot, local_ids: Collection[str]) -> list[LostClaim]:
    """The local claims (`local_ids`, not yet on the remote) that now conflict with a remote one.

    The remote's claims were pushed first, so they hold the scope; conflicts
    between two local claims are not a loss (they were decided locally), and a
    remote claim file that does not read is no winner (it still blocks new claims).
    Nor is the claim's own ancestor: one paused, gated or stale meets its child's scope by the chain rule alone
    (no delegation through it), which is a hold of the tree, not another machine's claim on the scope. A claim
    whose chain does not read to its root is never lost: an ancestor past the link may be the one it meets
    (`conflicts.chain_hidden`); a parent the brain has no claim for, and no unreadable file may be, hides none.
    """
    if not local_ids:
        return []
    index = conflicts.blocking_index(snapshot)
    lost: list[LostClaim] = []
    for sess_id in sorted(local_ids):
        claim = snapshot.claim(sess_id)
        if claim is None or not claim.is_blocking or conflicts.chain_hidden(snapshot, sess_id):
            continue  # past a link that does not read, any winner may be its ancestor (SPEC 22: fails closed)
        tree = {a.sess_id for a in snapshot.ancestors(sess_id)}
        winners = [c for c in conflicts.find_conflicts(snapshot, claim.scope, parent=claim.parent,
                                                      satellite_type=claim.satellite_type, exclude=sess_id,
                                                      index=index)
                   if c.sess_id not in local_ids and c.sess_id not in tree and c.status != conflicts.CORRUPT]
        if winners:
            lost.append(LostClaim(sess_id=sess_id, scope=claim.scope_text, winners=tuple(winners)))
        elif (braked := held.paused_elsewhere(snapshot, claim, local_ids)) is not None:
            winner = conflicts.Conflict(sess_id=braked.sess_id, instance=braked.instance, scope=braked.scope_text,
                                        status=str(braked.status), overlap="session paused")
            lost.append(LostClaim(sess_id=sess_id, scope=claim.scope_text, winners=(winner,), paused_first=True))
    return lost


def mark_lost(cs: ChangeSet, lost: Sequence[LostClaim]) -> None:
    """Stage: each lost claim becomes `failed`, naming who claimed the scope first.

    A claim a human paused or gated here is marked too (it never held its scope in git, SPEC 11, 22): its hold
    (`paused_by`, the gate) stays recorded, and the reason says the hold ended with the claim, nothing resumed."""
    for item in lost:
        names = ", ".join(w.sess_id for w in item.winners)
        reason = f"lost while offline: {names} claimed the scope first"
        if item.paused_first:
            reason = (f"lost while offline: a human paused {names}, a claim of its session, before it was opened "
                      "(a paused session opens no claim)")
        claim = cs.snapshot.claim(item.sess_id)
        if claim is not None and str(claim.status) in _HELD:
            reason += f" (it was {claim.status}: the hold ends with the claim, nothing resumed)"
        cs.derived.add(item.sess_id)
        cs.update_claim(item.sess_id, {"status": "failed", "closed_at": cs.ts(), "lost_to": names,
                                       "abort_reason": reason})
        cs.add_history(item.sess_id, "ABORTED", "sync", reason)
    cs.message = f"bsi: sync lost {' '.join(i.sess_id for i in lost)}"
