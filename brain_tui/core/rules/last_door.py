"""The last door of every write: what the files a write leaves are checked against before they land
(`write_path.apply`), whatever staged them — a verb, or a rule function's ChangeSet handed in below the verbs.

The verbs refuse earlier, before they stage anything; these doors hold the same rules for a write built below them:
the brain's own spelling of each file (exit 65), a human's transitions (SPEC 21.2, exit 77), an agent's own claims
only (SPEC 21.4, exit 77), no new holder of a held scope (SPEC 5.3, exit 10). Nothing is written when one refuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path

    from brain_tui.core.records.model import BrainSnapshot, Claim
    from brain_tui.core.rules.conflicts import Conflict

__all__ = ["refuse_at_the_door"]


def refuse_at_the_door(root: Path, snapshot: BrainSnapshot, rendered: dict[str, str | None], derived: set[str]) -> None:
    """Check the files `rendered` (a path below `root` → its new text, None for a removal) that a write decided on
    `snapshot` leaves; `derived`: the claim files a derived rule moved (`ChangeSet.derived`). Raises on the first
    door that refuses; nothing is written then."""
    refuse_other_spellings(snapshot, rendered)
    refuse_human_moves(snapshot, rendered, derived)
    refuse_not_owned(root, snapshot, rendered, derived)
    refuse_new_conflicts(snapshot, rendered)


def refuse_other_spellings(snapshot: BrainSnapshot, rendered: dict[str, str | None]) -> None:
    """Every file a write leaves is named as the brain names it, or the write refuses (exit 65), nothing written.

    The doors below (`refuse_human_moves`, `refuse_new_conflicts`) know a claim file by its path: a write staged
    below the facade under another spelling of it — ``claims/./X.yml``, ``./claims/X.yml``, ``claims//X.yml``,
    ``claims/../claims/X.yml``, a protocol folder or a claim file in another case (one file on a case-insensitive
    disk) — is the same file on disk but no claim to them, and an agent's pause lifted through it went unseen. An
    absolute path names no file of the brain at all.
    """
    from brain_tui.core.errors import InvalidData
    from brain_tui.core.paths.layout import INDEX_FILE, PROTOCOL_DIRS
    from brain_tui.core.paths.path_keys import path_key
    from brain_tui.core.paths.text_safety import CONTROL_RE

    protocol = {path_key(name): name for name in (*PROTOCOL_DIRS, INDEX_FILE)}
    claims: dict[str, set[str]] = {}  # a case-sensitive disk may hold several claims under one key
    for claim in snapshot.claims:
        claims.setdefault(path_key(claim.path), set()).add(claim.path)
    for rel in rendered:
        first = rel.split("/", 1)[0]
        if (not rel or rel.startswith("/") or "\\" in rel or CONTROL_RE.search(rel)
                or any(part in ("", ".", "..") for part in rel.split("/"))
                or protocol.get(path_key(first), first) != first or rel not in claims.get(path_key(rel), {rel})):
            raise InvalidData(f"cannot write {rel!r}: a brain file is written as the brain names it (relative, no "
                              "'.', '..' or empty part, its folder and name in their own case); nothing was written")


def refuse_human_moves(snapshot: BrainSnapshot, rendered: dict[str, str | None], derived: set[str]) -> None:
    """The last door of SPEC 21.2: a write that makes a human's transition refuses in an agent's process.

    `Brain`'s verbs refuse earlier, before they stage anything; this covers a write built below them (the rule
    functions over a ChangeSet, handed to `apply`). Raises HumanOnly (exit 77) when the process is an agent's and the
    write approves, rejects, pauses, resumes, aborts or releases a claim (a claim stale at the machine's clock made
    live again, as a renew at a clock set behind would, is a release); nothing is written.
    """
    from brain_tui.core.rules.authority import require_human

    at = _agents_time(snapshot)
    if at is None:
        return  # a human's write: nothing to read
    from brain_tui.core.rules.human_lifts import human_moves

    for sess_id, verb in human_moves(snapshot, rendered, derived, at=at):
        require_human(verb, sess_id)


def refuse_not_owned(root: Path, snapshot: BrainSnapshot, rendered: dict[str, str | None], derived: set[str]) -> None:
    """The last door of SPEC 21.4: an agent's write changes only its own claims and delegates only under them.

    The verbs refuse earlier (`facade.mutate_for`, `claims.open_claim`); this covers a write built below them, for the
    actor the verb decided on (`own_writes.writing_as`), else the process's own. Raises NotYours (exit 77) naming the
    holder (`own_writes.refuse_not_owned`: the watchdog's stale mark and the derived rules' moves pass); nothing is
    written.
    """
    from brain_tui.core.paths.layout import CLAIMS_DIR

    if not any(rel.startswith(f"{CLAIMS_DIR}/") for rel in rendered):
        return  # signals, locks, breath, the index: no claim to own
    at = _agents_time(snapshot)
    from brain_tui.core.rules import own_writes

    actor = own_writes.writer(root)
    if actor.is_agent:
        own_writes.refuse_not_owned(actor, snapshot, rendered, derived, snapshot.now if at is None else at)


def _agents_time(snapshot: BrainSnapshot) -> datetime | None:
    """When an agent's write is judged: the later of its clock and the machine's (a `--now` behind would make a claim
    stale by now look alive); None in a human's process, which may simulate any time."""
    from brain_tui.core.rules.authority import agents_time

    return agents_time(snapshot.now)


