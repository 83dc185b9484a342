"""JSON-ready views of claims and signals (SPEC 19 shapes), shared by the CLI and the cockpit."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path

from brain_tui.core.clock import format_timestamp
from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.scope import format_scope
from brain_tui.core.paths.text_safety import inert_line
from brain_tui.core.records.model import TIER_NAMES, BrainSnapshot, Claim, Signal, tier_of
from brain_tui.core.records.statuses import BLOCKING_STATUSES, Status

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

#: At most this many stale claims are named in the start-of-session notice.
STALE_NAMED = 10
#: How much of a brain file is shown (`shown_file`): a claim file over it is corrupt anyway (SPEC 13).
SHOWN_BYTES = 64 * 1024


def shown_file(root: str | os.PathLike[str], rel: str) -> str:
    """The raw text of brain file `rel` as shown to a person (`bsi claim show`, the cockpit's detail view): its
    first `SHOWN_BYTES` (a note when cut), or one line saying why it cannot be read. A FIFO, a device or a socket
    planted there is never read (never waited on)."""
    from brain_tui.core.records.yamlio import read_capped

    try:
        data = read_capped(Path(root) / rel, SHOWN_BYTES + 1)
    except OSError as exc:
        return f"(cannot read {rel}: {exc.strerror or type(exc).__name__})"
    if data is None:
        return f"(cannot read {rel}: it is no regular file (a folder, a FIFO, a device or a socket))"
    text = data[:SHOWN_BYTES].decode("utf-8", "replace")
    return text + ("\n… (truncated at 64 KiB)" if len(data) > SHOWN_BYTES else "")


def plain(value: Any) -> Any:
    """A JSON-safe copy of parsed YAML data (dates as ISO text)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def claim_json(claim: Claim, snapshot: BrainSnapshot) -> dict[str, Any]:
    """A claim as the claim file's fields plus `level`, `tier` and a few derived fields; its times with their
    UTC offset."""
    out: dict[str, Any] = plain(claim.data)
    out["sess_id"] = claim.sess_id
    out["status"] = claim.status
    out["type"] = claim.type
    out["scope"] = format_scope(claim.scope) if claim.scope else claim.scope_text
    if claim.opened_at is not None:  # a legacy naive time as the instant it was read as (SPEC 3)
        out["opened_at"] = format_timestamp(claim.opened_at, snapshot.tz)
    if claim.closed_at is not None:  # the v1 `closed:` included
        out["closed_at"] = format_timestamp(claim.closed_at, snapshot.tz)
    if claim.expires_at is not None:
        out["expires_at"] = format_timestamp(claim.expires_at, snapshot.tz)
        out["ttl_left_s"] = int((claim.expires_at - snapshot.now).total_seconds())
    tier = tier_of(claim)
    out["level"] = claim.level
    out["tier"] = tier
    out["tier_name"] = TIER_NAMES[tier]
    out["flags"] = list(claim.flags)
    out["path"] = claim.path
    return out


def claim_result(sess_id: str, after: BrainSnapshot | None, read: Callable[[], BrainSnapshot],
                 outcome: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A write's `--json` result on one claim (the CLI's and the MCP tool's): the claim as it now is (`claim_json`,
    from `after`, the brain the write left, else `read()`), with the write's own keys (`outcome`) over it."""
    if after is None or after.claim(sess_id) is None:
        after = read()
    claim = after.claim(sess_id)
    return {**(claim_json(claim, after) if claim is not None else {"sess_id": sess_id}), **(outcome or {})}


def listed_claims(snapshot_of: Callable[[Collection[str] | None], BrainSnapshot], status: Sequence[str] | None,
                  every: bool) -> tuple[list[Claim], BrainSnapshot]:
    """The claims `claim list` shows (the CLI's and the MCP tool's), and the snapshot they come from.

    `status` lists only those statuses; else every claim not ended (one of a status the product does not know
    included: it blocks), or every claim with `every`. Only the statuses
    listed are read, so closed history is skipped through the parse cache's hints.

    Raises:
        InvalidData: a status that is not one of SPEC 6.3's (exit 65).
    """
    wanted = set(status) if status else None
    unknown = sorted((wanted or set()) - {s.value for s in Status})
    if unknown:
        known = ", ".join(s.value for s in Status)
        raise InvalidData(f"invalid status {', '.join(map(repr, unknown))}: one of {known}")
    snapshot = snapshot_of(wanted or (None if every else BLOCKING_STATUSES))
    claims = [c for c in snapshot.claims
              if (c.status in wanted if wanted is not None else every or not c.is_terminal)]
    return claims, snapshot


def signal_json(sig: Signal) -> dict[str, Any]:
    """A signal as its file's fields."""
    out: dict[str, Any] = plain(sig.data)
    out.update({"sig_id": sig.sig_id, "from": sig.sender, "to": sig.to, "type": sig.type,
                "state": sig.state, "payload": sig.payload, "scope": sig.scope, "path": sig.path})
    return out


def stale_notice(snapshot: BrainSnapshot) -> str | None:
    """What a session starting while stale claims exist is told (seed 000: "contrôle humain requis"); else None.

    Stale claims block their scope until a human releases them (SPEC 5): the session is to get a human's action
    before going on. IDs and scopes are brain text, made inert.
    """
    stale = [c for c in snapshot.claims if c.status == Status.STALE]
    if not stale:
        return None
    named = "; ".join(f"{inert_line(c.sess_id, 80)} (scope {inert_line(c.scope_text, 120)}"
                      f"{', stale since ' + inert_line(c.stale_since, 30) if c.stale_since else ''})"
                      for c in stale[:STALE_NAMED])
    more = f"; and {len(stale) - STALE_NAMED} more" if len(stale) > STALE_NAMED else ""
    plural = len(stale) != 1
    return (f"{len(stale)} stale claim{'s' if plural else ''} need{'' if plural else 's'} a human's action before "
            f"going on: "
            f"{named}{more}. Ask the human to release each one (`bsi claim release ID --reason TEXT`, or the "
            "cockpit's stale pane) or its holder to close it; until then their scopes stay blocked.")
