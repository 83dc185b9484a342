"""The claims of a session a human holds (SPEC 6.3, 21.2, 21.3): paused, waiting at a gate, also stale while so,
or under a paused or failed ancestor. Such a claim stops its session's shell, and its session's writes into its
scope through any other claim the session holds (a domain above a paused leaf): the human stopped that session."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from brain_tui.core.errors import BsiError, TransitionRefused
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import Status
from brain_tui.core.rules.authority import Actor
from brain_tui.core.rules.conflicts import find_conflicts
from brain_tui.core.rules.effective import is_held, is_held_pause

Refusal = tuple[str, BsiError]


def refusals(snapshot: BrainSnapshot, bound: Sequence[str]) -> tuple[list[Refusal], list[Refusal], bool]:
    """``(held, refused, acts)``: each of `bound` a human holds with the claim check's refusal of it (SPEC 10, code
    4), each of `bound` the check refuses, and whether one of `bound` may act now. A claim `snapshot` does not hold
    (finished) holds nothing back."""
    from brain_tui.core.rules import preflight

    held: list[Refusal] = []
    refused: list[Refusal] = []
    for sess_id in bound:
        try:
            preflight.check_claim(snapshot, sess_id)
        except BsiError as exc:
            refused.append((sess_id, exc))
            claim = snapshot.claim(sess_id)
            if claim is not None and (exc.payload.get("blocked_by") or is_held(claim, snapshot.now)):
                held.append((sess_id, exc))
    return held, refused, len(refused) < len(bound)


def holding(snapshot: BrainSnapshot, held: list[Refusal], file: str, root: str) -> Refusal | None:
    """The first of `held` whose scope holds `file` (brain-relative; a folder ends in ``/``), else None."""
    from brain_tui.core.errors import InvalidData
    from brain_tui.core.paths.scope import parse_scope

    if not held:
        return None
    try:
        entries = parse_scope([file], root, typed=False)  # a path written, not a scope typed
    except InvalidData:
        return None
    holders = {c.sess_id for c in find_conflicts(snapshot, entries)}
    return next((item for item in held if item[0] in holders), None)


def require_none_held(snapshot: BrainSnapshot, actor: Actor, agent_session: str | None = None) -> None:
    """An agent whose session a human braked opens no claim (SPEC 6.3, 21.2): the pause stopped that session, and a
    claim opened after it would be work the human never saw, its edit tools writing there.

    The session's claims are those `actor` speaks for (`$BSI_SESSION`, opened through its MCP server, bound on this
    machine) and those whose `agent_session:` is one of its sessions (or `agent_session`, the one the open binds),
    or one recorded for its agent process (a shell naming a fresh session ID for one command is the same agent).
    A brake is a claim paused (also stale while so) or one under a paused, failed or unreadable ancestor. A claim
    waiting at a gate holds its own scope only: the session asked a question about that work, and may open other.

    Raises:
        TransitionRefused: one of them is braked: 12, naming it and who unblocks it.
    """
    sessions = actor.agent_sessions | actor.process_sessions | ({agent_session} if agent_session else set())
    braked = braking(snapshot, sessions, actor.claims | actor.process_claims)
    if braked:
        sess_id, error = braked[0]
        raise TransitionRefused(
            f"cannot open a claim: {error.message}. While a human holds a claim of this session paused, it opens "
            "no other", {"sess_id": sess_id, "held": [item[0] for item in braked]})


def braking(snapshot: BrainSnapshot, sessions: Collection[str], claims: Collection[str]) -> list[Refusal]:
    """The braked claims of a session (those in `claims`, or whose `agent_session:` is one of `sessions`), each with
    the claim check's refusal of it: paused (also stale while so), or under a paused, failed or unreadable
    ancestor (`blocked_by`). A claim waiting at a gate brakes nothing but its own scope."""
    mine = [c.sess_id for c in snapshot.claims
            if c.sess_id in claims or (c.agent_session is not None and c.agent_session in sessions)]
    braked = []
    for sess_id, error in refusals(snapshot, mine)[0]:
        claim = snapshot.claim(sess_id)
        if error.payload.get("blocked_by") or (claim is not None and is_held_pause(claim, snapshot.now)):
            braked.append((sess_id, error))
    return braked


def paused_elsewhere(snapshot: BrainSnapshot, claim: Claim, exclude: Collection[str]) -> Claim | None:
    """The claim of `claim`'s session (its `agent_session:`) a human holds paused, on another tree, else None: asked of
    an open this clone made that the remote did not hold when the pause landed there (an open made before its sync
    brought that pause in), which the pause refuses (SPEC 6.3, 22). No time tells the two apart: an agent's `--now`
    may run behind the machine's clock and date an open made after the pause before it, so such an open is lost
    whatever time it bears (one pushed before the pause is on the remote, and stays). `exclude`: claims not to count
    (those the same clone made, which it saw); `claim`'s own tree is held by the chain rule, not here."""
    if claim.agent_session is None or claim.status != Status.OPEN:
        return None  # a claim a human holds is theirs to end; one ended is past losing
    tree = {claim.sess_id} | {a.sess_id for a in snapshot.ancestors(claim.sess_id)}
    for sess_id, error in braking(snapshot, {claim.agent_session}, ()):
        braked = snapshot.claim(sess_id)
        if braked is None or sess_id in tree or sess_id in exclude or \
                claim.sess_id in {a.sess_id for a in snapshot.ancestors(sess_id)}:
            continue  # its own tree: held by the chain rule (its pause cascaded down from above, or to below)
        source = snapshot.claim(str(error.payload.get("blocked_by") or sess_id)) or braked
        if is_held_pause(source, snapshot.now):  # a pause (of it, or of the ancestor it is blocked by)
            return braked
    return None