def refuse_new_conflicts(snapshot: BrainSnapshot, rendered: dict[str, str | None]) -> None:
    """The last door of SPEC 5.3: a new claim file that meets a blocking claim refuses, whatever staged it.

    `claims.open_claim` checks before it stages; this covers a claim file staged below it (`ChangeSet.new_claim`
    handed to `apply`). New: its ID is no claim of `snapshot` (a legacy index row written out as its file is one
    already). In an agent's process a new claim live at the machine's clock is also checked at it
    (`conflicts.as_judged`, the rule the queries of what an open would meet share): a `--now` behind would let it
    delegate through an ancestor stale by now. A claim of `snapshot` written so that it holds more (`_checked_as`: a
    wider scope, a search claim made one that blocks, a new parent, a finished claim made live) is checked as a new
    one: no verb does that, and it would make two sessions hold one file. Raises ConflictError (exit 10) naming the
    holders; nothing is written.
    """
    from brain_tui.core.paths.layout import CLAIMS_DIR

    new = [(rel, text) for rel, text in rendered.items()
           if text is not None and rel.startswith(f"{CLAIMS_DIR}/") and rel.endswith((".yml", ".yaml"))]
    if not new:
        return
    from brain_tui.core.errors import ConflictError
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.records.formats import claim_from_mapping
    from brain_tui.core.records.model import BLOCKING_STATUSES, Claim
    from brain_tui.core.records.statuses import LIVE_STATUSES
    from brain_tui.core.records.yamlio import CorruptYaml, safe_load_text
    from brain_tui.core.rules.conflicts import as_judged, find_conflicts
    from brain_tui.core.rules.effective import effective_status

    for rel, text in new:
        try:
            claim = claim_from_mapping(safe_load_text(text), rel, snapshot.root, snapshot.tz,
                                       scope_parser=lambda value: parse_scope(value, snapshot.root, typed=False))
        except (CorruptYaml, ValueError):
            continue  # a file that does not read holds what it may (SPEC 22): never a second holder unseen
        if not isinstance(claim, Claim) or claim.status not in BLOCKING_STATUSES \
                or (checked := _checked_as(snapshot, claim)) is None:
            continue
        parent, held_before = checked

        def met(on: BrainSnapshot, claim: Claim = claim, parent: str | None = parent,
                held_before: frozenset[str] = held_before) -> list[Conflict]:
            return [c for c in find_conflicts(on, claim.scope, parent=parent, satellite_type=claim.satellite_type,
                                              exclude=claim.sess_id) if c.sess_id not in held_before]

        def lives_at(at: datetime, claim: Claim = claim) -> bool:
            return effective_status(claim, at) in LIVE_STATUSES

        conflicts = as_judged(snapshot, parent, met, lives_at)
        if conflicts:
            raise ConflictError(f"claim refused: {rel} would hold what "
                                + "; ".join(c.describe() for c in conflicts[:3])
                                + (f" and {len(conflicts) - 3} more" if len(conflicts) > 3 else ""),
                                {"conflicts": [c.as_dict() for c in conflicts]})


def _checked_as(snapshot: BrainSnapshot, claim: Claim) -> tuple[str | None, frozenset[str]] | None:
    """How the last door checks the blocking `claim` a write leaves: ``(the parent whose chain is exempt, the holders
    it met already)``; None when it holds nothing more than `snapshot`'s claim of its ID did (same scope, parent and
    satellite type, and blocking already). A claim the brain has keeps its own parent's exemption (an edit never
    gains an ancestor) and is not refused for what it met before the write; one whose parent changes (no verb does
    that) is checked as a root, its old ancestors held against it: cut loose, it would hold their scope as
    another tree does (and a sync's "lost" could then end a held ancestor)."""
    from brain_tui.core.records.statuses import TERMINAL_STATUSES
    from brain_tui.core.rules.conflicts import find_conflicts

    old = snapshot.claim(claim.sess_id)
    if old is None:
        return claim.parent, frozenset()

    def holding(c: Claim) -> tuple[object, ...]:
        return (frozenset((e.kind, e.key, e.section_key) for e in c.scope), c.parent, c.satellite_type)

    held = old.status not in TERMINAL_STATUSES  # blocking already: a status bsi does not know holds too (SPEC 22)
    if held and holding(old) == holding(claim):
        return None
    met = find_conflicts(snapshot, old.scope, parent=old.parent, satellite_type=old.satellite_type,
                         exclude=old.sess_id) if held else []
    if claim.parent != old.parent:  # cut loose or moved: the tree it leaves holds against it as any other claim
        tree = {a.sess_id for a in snapshot.ancestors(old.sess_id)}
        return None, frozenset(c.sess_id for c in met if c.sess_id not in tree)
    return old.parent, frozenset(c.sess_id for c in met)
