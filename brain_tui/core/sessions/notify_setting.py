"""The `notify:` key of brain-compose.yml as read: what `core.config` needs of notices, without their machinery.

The notices themselves (the told keys, the command run, the desktop escapes) are in `core.notify`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from brain_tui.core.errors import InvalidData

__all__ = ["NOTIFY_PLACEHOLDERS", "PLACEHOLDER_RE", "NotifySetting", "check_template", "parse_notify"]

#: What a `notify.command` element may name, each filled with one inert line.
NOTIFY_PLACEHOLDERS = ("kind", "sess_id", "summary", "key", "brain")
#: A placeholder in a `notify.command` element: `{name}`.
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class NotifySetting:
    """The `notify:` key as read.

    Attributes:
        enabled: False for ``notify: off`` (no command; the cockpit's escapes follow `--no-bell`).
        command: the argv template, empty when none is configured.
        problem: why the key was not used as written (shown by the cockpit), or None.
    """

    enabled: bool = True
    command: tuple[str, ...] = ()
    problem: str | None = None


def parse_notify(value: Any) -> NotifySetting:
    """Read the `notify:` value: ``off``/``false``, or ``{command: [program, arg, …]}``.

    An unusable value gives no command, with `problem` set; it never raises.
    """
    if value is None:
        return NotifySetting()
    if value is False or (isinstance(value, str) and value.strip().lower() in ("off", "false", "no")):
        return NotifySetting(enabled=False)
    command = value.get("command") if isinstance(value, Mapping) else None
    if not isinstance(command, list) or not command or not all(isinstance(v, str) for v in command):
        return NotifySetting(problem="notify: expected `off` or `command: [program, arg, …]` (an argv list, "
                                     "not a shell string); no command runs")
    try:
        check_template(command)
    except InvalidData as exc:
        return NotifySetting(problem=f"{exc}; no command runs")
    return NotifySetting(command=tuple(command))


def check_template(template: Sequence[str]) -> None:
    """Raise unless `template` is a usable `notify.command`.

    Raises:
        InvalidData: empty, an unknown placeholder, or a placeholder or ``=`` in the program name.
    """
    if not template or not template[0].strip():
        raise InvalidData("notify.command is empty")
    for index, element in enumerate(template):
        names = PLACEHOLDER_RE.findall(element)
        unknown = [n for n in names if n not in NOTIFY_PLACEHOLDERS]
        if unknown:
            raise InvalidData(f"notify.command: unknown placeholder {{{unknown[0]}}}; known: "
                              + " ".join(f"{{{p}}}" for p in NOTIFY_PLACEHOLDERS))
        if index == 0 and names:
            raise InvalidData("notify.command: the program (first element) cannot come from a placeholder")
    if "=" in template[0]:
        raise InvalidData("notify.command: the program name cannot hold '='")
