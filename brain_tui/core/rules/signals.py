"""Signals: send, acknowledge, archive, list (SPEC 7). One file per signal.

Every signal the product writes (gates, closes, triggers, the circuit breaker,
`bsi signal send`) goes through `ChangeSet.add_signal`.
"""

from __future__ import annotations

from datetime import timedelta

from brain_tui.core.errors import InvalidData, NotFound, NotYours, ProductOnly
from brain_tui.core.ids import SIGNAL_ID_RE, valid_session_id
from brain_tui.core.ids import SIGNAL_TYPE_RE as SIGNAL_TYPE_RE  # re-exported
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.model import BrainSnapshot, CorruptFile, Signal
from brain_tui.core.records.statuses import SignalState

# The rules of who may send and acknowledge, the text limits and the partial read are imported by the
# functions that use them: `signal list` loads none of them (start-up, issue 18).
TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from brain_tui.core.records.changes import ChangeSet
    from brain_tui.core.rules.authority import Actor

ARCHIVE_AFTER = timedelta(hours=24)
#: Who a signal is from or to: an ID, `x@machine`, `human:NAME`, `pilote`/`parent` — one printable token.
ADDRESS_RE = LazyPattern(r"^[A-Za-z0-9._:@+-]{1,200}\Z")
#: Types only the product writes (a gate request, a pause, a tripped breaker, an unblock): never an agent's send.
PRODUCT_SIGNAL_TYPES = frozenset({"HUMAN_GATE", "PAUSED", "CIRCUIT_BREAK", "UNBLOCK"})
_PRODUCT_WAY = {
    "HUMAN_GATE": "request a gate on its own claim (`bsi gate request ID MESSAGE`)",
    "PAUSED": "only a human pauses (the cockpit or `bsi gate pause`)",
    "CIRCUIT_BREAK": "record failures (`bsi preflight fail ID`): the breaker trips by itself",
    "UNBLOCK": "only the product unblocks a claim",
}


def check_agent_type(sig_type: str, via: str = "") -> None:
    """An agent never sends a type the product writes (SPEC 21.2), directly or through its claim's exit trigger.

    `sig_type` in any case and spacing; `via`: how it was asked when not by a send, for the message.

    Raises:
        ProductOnly: HUMAN_GATE, PAUSED, CIRCUIT_BREAK or UNBLOCK (77).
    """
    kind = sig_type.strip().upper()
    if kind in PRODUCT_SIGNAL_TYPES:
        how = f" (through {via})" if via else ""
        raise ProductOnly(f"an agent cannot send {kind}{how}: the product writes it; {_PRODUCT_WAY[kind]}",
                          {"type": kind})


def check_agent_send(snapshot: BrainSnapshot, actor: Actor, sender: str, sig_type: str) -> None:
    """What an agent may send (SPEC 21.2, 21.4): never a product-only type, and only from its own claim.

    Raises:
        ProductOnly: HUMAN_GATE, PAUSED, CIRCUIT_BREAK or UNBLOCK (77).
        NotYours: the sender is not a claim the agent holds (77), naming its holder.
        NotFound: the sender claim does not exist (66).
    """
    from brain_tui.core.rules.authority import claims_list, require_owner

    check_agent_type(sig_type)
    name = sender.strip()
    if not valid_session_id(name):
        raise NotYours(f"an agent sends signals only from its own claim, not as {name[:80]!r}: "
                       f"--from ID (its claims: {claims_list(actor)})", {"sender": name[:200]})
    claim = snapshot.claim(name)
    if claim is None:
        raise NotFound(f"sender claim {name} not found")
    require_owner(actor, claim, snapshot, "send a signal from")


