"""What a write decision is asked and what it answers (`write_decision`): the session about to write, a shell
command or text typed into a running program, and the decision with its reason, code and payload."""

from __future__ import annotations

from collections.abc import Mapping

from brain_tui.core.errors import PreflightRefused
from brain_tui.core.record import field, record

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CLAIMED", "PROTOCOL", "UNCLAIMED", "ShellCommand", "ToolWrite", "TypedText", "WriteDecision",
           "WriteSession"]

#: `check` of a refusal that is not one of SPEC 10's (those keep `preflight.CHECK_NAMES`).
PROTOCOL = "protocol"
CLAIMED = "claimed"
UNCLAIMED = "unclaimed"


@record
class WriteSession:
    """Who is about to write, and from where.

    Attributes:
        claims: the claims the session holds, newest first (`$BSI_SESSION`, or its recorded binding);
            empty for a session that holds none on record.
        agent_session: the agent's session ID: a claim naming it in `agent_session:` is also held
            (a binding made on another machine, or its local record lost).
        cwd: where the paths start (an agent's tool: absolute paths, or relative to this folder; links
            followed; outside every brain is allowed). None: brain-relative paths as `bsi preflight check`
            takes them (``..`` or an absolute path is a scope violation).
    """

    claims: tuple[str, ...] = ()
    agent_session: str | None = None
    cwd: str | None = None


@record
class ShellCommand:
    """A shell tool's command line (a string), or an argv list run without a shell (Codex `shell`).

    `also_from`: other folders it may run in, each read too (another MCP server runs it in its own folder).
    """

    command: str | tuple[str, ...]
    also_from: tuple[str, ...] = ()


@record
class ToolWrite:
    """An agent tool's write of `paths` (the readings of the file it names), with the tool's name and input: the
    decision computes what the tool leaves in a file the session holds by `##` sections only (`section_writes`)."""

    paths: tuple[str, ...]
    tool: str
    tool_input: Mapping[str, Any] = field(default_factory=dict)


@record
class TypedText:
    """Text typed into a program a shell tool started and left running (Codex `write_stdin`): read as shell lines
    run from the session's cwd; "" is a poll of the program's output and writes nothing."""

    chars: str


@record
class WriteDecision:
    """The answer: allowed (maybe with a note) or refused, with the reason and what unblocks it.

    Attributes:
        allowed: the write may go ahead.
        reason: why it is refused, and what unblocks it (brain text in it is raw: a front-end shows it inert).
        note: for an allowed write, a note for the user (an unclaimed write under ``warn``).
        code: SPEC 10's code (0 go; 4 claim, 1 scope, 5 zone, 2 lock, 3 circuit, 6 branch; 65 invalid
            data); a protocol file or a claimed file refused to an unbound session is 1.
        check: the name of the check (`preflight.CHECK_NAMES`, or ``protocol``, ``claimed``, ``unclaimed``).
        sess_id: the claim decided for (the one that passed, or the first refused), None when unbound.
        file: the brain-relative file decided on (normalised), or the path as given when outside.
        holders: the claims holding the file, when a refusal names them.
        payload: the refusal's detail for `--json` (SPEC 10's keys).
    """

    allowed: bool
    reason: str = ""
    note: str = ""
    code: int = 0
    check: str = "go"
    sess_id: str | None = None
    file: str = ""
    holders: tuple[str, ...] = ()
    payload: Mapping[str, Any] = field(default_factory=dict)

    def refusal(self) -> PreflightRefused:
        """The refusal as the error `bsi preflight check` exits with (its code, the reason, the payload)."""
        payload = {"sess_id": self.sess_id, "file": self.file, "code": self.code, "check": self.check,
                   **self.payload}
        if self.holders:
            payload["holders"] = list(self.holders)
        return PreflightRefused(self.code, self.reason, payload)
