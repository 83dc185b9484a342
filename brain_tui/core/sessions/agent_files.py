"""Where agent-session records live under `.brain/agents/`, and the cheap reads the hooks make on every write.

Standard library only (`os`, `json`, `re`): `bsi hook pre-tool-use` imports
this module and not `core.agents`, whose `Liveness` and writers it does not need.
"""

from __future__ import annotations

import os

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.layout import AGENTS_DIR, RENAMED_FILE

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from datetime import datetime
    from typing import Any

#: The environment variable Claude Code sets for Bash, hooks and stdio MCP servers.
AGENT_SESSION_ENV = "CLAUDE_CODE_SESSION_ID"
#: Agent session IDs as the agents give them (Claude Code: a UUID).
AGENT_SESSION_RE = LazyPattern(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}\Z")
SESS_RE = LazyPattern(r"^sess-[A-Za-z0-9._-]+\Z")
MAX_RECORD_BYTES = 256 * 1024


def env_agent_session(environ: Mapping[str, str]) -> str:
    """The agent session ID an agent gave in the environment (`authority.AGENT_SESSION_MARKERS`: Claude Code's,
    Gemini CLI's, Codex's), "" when none."""
    from brain_tui.core.rules.authority import AGENT_SESSION_MARKERS

    for name in AGENT_SESSION_MARKERS:
        value = (environ.get(name) or "").strip()
        if value:
            return value
    return ""


def valid_agent_session(value: object) -> bool:
    """True when `value` is a usable agent session ID (never a path)."""
    return isinstance(value, str) and bool(AGENT_SESSION_RE.match(value)) and ".." not in value


def agents_dir(root: str | os.PathLike[str], *parts: str) -> str:
    """A path under `.brain/agents/`."""
    return os.path.join(os.fspath(root), AGENTS_DIR, *parts)


#: The fields of a record that hold an agent process ID (`core.agent_process`).
PROCESS_FIELDS = ("process", "client")


def read_record(path: str) -> dict[str, Any] | None:
    """A record as a dict, or None (missing, too big, no regular file, not JSON, too deep, not an object).

    Its agent process IDs read as this boot reads them (`agent_process.current_form`): one written before the boot
    was named, in an earlier boot, names no live process (a new one can have its PID and start ticks).
    """
    from brain_tui.core.records.state_json import read_state_json

    data = read_state_json(path, MAX_RECORD_BYTES)
    if not isinstance(data, dict):
        return None
    for key in PROCESS_FIELDS:
        value = data.get(key)
        if isinstance(value, str) and value.count(":") == 1 and value.replace(":", "").isdigit():  # no boot in it
            from brain_tui.core.sessions.agent_process import current_form

            try:
                written_at: float | None = os.stat(path).st_mtime
            except OSError:
                written_at = None
            data[key] = current_form(value, written_at)
    return data


def session_path(root: str | os.PathLike[str], agent_session: str, kind: str = "sessions") -> str:
    """The record of one agent session (`sessions/`) or of its pending hand-over (`handover/`).

    Raises:
        ValueError: a malformed agent session ID.
    """
    if not valid_agent_session(agent_session):
        raise ValueError(f"invalid agent session ID {agent_session!r}")
    return agents_dir(root, kind, f"{agent_session}.json")


def bound_claims(root: str | os.PathLike[str], agent_session: str) -> list[str]:
    """The claims opened by (or carried over to) this agent session on this machine, oldest first."""
    if not valid_agent_session(agent_session):
        return []
    entry = read_record(session_path(root, agent_session)) or {}
    ids = entry.get("sess_ids")
    # a claim sync renamed is read as its new ID, whether or not its binding was rewritten yet (`core.sessions.rebind`)
    if not isinstance(ids, list):
        return []
    return [renamed_to(root, s) for s in ids if isinstance(s, str) and SESS_RE.match(s)]


def recorded_process(root: str | os.PathLike[str], agent_session: str) -> str:
    """The agent process recorded when this agent session was first bound (`core.agent_process`), "" when none."""
    if not valid_agent_session(agent_session):
        return ""
    value = (read_record(session_path(root, agent_session)) or {}).get("process")
    return value if isinstance(value, str) else ""


def has_pending(root: str | os.PathLike[str]) -> bool:
    """True when a claim opened through `bsi mcp` waits to be bound to its client's session (`pending/`)."""
    try:
        return any(name.endswith(".json") and not name.startswith(".")
                   for name in os.listdir(agents_dir(root, "pending")))
    except OSError:
        return False


def has_opening(root: str | os.PathLike[str]) -> bool:
    """True when an open's binding was written before its commit and is not made yet (`core.sessions.opening`: an
    open under way, or one killed between its commit and its binding)."""
    try:
        return any(name.endswith(".json") and not name.startswith(".")
                   for name in os.listdir(agents_dir(root, "opening")))
    except OSError:
        return False


def json_records(folder: str) -> Iterator[tuple[str, str, dict[str, Any] | None]]:
    """The `.json` records of `folder` in name order, as ``(name, path, record)`` (`read_record`: None when it
    does not read); none when the folder cannot be listed."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        if name.endswith(".json") and not name.startswith("."):
            path = os.path.join(folder, name)
            yield name, path, read_record(path)


def sessions_of_process(root: str | os.PathLike[str], process: str) -> list[str]:
    """The agent sessions whose recorded agent process is `process` (the sessions of one agent), sorted."""
    if not process:
        return []
    found: list[str] = []
    for name, _path, record in json_records(agents_dir(root, "sessions")):
        entry = record or {}
        session = entry.get("agent_session")
        if entry.get("process") == process and isinstance(session, str) and f"{session}.json" == name:
            found.append(session)
    return found


def speaks_for_another(root: str | os.PathLike[str], agent_session: str, process: str) -> str:
    """Another agent session recorded for `process`, or "": such a process is that session's agent, so it may not
    take `agent_session` as its own on first use (a shell setting `CLAUDE_CODE_SESSION_ID=<ID>`, or a hook event it
    forges, naming a session a human bound by hand or one bound on another machine)."""
    others = [session for session in sessions_of_process(root, process) if session != agent_session]
    return others[0] if others else ""



def renamed_to(root: str | os.PathLike[str], sess_id: str) -> str:
    """The ID `sess_id` has on this clone: the new one when sync renamed it (its old ID was pushed first by another
    machine, whose claim it names now), else `sess_id` itself. A launcher's `$BSI_SESSION` is read through this."""
    if not os.path.isfile(agents_dir(root, RENAMED_FILE)):
        return sess_id
    table = read_record(agents_dir(root, RENAMED_FILE)) or {}
    seen = {sess_id}
    while isinstance(new := table.get(sess_id), str) and SESS_RE.match(new) and new not in seen:
        seen.add(new)
        sess_id = new
    return sess_id


def pending_claims(root: str | os.PathLike[str], process: str, now: datetime) -> list[str]:
    """The claims `process` (an MCP server's agent process) opened through `bsi mcp` that no hook bound yet
    (`pending/`): its own, for every server it runs, before its next hook event binds them to its session.

    A record its next hook would drop unbound (too old, or written ahead of `now`: `handover.adopt_pending`) counts
    for no one: a process whose ID matches it then (a PID and start reused) never opened that claim.
    """
    if not process:
        return []
    from brain_tui.core.sessions.handover import _fresh

    return [renamed_to(root, sess_id) for name, _path, record in json_records(agents_dir(root, "pending"))
            if record is not None and record.get("client") == process and _fresh(record, "at", now)
            and isinstance(sess_id := record.get("sess_id"), str) and f"{sess_id}.json" == name
            and SESS_RE.match(sess_id)]