def check_sender(sender: str) -> None:
    """Who a signal is from (SPEC 7): a session ID, an instance (`brain_name@machine`) or `human:NAME`.

    A human's name and a brain's name may hold spaces or accents (`human:Alice <a@x.org>`, the default
    instance of a brain folder `Mon cerveau`); a word that starts as a session ID must be one (SPEC 4: never a
    `/`), and an instance has its `@machine`.

    Raises:
        InvalidData: anything else (65).
    """
    text = sender.strip()
    valid = bool(text) and len(sender) <= 200 and all(ch.isprintable() for ch in sender)
    head, at, machine = text.partition("@")
    if not valid or text.startswith("human:"):
        valid = valid and bool(text[len("human:"):].strip())
    elif head.startswith("sess-"):
        valid = valid_session_id(head) and (not at or bool(ADDRESS_RE.match(machine)))
    else:  # an instance is brain_name@machine (SPEC 4): a bare word names no one who could answer
        valid = bool(at) and bool(head.strip()) and bool(ADDRESS_RE.match(machine))
    if not valid:
        raise InvalidData(f"invalid sender {sender[:80]!r}: a session ID, an instance (brain_name@machine) or "
                          "human:NAME, on one line")


def send_signal(cs: ChangeSet, sender: str, to: str, sig_type: str, payload: str, scope: str = "") -> str | None:
    """Stage one pending signal; `pilote`/`parent` destinations resolve through the sender's tree.

    Returns the new signal ID, or None when an identical pending signal already exists; InvalidData for a bad
    type or an empty destination.
    """
    from brain_tui.core.paths.limits import check_text

    sig_type = sig_type.strip().upper()
    if not SIGNAL_TYPE_RE.match(sig_type):
        raise InvalidData(f"invalid signal type {sig_type!r}: an uppercase word like CHECKPOINT")
    if not to.strip():
        raise InvalidData("a signal needs a destination: --to X")
    dest = to.strip()
    if not ADDRESS_RE.match(dest):
        raise InvalidData(f"invalid destination {dest[:80]!r}: a session ID, sess-id@machine, brain@machine, "
                          "human:NAME, pilote or parent (one word: no spaces or control characters)")
    check_sender(sender)
    sender = sender.strip()  # the claim or party it names (an agent's send is checked on that name)
    if scope.strip():
        try:
            parse_scope(scope, cs.root)
        except InvalidData as exc:
            raise InvalidData(f"invalid signal scope: {exc.message}") from None
    check_text("message", payload)
    if valid_session_id(sender) and dest.lower() in ("pilote", "pilot", "parent"):
        claim = cs.snapshot.claim(sender)
        if claim is None:
            raise NotFound(f"cannot resolve {dest!r}: sender claim {sender} not found")
        dest = cs.snapshot.resolve_destination(claim, dest)
    sig_id = cs.add_signal(sender, dest, sig_type, payload, scope)
    if sig_id:
        cs.message = f"bsi: signal {sig_id} pending"
    return sig_id


def check_agent_ack(snapshot: BrainSnapshot, actor: Actor, sig_id: str, by: str | None = None) -> str:
    """An agent acknowledges only a signal addressed to one of its own claims (SPEC 21.4); that claim's ID, which
    signs the acknowledgement (a session's `by` is its ID, SPEC 6.3). `by`, when given, must be that ID: an
    agent never records an acknowledgement in another's name (a human's, another claim's, an instance's).

    Raises:
        InvalidData / NotFound: a malformed or unknown signal ID (65 / 66).
        NotYours: addressed to another session's claim, a human or a broadcast, or `by` naming anyone but the
            claim it is addressed to (77), naming who it is for.
    """
    from brain_tui.core.rules.authority import claims_list, holder_text, owns

    sig = require_signal(snapshot, sig_id)
    dest = snapshot.claim(sig.to.split("@", 1)[0])
    if dest is not None and owns(actor, dest, snapshot):
        if by is not None and by.strip() != dest.sess_id:
            raise NotYours(f"cannot acknowledge {sig_id} as {by.strip()[:80]!r}: an agent's acknowledgement is signed "
                           f"by the claim it acknowledges for ({dest.sess_id}); leave --by out",
                           {"sig_id": sig_id, "by": by.strip()[:200], "holder": dest.sess_id})
        return dest.sess_id
    held = f", held by {holder_text(dest)}" if dest is not None else ""
    raise NotYours(f"cannot acknowledge {sig_id}: it is addressed to {sig.to}{held}; this agent acknowledges only "
                   f"signals to its own claims (its claims: {claims_list(actor)})", {"sig_id": sig_id, "to": sig.to})


