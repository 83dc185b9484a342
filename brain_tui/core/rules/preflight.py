"""Preflight (SPEC 10): may this session write this file now?

`check` returns 0 or raises `PreflightRefused` with the code of SPEC 10, in
this order of precedence: 4 (claim not usable), 1 (scope), 5 (kernel zone),
2 (locked), 3 (circuit tripped), 6 (branch). Exit 1 means only "scope
violation". The lock rules are in locks.py, the breaker's in circuit.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from brain_tui.core.clock import format_timestamp
from brain_tui.core.config import BrainConfig
from brain_tui.core.errors import InvalidData, NotFound, PreflightRefused
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.path_keys import hard_linked, path_key, resolve_in_brain
from brain_tui.core.paths.scope import FILE, ScopeEntry, covers_file
from brain_tui.core.paths.scope_paths import zone_keys
from brain_tui.core.record import record
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import Status
from brain_tui.core.rules.circuit import circuit_state
from brain_tui.core.rules.conflicts import CORRUPT, Conflict, find_conflicts, unreadable_holders
from brain_tui.core.rules.effective import (
    delegating_chain,
    effective_status,
    is_held_pause,
    require_claim,
    unreadable_ancestor,
)
from brain_tui.core.rules.lock_names import lock_file_path
from brain_tui.core.rules.locks import corrupt_lock_of, live_lock, live_lock_of_other

# The preflight's exit codes (SPEC 10) and the name of the check behind each, kept in `preflight_codes` (the
# write decision names them without loading the checks); re-exported here.
from brain_tui.core.rules.preflight_codes import CHECK_NAMES as CHECK_NAMES
from brain_tui.core.rules.preflight_codes import CIRCUIT_TRIPPED as CIRCUIT_TRIPPED
from brain_tui.core.rules.preflight_codes import CLAIM_NOT_OPEN as CLAIM_NOT_OPEN
from brain_tui.core.rules.preflight_codes import FILE_LOCKED as FILE_LOCKED
from brain_tui.core.rules.preflight_codes import GO as GO
from brain_tui.core.rules.preflight_codes import SCOPE_VIOLATION as SCOPE_VIOLATION
from brain_tui.core.rules.preflight_codes import WRONG_BRANCH as WRONG_BRANCH
from brain_tui.core.rules.preflight_codes import ZONE_VIOLATION as ZONE_VIOLATION

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any


def in_zone(file: str, zone: Sequence[str], root: str | os.PathLike[str] | None = None) -> bool:
    """True when a normalised file is in a zone: an entry is that path and, whether it ends in `/` or not,
    everything below it (a name with a file below it is a folder, SPEC 5.1: `docs` names the folder `docs/`; a
    folder glob `docs/**` too); a global spelling (`*`, `/`, `global`, `.`, `**`) the whole brain; a leading `/` the
    brain's root; with `root`, the path an entry leads to through links is in the zone too (`scope_paths.zone_keys`).

    Paths compare by `path_key`: ``AGENTS/x.md`` is in the zone ``agents/`` (on macOS it is that folder).
    """
    key = path_key(file)
    return any(not entry or key == entry or key.startswith(entry + "/") for entry in zone_keys(zone, root))


def zone_below(folder: str, zone: Sequence[str], root: str | os.PathLike[str] | None = None) -> bool:
    """True when a zone entry lies below `folder` (a write of the folder whole writes it: `rm -r`, an extraction)."""
    key = path_key(folder).rstrip("/")
    return any(entry.startswith(key + "/") for entry in zone_keys(zone, root) if entry) if key else bool(
        zone_keys(zone, root))

_UNBLOCK = {
    "waiting_human": "a human approves the pending gate: `bsi gate approve {id}` (or rejects it)",
    "paused": "a human resumes it: `bsi gate resume {by}`",
    "stale": "a human releases it (`bsi claim release {id} --reason …`) and the session opens a new claim",
    "closed": "the claim is finished: open a new one (`bsi claim open`, or `claim_open` over MCP)",
    "failed": "the claim failed: open a new one (`bsi claim open`, or `claim_open` over MCP)",
    "released": "the claim was released: open a new one (`bsi claim open`, or `claim_open` over MCP)",
}

def _refuse(code: int, message: str, sess_id: str, file: str, **extra: Any) -> PreflightRefused:
    payload = {"sess_id": sess_id, "file": file, "code": code, "check": CHECK_NAMES[code], **extra}
    return PreflightRefused(code, message, payload)

def check_claim(snapshot: BrainSnapshot, sess_id: str, file: str = "") -> Claim:
    """The first check of SPEC 10 alone: the claim exists and may act now (effectively open, no held ancestor).

    `snapshot` holds the claim's whole parent chain; `file` ("" when none is named) goes in the refusal's payload.

    Raises:
        PreflightRefused: code 4, saying which status holds it and who unblocks it.
    """
    try:
        claim = require_claim(snapshot, sess_id)
    except NotFound:
        raise _refuse(CLAIM_NOT_OPEN, f"claim {sess_id} unknown: open one with `bsi claim open` first",
                      sess_id, file) from None
    current = effective_status(claim, snapshot.now)
    if current != Status.OPEN:
        by = (claim.paused_by or sess_id) if current == Status.PAUSED else sess_id
        hint = _UNBLOCK.get(current, "only an open claim may write").format(id=sess_id, by=by)
        shown = current if current == claim.status else f"{current} (expired while {claim.status})"
        raise _refuse(CLAIM_NOT_OPEN, f"claim {sess_id} is {shown}, not open: {hint}",
                      sess_id, file, status=current)
    for ancestor in snapshot.ancestors(sess_id):
        if is_held_pause(ancestor, snapshot.now):
            raise _refuse(
                CLAIM_NOT_OPEN,
                f"{'parent' if ancestor.sess_id == claim.parent else 'ancestor'} {ancestor.sess_id} is paused: "
                f"a human resumes it with `bsi gate resume {ancestor.paused_by or ancestor.sess_id}`",
                sess_id, file, status=claim.status, blocked_by=ancestor.sess_id,
            )
        if ancestor.status == Status.FAILED:
            raise _refuse(
                CLAIM_NOT_OPEN,
                f"{'parent' if ancestor.sess_id == claim.parent else 'ancestor'} {ancestor.sess_id} failed: "
                f"stop and signal BLOCKED_ON the pilot (`bsi signal send --from {sess_id} --to pilote "
                f"--type BLOCKED_ON …`)",
                sess_id, file, status=claim.status, blocked_by=ancestor.sess_id,
            )
    broken = unreadable_ancestor(snapshot, claim)
    if broken is not None:
        raise _refuse(
            CLAIM_NOT_OPEN,
            f"ancestor {broken} cannot be read (its claim file is corrupt), so whether a human paused this tree "
            f"is unknown: a human repairs claims/{broken}.yml (`bsi claim list` shows why it does not read)",
            sess_id, file, status=claim.status, blocked_by=broken,
        )
    _check_held_twice(snapshot, claim, file)
    return claim


def shared_scope(snapshot: BrainSnapshot, claim: Claim) -> list[Conflict]:
    """The other blocking claims, outside `claim`'s own tree line, whose scope meets its scope (none for a search
    claim): claims the protocol never opens side by side, which only a history changed by hand can hold."""
    if claim.satellite_type == "search" or not claim.scope:
        return []
    line = {a.sess_id for a in snapshot.ancestors(claim.sess_id)}
    return [c for c in find_conflicts(snapshot, claim.scope, exclude=claim.sess_id)
            if c.sess_id not in line and c.status != CORRUPT]


def _check_held_twice(snapshot: BrainSnapshot, claim: Claim, file: str) -> None:
    """No claim acts while another blocking claim, outside its own tree line, holds an intersecting scope.

    The protocol never opens two such claims (SPEC 5.3), but a history moved by hand can hold them both (a
    `git pull` merging another machine's claim, a `git revert` of a close). What git holds is in force
    (SPEC 22), so neither may act until a human aborts or releases one: which one was meant is not the
    product's to guess. Ancestors and descendants are the delegation of SPEC 5.3, whatever their status.

    Raises:
        PreflightRefused: code 4, naming the other holders.
    """
    others = shared_scope(snapshot, claim)
    if others:
        raise _refuse(
            CLAIM_NOT_OPEN,
            f"claim {claim.sess_id} shares its scope with {'; '.join(c.describe() for c in others)}, "
            f"which the protocol never opens (a history changed by hand): a human aborts or releases one "
            f"(`bsi gate abort <id> REASON`)",
            claim.sess_id, file, status=claim.status, blocked_by=[c.sess_id for c in others],
        )


def _check_search_write(snapshot: BrainSnapshot, claim: Claim, file: str) -> None:
    """A search claim is read-only "or nearly": it never writes a file another blocking claim holds.

    Its own open ancestors and its descendants are not "another" (delegation, SPEC 5.3).

    Raises:
        PreflightRefused: code 1, naming the holder.
    """
    exempt = {claim.sess_id, *delegating_chain(snapshot, claim.parent)}
    exempt.update(c.sess_id for c in snapshot.descendants(claim.sess_id))
    target = resolve_in_brain(snapshot.root, file)  # the file a link leads to is the one written
    entry = ScopeEntry(FILE, file, "", target if target and target != file else "")
    holders = [c for c in find_conflicts(snapshot, (entry,)) if c.sess_id not in exempt]
    if holders:
        names = "; ".join(c.describe() for c in holders)
        raise _refuse(
            SCOPE_VIOLATION,
            f"scope violation: {claim.sess_id} is a search claim and {file} is held: {names}: "
            f"a search claim writes only files no other claim holds (signal the holder, or open a claim)",
            claim.sess_id, file, holders=[c.sess_id for c in holders],
        )


def _check_unreadable_holders(snapshot: BrainSnapshot, claim: Claim, file: str) -> None:
    """A claim file that does not read may hold `file` (SPEC 22: it fails closed): no other claim writes it.

    Raises:
        PreflightRefused: code 1, naming the file and its repair.
    """
    holders = unreadable_holders(snapshot, file, exclude=claim.sess_id)
    if holders:
        raise _refuse(
            SCOPE_VIOLATION,
            f"scope violation: {file} may be held by a claim file that does not read: "
            f"{'; '.join(c.describe() for c in holders)}",
            claim.sess_id, file, holders=[c.path for c in holders],
        )


@record
class PreflightResult(JsonShaped):
    """A preflight that let the write go (a refusal raises `PreflightRefused` instead); its JSON shape is
    that of `bsi preflight check`: ``{sess_id, file, code: 0, check: "go"}``."""

    _json_extra = ("check",)

    sess_id: str
    file: str
    code: int = GO

    @property
    def check(self) -> str:
        """The name of the check behind the code (``go``)."""
        return CHECK_NAMES[self.code]

def refused_before(snapshot: BrainSnapshot, config: BrainConfig, sess_id: str, file: str) -> PreflightRefused | None:
    """The refusal of the checks that come before any other (SPEC 10: 4, then 1, then 5) for `file`, or None.

    A file no agent writes (a protocol file, brain-compose.yml, an agent client's settings) is refused whatever
    the claim; `bsi preflight check` still answers with the code of the first of these checks that fails, so an
    unknown claim is 4, a file outside the scope 1 and a kernel-zone file written by a satellite 5 there too.
    An agent's claim is judged as the write decision judges it (`authority.judged`).
    """
    from brain_tui.core.rules.authority import judged

    try:
        check(judged(snapshot), config, sess_id, file)
    except PreflightRefused as exc:
        if exc.exit_code in (CLAIM_NOT_OPEN, SCOPE_VIOLATION, ZONE_VIOLATION):
            return exc
    return None


def check(
    snapshot: BrainSnapshot,
    config: BrainConfig,
    sess_id: str,
    file: str,
    current_branch: str | Callable[[], str] | None = None,
    tree: bool = False,
) -> int:
    """Run the preflight checks of SPEC 10 for one write of `file` (brain-relative) by `sess_id`; 0 (go).

    `current_branch`: the checked-out branch, or a callable giving it (called only for a claim with a
    `theme_branch`); None counts as no branch. `tree`: `file` is a folder written whole (`rm -r`, an extraction
    into it): a claim's own folder is in its scope, and a kernel-zone entry below it is in the zone.

    Raises:
        InvalidData: the session ID is malformed or its claim file is corrupt (65).
        PreflightRefused: with code 4, 1, 5, 2, 3 or 6 — the first failing check in
            that order — and a message that says what unblocks it.
    """
    claim = check_claim(snapshot, sess_id, file)
    try:
        norm = lock_file_path(file)
    except InvalidData as exc:
        raise _refuse(SCOPE_VIOLATION, f"scope violation: {exc.message} — never outside the claim's scope",
                      sess_id, file) from None
    if not covers_file(claim.scope, norm, snapshot.root, tree=tree):
        scope = claim.scope_text or "(no readable scope)"
        raise _refuse(
            SCOPE_VIOLATION,
            f"scope violation: {norm} is outside the scope of {sess_id} ({scope}): "
            f"signal BLOCKED_ON the pilot, or work under a claim whose scope covers it",
            sess_id, norm, scope=scope,
        )
    linked = hard_linked(snapshot.root, norm)
    if linked is not None:
        raise _refuse(SCOPE_VIOLATION, f"scope violation: {norm}: {linked}", sess_id, norm)
    if claim.satellite_type == "search":
        _check_search_write(snapshot, claim, norm)
    _check_unreadable_holders(snapshot, claim, norm)
    # Any claim in a tree (with a parent) is a satellite for the zone check, whatever its `type` says.
    satellite = claim.type == "satellite" or claim.parent is not None
    real = resolve_in_brain(snapshot.root, norm) or norm  # a link into the zone writes the zone's file
    zone, root = config.kernel_zone, snapshot.root
    inside = in_zone(norm, zone, root) or in_zone(real, zone, root)
    if satellite and not config.kerneluser and (inside or (
            tree and (zone_below(norm, zone, root) or zone_below(real, zone, root)))):
        what = "is in the kernel zone" if inside else "holds files of the kernel zone"
        raise _refuse(
            ZONE_VIOLATION,
            f"zone violation: {norm} {what} and {sess_id} is a satellite: "
            f"a human writes it (human gate: `bsi gate request {sess_id} …`), or set `kerneluser: true`",
            sess_id, norm,
        )
    held = live_lock_of_other(snapshot, norm, sess_id, tree)  # (a folder written whole: the files below it too)
    if held is not None:
        until = format_timestamp(held.expires_at, snapshot.tz) if held.expires_at else "unknown"
        what = norm if not tree else f"{norm}/ holds {held.file}, which"
        raise _refuse(
            FILE_LOCKED,
            f"{what} is locked by {held.holder} until {until}: wait for `bsi lock release` or expiry, then retry",
            sess_id, norm, holder=held.holder, expires_at=until,
        )
    bad = corrupt_lock_of(snapshot, norm, tree) if tree or live_lock(snapshot, norm) is None else None
    if bad is not None:  # it may hold the lock (SPEC 22): locked until repaired
        raise _refuse(
            FILE_LOCKED,
            f"{norm} may be locked: its lock file {bad.path} does not read (line {bad.line}: {bad.reason}); "
            "fix or remove it by hand, then retry",
            sess_id, norm, path=bad.path,
        )
    breaker = circuit_state(claim, config.max_consecutive_fails)
    if breaker.tripped:
        raise _refuse(
            CIRCUIT_TRIPPED,
            f"circuit breaker tripped for {sess_id} ({breaker.fails}/{breaker.max_fails} consecutive failures): "
            f"stop; after fixing the cause, `bsi preflight reset {sess_id}`",
            sess_id, norm, fails=breaker.fails, max=breaker.max_fails,
        )
    wanted = claim.theme_branch
    if wanted:
        branch = current_branch() if callable(current_branch) else (current_branch or "")
        if branch != wanted:
            raise _refuse(
                WRONG_BRANCH,
                f"wrong branch: {sess_id} works on {wanted}, the checkout is on {branch or '(no branch)'}: "
                f"`git checkout {wanted}`",
                sess_id, norm, branch=branch, theme_branch=wanted,
            )
    return GO
