"""The protocol's closed vocabularies: claim statuses (SPEC 6.3), signal states (SPEC 7), gate origins, close results.

Each is a `StrEnum`: a member equals its string (``Status.OPEN == "open"``, same hash), so files,
JSON and BRAIN-INDEX.md read and write the very same text. Every set of statuses a rule needs is
derived here from the enum, never spelled out again.
"""

from __future__ import annotations

from enum import StrEnum

TYPE_CHECKING = False  # `typing` itself is not loaded on the hook's fast path (mypy reads the name)

if TYPE_CHECKING:
    from typing import Self


class _Vocabulary(StrEnum):
    """A closed vocabulary read from files: `of` finds a member without raising on an unknown word."""

    @classmethod
    def of(cls, text: str) -> Self | None:
        """The member spelled exactly `text`, or None (an unknown legacy word is data, not an error)."""
        member = cls._value2member_map_.get(text)
        return member if isinstance(member, cls) else None


class Status(_Vocabulary):
    """Claim statuses (SPEC 6.3). A status the product does not know is kept as written (a plain str)."""

    OPEN = "open"
    WAITING_HUMAN = "waiting_human"
    PAUSED = "paused"
    STALE = "stale"
    CLOSED = "closed"
    FAILED = "failed"
    RELEASED = "released"


class SignalState(_Vocabulary):
    """Signal states (SPEC 7): ack → delivered; 24 h after delivery → archived."""

    PENDING = "pending"
    DELIVERED = "delivered"
    ARCHIVED = "archived"


class GateOrigin(_Vocabulary):
    """Why a claim waits for a human (``gate_origin:``): a gate request, or a `gate:human` exit trigger at close."""

    REQUEST = "request"
    CLOSE = "close"


class ResultStatus(_Vocabulary):
    """A close's result status (``result.status``, ``bsi claim close --status``): how the work ended."""

    OK = "ok"
    PARTIAL = "partial"
    FAILED = "failed"


#: Every status of SPEC 6.3; any other (after `formats.normalize_status`) is kept, blocks, and is flagged.
KNOWN_STATUSES: frozenset[Status] = frozenset(Status)
#: Terminal statuses (SPEC 6.3): nothing leaves them.
TERMINAL_STATUSES: frozenset[Status] = frozenset({Status.CLOSED, Status.FAILED, Status.RELEASED})
#: The known statuses that block overlapping claims (SPEC 5.3): every non-terminal one.
BLOCKING_STATUSES: frozenset[Status] = KNOWN_STATUSES - TERMINAL_STATUSES
#: Statuses a live (non-terminal, non-stale) claim has in the table of SPEC 6.3, in the table's order.
LIVE_STATUSES: tuple[Status, ...] = tuple(s for s in Status if s in BLOCKING_STATUSES and s is not Status.STALE)
#: Renew is allowed while a claim is live: a gate or a pause keeps counting its TTL (issue 13).
RENEWABLE: tuple[Status, ...] = LIVE_STATUSES
#: What a pause cascades over (SPEC 6.3: ``open, waiting_human → paused``).
PAUSABLE: frozenset[Status] = frozenset({Status.OPEN, Status.WAITING_HUMAN})
#: The known statuses an abort leaves from (SPEC 6.3: any non-terminal, stale included).
ABORTABLE: frozenset[Status] = BLOCKING_STATUSES
#: The result statuses a close accepts, in the order the CLI and the cockpit offer them.
RESULT_STATUSES: tuple[ResultStatus, ...] = tuple(ResultStatus)