def require_signal(snapshot: BrainSnapshot, sig_id: str) -> Signal:
    """The signal with this ID (65 for a malformed ID, 66 when missing)."""
    if not SIGNAL_ID_RE.match(sig_id):
        raise InvalidData(f"invalid signal ID {sig_id!r}: expected sig-…")
    for sig in snapshot.signals:
        if sig.sig_id == sig_id:
            return sig
    for bad in snapshot.corrupt:
        if bad.path in (f"signals/{sig_id}.yml", f"signals/{sig_id}.yaml"):
            raise InvalidData(f"signal {sig_id} is corrupt: {bad.path} line {bad.line}: {bad.reason}")
    from brain_tui.core.records.written import PartialSnapshot

    if isinstance(snapshot, PartialSnapshot):
        snapshot.misses.add(sig_id)  # maybe archived, not read: the action is decided again on the whole brain
    raise NotFound(f"signal {sig_id} not found")


def corrupt_signals(snapshot: BrainSnapshot) -> list[CorruptFile]:
    """The signal files that did not load (shown as corrupt rows by `signal list`)."""
    return [bad for bad in snapshot.corrupt if bad.path.startswith("signals/")]


def ack_signal(cs: ChangeSet, sig_id: str, by: str) -> bool:
    """pending → delivered. Returns False when it was already delivered or archived."""
    sig = require_signal(cs.snapshot, sig_id)
    if sig.state != SignalState.PENDING:
        return False
    cs.update_signal(sig.path, {"state": SignalState.DELIVERED, "delivered_at": cs.ts(), "delivered_by": by})
    cs.message = f"bsi: signal {sig_id} delivered"
    return True


def archive_signals(cs: ChangeSet) -> list[str]:
    """delivered for 24 h or more → archived. Returns the IDs archived."""
    archived = []
    now = cs.snapshot.now
    for sig in cs.snapshot.signals:
        delivered_at = sig.delivered_at if sig.state == SignalState.DELIVERED else None
        if delivered_at is not None and now - delivered_at >= ARCHIVE_AFTER:
            cs.update_signal(sig.path, {"state": SignalState.ARCHIVED, "archived_at": cs.ts()})
            archived.append(sig.sig_id)
    if archived:
        cs.message = f"bsi: signal {' '.join(archived)} archived"
    return archived


def listed_signals(snapshot_of: Callable[[Collection[str] | None], BrainSnapshot], to: str | None, pending: bool,
                   every: bool) -> tuple[list[Signal], list[CorruptFile]]:
    """The signals `signal list` shows (the CLI's and the MCP tool's), pending first, and the corrupt signal files.

    `to`: only those addressed to it (`addressed_to`); `pending`: only pending ones; `every`: archived ones too
    (else none unless `pending`). Without `every` the live read holds them (no closed claim, no archived signal);
    a `to` naming a session it lacks (its instance decides a broadcast) reads the whole brain.

    Raises:
        InvalidData: `to` given blank (`list_target`).
    """
    from brain_tui.core.records.statuses import BLOCKING_STATUSES

    target = list_target(to)
    snapshot = snapshot_of(None if every else BLOCKING_STATUSES)
    if not every and valid_session_id(target) and snapshot.claim(target) is None:
        snapshot = snapshot_of(None)
    sigs = [s for s in snapshot.signals
            if (not pending or s.state == SignalState.PENDING)
            and (every or pending or s.state != SignalState.ARCHIVED)
            and addressed_to(s, target, snapshot)]
    sigs.sort(key=lambda s: (s.state != SignalState.PENDING,))
    return sigs, corrupt_signals(snapshot)


def list_target(to: str | None) -> str:
    """The destination a listing filters on: None (not given) lists every signal ("").

    Raises:
        InvalidData: `to` is given blank (an unset variable in a script): never every session's signals instead.
    """
    if to is None:
        return ""
    if not to.strip():
        raise InvalidData("a blank destination lists nothing: give --to X, or leave --to out for every signal")
    return to.strip()


def addressed_to(sig: Signal, target: str, snapshot: BrainSnapshot) -> bool:
    """True when `sig` is for `target`: exact ID, `sess@machine`, or a `brain@machine` broadcast."""
    if not target:
        return True
    if sig.to == target or sig.to.split("@", 1)[0] == target:
        return True
    claim = snapshot.claim(target)
    return bool(claim and claim.instance and sig.to == claim.instance)
