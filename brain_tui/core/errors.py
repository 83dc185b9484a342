"""Errors that carry the exit code SPEC 19 gives them."""

from __future__ import annotations

import errno
import os

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any


class BsiError(Exception):
    """Base error: a stable exit code, and a one-line message saying what is wrong and, where useful, what to do
    (with an optional machine-readable `payload` for `--json` output)."""

    exit_code: int = 1
    #: True when what the refused action staged (a signal telling the parent or a holder) is still written.
    commit_staged: bool = False
    #: A stable name for the refusal where the exit code alone does not tell (`HumanOnly`, `NotYours`).
    kind: str | None = None
    #: Whether calling again later may succeed, where the exit code alone does not tell (None: as the code says).
    retryable: bool | None = None

    def __init__(self, message: str, payload: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.payload = payload or {}


class UsageError(BsiError):
    """Unknown command or flag (exit 64)."""

    exit_code = 64


class InvalidData(BsiError):
    """Bad scope, TTL, ID, status, date, or a corrupt target file (exit 65)."""

    exit_code = 65


class NotFound(BsiError):
    """Brain, claim or signal not found (exit 66)."""

    exit_code = 66


class ConflictError(BsiError):
    """A claim was refused because it intersects blocking claims (exit 10)."""

    exit_code = 10


class TierRefused(BsiError):
    """A close was refused: the tier requirement is not met (exit 11)."""

    exit_code = 11


class TransitionRefused(BsiError):
    """The action is not allowed from the claim's current status (exit 12)."""

    exit_code = 12


class ScopeDrift(BsiError):
    """`verify` found files changed outside the session's scope (exit 13)."""

    exit_code = 13


class RemoteUnreachable(BsiError):
    """The git remote could not be reached (exit 69).

    `reason` says what happened; `advice`, when given, what a command line's user can do about it (`--offline`,
    `--sync`), joined to it by `sep` in the message. A front-end without those flags (the MCP tools) gives `reason`
    with advice of its own. `retry_helps` is False when trying again later cannot succeed (no remote at all), so
    no advice says to.
    """

    exit_code = 69

    def __init__(self, reason: str, payload: dict[str, Any] | None = None, *, advice: str = "",
                 sep: str = "; ", retry_helps: bool = True, kept: bool = False) -> None:
        super().__init__(f"{reason}{sep}{advice}" if advice else reason, payload)
        self.reason = reason
        self.advice = advice
        self.retry_helps = retry_helps
        #: the write was committed here and kept as pending (a push whose answer never came)
        self.kept = kept


class Contended(BsiError):
    """Push retries exhausted (exit 75)."""

    exit_code = 75


class PreflightRefused(BsiError):
    """A preflight or lock check refused, with its SPEC 9/10 code (1-6)."""

    def __init__(self, code: int, message: str, payload: dict[str, Any] | None = None,
                 retryable: bool | None = None) -> None:
        super().__init__(message, payload)
        self.exit_code = code
        self.retryable = retryable


class HumanOnly(BsiError):
    """A human's verb (approve, reject, pause, resume, abort, release) refused inside an agent's process (exit 77).

    `kind` tells it apart from `NotYours`, which shares the exit code (77, EX_NOPERM: not permitted).
    """

    exit_code = 77
    kind = "human_only"


class NotYours(BsiError):
    """An agent acted for a claim it does not hold, or delegated under one (exit 77); the message names the holder."""

    exit_code = 77
    kind = "not_yours"


class ProductOnly(BsiError):
    """An agent sent a signal type only the product writes (HUMAN_GATE, PAUSED, CIRCUIT_BREAK, UNBLOCK) (exit 77)."""

    exit_code = 77
    kind = "product_only"


class CannotWrite(BsiError):
    """The brain cannot be written here: a read-only file system or a denied permission (exit 73, EX_CANTCREAT)."""

    exit_code = 73


class DiskFull(BsiError):
    """The disk (or the user's quota) is full: the write stopped (exit 74, EX_IOERR)."""

    exit_code = 74


#: errno values that say "this place cannot be written", and those that say "no room left".
_CANNOT_WRITE = {errno.EROFS: "the file system is read-only", errno.EACCES: "permission denied",
                 errno.EPERM: "operation not permitted"}
_NO_ROOM = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "the disk quota is exceeded"}


def _where_to_write(agent: bool) -> str:
    """What to do about a read-only brain: an agent's sandbox keeps the protocol files read-only to its shell."""
    if agent:
        return ("inside an agent's sandbox the protocol folders are read-only to its shell: act through the "
                "bsi MCP tools (claim_open, claim_close, signal_send, gate_request, …)")
    return "run it where the brain is writable"


def _file_for_folder(exc: OSError) -> bool:
    """True for `mkdir` finding a file where the folder goes (EEXIST, and what is there is no folder)."""
    if exc.errno != errno.EEXIST or exc.filename is None:
        return False
    return os.path.lexists(exc.filename) and not os.path.isdir(exc.filename)


def os_refusal(exc: OSError, agent: bool) -> BsiError | None:
    """The plain refusal for a write the system refused (read-only, denied, full) or a name it cannot hold (too
    long, a folder where a file goes: invalid data); None for any other OSError.

    The message names the path and says that the command stopped: one line, never a traceback. `agent` is True when
    an agent acts (`rules.authority.current_actor`): the read-only advice differs.
    """
    path = exc.filename if exc.filename is not None else "the brain"
    if exc.errno in _CANNOT_WRITE:
        return CannotWrite(f"cannot write {path}: {_CANNOT_WRITE[exc.errno]}; the command stopped and "
                           f"committed nothing ({_where_to_write(agent)})")
    if exc.errno == errno.ENAMETOOLONG:
        shown = path if len(str(path)) <= 120 else f"{str(path)[:60]}…{str(path)[-40:]}"
        return InvalidData(f"cannot use {shown}: file name too long for the file system; nothing was written")
    if exc.errno in (errno.EISDIR, errno.ENOTDIR) or _file_for_folder(exc):
        kind = "a folder" if exc.errno == errno.EISDIR else "under a file, not a folder" \
            if exc.errno == errno.ENOTDIR else "a file, not a folder"
        return InvalidData(f"cannot write {path}: it is {kind}; nothing was written (move it away, then run the "
                           "command again)")
    if exc.errno in _NO_ROOM:
        return DiskFull(f"cannot write {path}: {_NO_ROOM[exc.errno]}; the command stopped and committed "
                        f"nothing (free some space, then run it again)")
    return None
