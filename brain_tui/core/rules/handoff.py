"""A HANDOFF's follow-up claim: what a `trigger → type:T scope:S` exit trigger asks the pilot to open.

The claim it opens carries the finished satellite's ID and result (seed 002: the result
passes to the satellite it launches), and its launch message says so in one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.model import BrainSnapshot, Claim, Signal
from brain_tui.core.rules.claims import SATELLITE_TYPES, OpenRequest
from brain_tui.core.rules.triggers import handoff_task
from brain_tui.core.sessions.launch import one_line


def handoff_request(snapshot: BrainSnapshot, signal: Signal, instance: str, ttl: timedelta) -> OpenRequest:
    """The claim a HANDOFF signal asks for (``trigger → type:T scope:S``): a satellite of T on S.

    Its parent is the signal's addressee when that is a live claim (the pilot).

    Raises:
        InvalidData: not a HANDOFF, or its payload names no valid type and scope (exit 65).
    """
    if signal.type != "HANDOFF":
        raise InvalidData(f"{signal.sig_id} is a {signal.type} signal: only a HANDOFF asks for a launch")
    task = handoff_task(signal)
    if task is None:
        raise InvalidData(f"{signal.sig_id}: no `type:T scope:S` in its payload")
    task_type, task_scope = task
    if task_type not in SATELLITE_TYPES:
        raise InvalidData(f"{signal.sig_id}: unknown satellite type {task_type!r}")
    entries = parse_scope([task_scope], snapshot.root)
    to = signal.to.split("@", 1)[0]
    parent_claim = snapshot.claim(to)
    parent = parent_claim.sess_id if parent_claim is not None and not parent_claim.is_terminal else None
    story = f"{task_type} on {task_scope} (handoff {signal.sig_id} from {one_line(signal.sender)})"
    extra: dict[str, Any] = {}
    finished = snapshot.claim(signal.sender)
    if finished is not None:  # seed 002: the finished satellite's result goes to the one it launches
        extra["handoff_from"] = finished.sess_id
        if finished.result is not None:
            extra["previous_result"] = plain_result(finished.result.data)
    return OpenRequest(scope=entries, ttl=ttl, instance=instance, story=story, satellite_type=task_type,
                       parent=parent, type="satellite" if parent else None, extra=extra)


#: The result fields a launched satellite is told about (SPEC 6.1 `result:`), in this order.
RESULT_FIELDS = ("status", "files_modified", "tests", "commit", "notes", "signal_id")


def plain_result(data: Mapping[str, Any]) -> dict[str, Any]:
    """The known fields of a claim's `result:` as plain YAML-safe values (strings, numbers, lists of strings)."""
    plain: dict[str, Any] = {}
    for key in RESULT_FIELDS:
        value = data.get(key)
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, (str, int, float)):
            plain[key] = value
        elif isinstance(value, list):
            plain[key] = [str(item) for item in value[:50]]
        elif isinstance(value, Mapping):
            plain[key] = {str(k): v for k, v in value.items() if isinstance(v, (int, str)) and not isinstance(v, bool)}
    return plain


def previous_result_line(claim: Claim) -> str | None:
    """One line naming the satellite this one follows and its result (a HANDOFF's launch), else None."""
    before = claim.data.get("handoff_from")
    result = claim.data.get("previous_result")
    if not isinstance(before, str) or not before:
        return None
    parts = [f"after: {one_line(before)}"]
    if isinstance(result, Mapping):
        if result.get("status"):
            parts.append(f"status {one_line(str(result['status']))}")
        files = result.get("files_modified")
        if isinstance(files, list) and files:
            parts.append("files " + ", ".join(one_line(str(f)) for f in files[:10]))
        if result.get("commit"):
            parts.append(f"commit {one_line(str(result['commit']))}")
        if result.get("notes"):
            parts.append(f"notes {one_line(str(result['notes']))[:300]}")
    return " — ".join(parts)
