"""Exit triggers: what a close sets off (SPEC 6.6) — a signal, a notification, a human gate, a follow-up task.

Triggers are written by hand in every spelling the fixtures use (`→` or `->`,
spacing, a trailing `# comment`); `parse_trigger` reads them all or returns None.
"""

from __future__ import annotations

import re

from brain_tui.core.record import record
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.records.model import Claim, Signal
from brain_tui.core.records.statuses import ResultStatus

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any


@record
class Trigger:
    """A parsed exit trigger."""

    kind: str  # signal | notify | gate | trigger
    sig_type: str = ""
    dest: str = ""
    message: str = ""
    task_type: str = ""
    task_scope: str = ""

_TRIGGER_RE = re.compile(r"^\s*(signal|notify|gate\s*:\s*human|trigger)\s*(?:→|->)\s*(.*)$", re.IGNORECASE)
#: A trigger that names a human gate in any words (``gate:human``, ``human-gate``, ``Gate: Human =>``).
_NAMES_HUMAN_GATE_RE = re.compile(r"\bgate\b.*\bhuman\b|\bhuman\b.*\bgate\b", re.IGNORECASE | re.DOTALL)

def _strip_comment(text: str) -> str:
    quote: str | None = None
    escaped = False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].strip()
    return text.strip()

def parse_trigger(text: str) -> Trigger | None:
    """Parse an exit trigger in any spelling of the fixtures (`→`/`->`, spacing, `# comment`)."""
    match = _TRIGGER_RE.match(str(text))
    if not match:
        return None
    kind = re.sub(r"\s+", "", match.group(1).lower())
    rest = _strip_comment(match.group(2))
    if kind == "signal":
        parts = rest.split()
        if len(parts) != 2:
            return None
        return Trigger("signal", sig_type=parts[0].upper(), dest=parts[1])
    if kind == "notify":
        parts = rest.split(None, 1)
        if not parts:
            return None
        return Trigger("notify", dest=parts[0], message=parts[1] if len(parts) > 1 else "")
    if kind == "gate:human":
        message = rest
        if len(message) >= 2 and message[0] == message[-1] == '"':
            message = re.sub(r'\\(["\\])', r"\1", message[1:-1])
        elif len(message) >= 2 and message[0] == message[-1] == "'":
            message = message[1:-1].replace("''", "'")
        return Trigger("gate", message=message)
    fields = dict(re.findall(r"(type|scope)\s*:\s*(\S+)", rest))
    if "type" not in fields or "scope" not in fields:
        return None
    return Trigger("trigger", task_type=fields["type"], task_scope=fields["scope"])

def trigger_problem(trigger: Trigger, root: str) -> str | None:
    """Why the signal `trigger` would write breaks SPEC 7's grammar (the one `bsi signal send` enforces), else None.

    The type is an uppercase word, the destination one address token, a follow-up task a satellite type on a
    valid scope: a close must never write a signal a send would refuse.
    """
    from brain_tui.core.errors import InvalidData
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.rules.claims import SATELLITE_TYPES
    from brain_tui.core.rules.signals import ADDRESS_RE, SIGNAL_TYPE_RE

    if trigger.kind == "signal" and not SIGNAL_TYPE_RE.match(trigger.sig_type):
        return f"signal type {trigger.sig_type!r} is not an uppercase word like CHECKPOINT"
    if trigger.kind in ("signal", "notify") and not ADDRESS_RE.match(trigger.dest):
        return f"destination {trigger.dest[:80]!r} is not a session ID, instance, human:NAME, pilote or parent"
    if trigger.kind == "trigger":
        if trigger.task_type not in SATELLITE_TYPES:
            return f"type {trigger.task_type[:80]!r} is not one of {', '.join(SATELLITE_TYPES)}"
        try:
            parse_scope(trigger.task_scope, root)
        except InvalidData as exc:
            return exc.message
    return None

def handoff_task(signal: Signal) -> tuple[str, str] | None:
    """The work a HANDOFF signal asks for, as ``(satellite type, scope)``; None when it asks for none.

    A HANDOFF's payload is what a ``trigger → type:T scope:S`` exit trigger wrote
    (``launch type:T scope:S — after …``), read by the same parser as the trigger
    itself, so the cockpit's form, `bsi launch` and the close agree on it. The type
    is returned as written: whether it is a known satellite type is the caller's check.
    """
    if signal.type != "HANDOFF":
        return None
    trigger = parse_trigger(f"trigger → {signal.payload}")
    if trigger is None or trigger.kind != "trigger":
        return None
    return trigger.task_type, trigger.task_scope

def trigger_for(claim: Claim, status: str) -> Trigger | None:
    """The trigger a close with this result status runs (a failed satellite defaults to BLOCKED_ON its parent).

    A trigger written by hand that does not parse but names a human gate (``gate:human``
    without an arrow, ``human-gate → …``, a YAML list holding one) is a human gate all the
    same, its text as the message: a close never skips a gate because of its spelling.
    """
    written = claim.exit_triggers
    if status == ResultStatus.OK:
        raw = written.get("on_done")
    elif status == ResultStatus.PARTIAL:
        raw = written.get("on_partial") or written.get("on_done")
    else:
        raw = written.get("on_fail")
        if not raw:
            return Trigger("signal", sig_type="BLOCKED_ON", dest="parent") if claim.parent else None
    if not raw:
        return None
    parsed = parse_trigger(raw)
    if parsed is None and _NAMES_HUMAN_GATE_RE.search(raw):
        return Trigger("gate", message=raw.strip())
    return parsed

def summary(claim: Claim, result: dict[str, Any]) -> str:
    """The one-line payload of a close: story — first files — status.

    A hand-edited or legacy result may hold anything under `files_modified` (null, a
    string): only a list of paths is shown, anything else reads as none.
    """
    listed = result.get("files_modified")
    files = ", ".join(str(f) for f in listed[:5]) if isinstance(listed, list) else ""
    files = files or "—"
    story = claim.story or claim.sess_id
    return f"{story} — {files} — {result.get('status', '')}"


def run_trigger(cs: ChangeSet, claim: Claim, trigger: Trigger | None, result: dict[str, Any]) -> None:
    """Stage the signal a (non-gate) trigger sends; no trigger: CHECKPOINT to the parent."""
    snapshot = cs.snapshot
    scope = claim.scope_text
    if trigger is None:
        if claim.parent:
            cs.add_signal(claim.sess_id, claim.parent, "CHECKPOINT", summary(claim, result), scope)
        return
    if trigger.kind == "signal":
        cs.add_signal(
            claim.sess_id,
            snapshot.resolve_destination(claim, trigger.dest),
            trigger.sig_type,
            summary(claim, result),
            scope,
        )
    elif trigger.kind == "notify":
        cs.add_signal(
            claim.sess_id,
            snapshot.resolve_destination(claim, trigger.dest),
            "INFO",
            trigger.message or summary(claim, result),
            scope,
        )
    elif trigger.kind == "trigger":
        pilot = snapshot.resolve_destination(claim, "pilote")
        cs.add_signal(
            claim.sess_id,
            pilot,
            "HANDOFF",
            f"launch type:{trigger.task_type} scope:{trigger.task_scope} — after {claim.sess_id}",
            trigger.task_scope,
        )
