"""Bindings that move or wait: the `/clear` hand-over, and claims opened through `bsi mcp` (SPEC 20.1, 21.4).

One rule holds them together: a binding moves only on the word of the agent
process it belongs to (its ID, `core.agent_process`), never on the word
of an event alone. An event's `session_id` is what an agent's shell can forge
(`bsi hook session-end` run by hand); the process a hook runs under is not.

* ``.brain/agents/handover/<agent-session>.json`` — Claude Code gives a
  session a new ID on ``/clear`` and compaction: ``session-end`` leaves the old
  binding here, and the next ``session-start`` of the same agent process takes
  it. A hand-over is left only by the session's own recorded agent process
  (recorded at its first binding, `agent_files.recorded_process`); one from any
  other process is refused and the hook says so. Two candidates are never
  guessed between. Compaction may come with no ``session-end`` at all: then the
  ``session-start`` with source ``compact`` takes the claims still bound to the one
  other session of the same agent process (`take_compacted`).
* ``.brain/agents/pending/<sess-id>.json`` — a claim opened through `bsi mcp`,
  with the MCP server's client process. Gemini CLI (and Codex) give their
  server no session ID, so the claim is bound at the client's next hook event
  (any event: post-tool-use of the `claim_open` call, the next pre-tool-use…),
  to that event's session, when that hook runs under the same client process.

Every write is atomic and serialised with the other records (`core.agents`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from brain_tui.core.sessions.agent_files import (
    SESS_RE,
    agents_dir,
    bound_claims,
    has_opening,
    has_pending,
    json_records,
    read_record,
    recorded_process,
    session_path,
    speaks_for_another,
    valid_agent_session,
)

#: A hand-over (or a pending MCP binding) older than this is not taken: the agent restarted long ago.
HANDOVER_MAX_AGE = timedelta(hours=8)
#: The end reasons (`session-end`) and start sources (`session-start`) of a new ID in the same agent process.
HANDOVER_REASONS = ("clear", "compact")
HANDOVER_SOURCES = ("clear", "compact", "resume")


def _fresh(entry: dict[str, Any], key: str, now: datetime) -> bool:
    from brain_tui.core.sessions.agents import _parse_time

    at = _parse_time(entry.get(key))
    return at is not None and at - timedelta(minutes=5) <= now <= at + HANDOVER_MAX_AGE


def vouch(root: str | os.PathLike[str], agent_session: str, process: str) -> bool:
    """True when an event naming `agent_session` comes from that session's own agent process.

    A session bound locally with no process recorded yet (bound by hand with
    `--agent-session`) takes the process of its first event (recorded now), unless
    that process is already another session's agent (`speaks_for_another`: every
    session's process is recorded at its `session-start`, `note_process`). A
    session with no local record has nothing here to protect: True.
    """
    from brain_tui.core.sessions.agents import _locked, _write

    if not valid_agent_session(agent_session):
        return False
    path = session_path(root, agent_session)
    with _locked(root):
        entry = read_record(path)
        if entry is None:
            return True
        known = entry.get("process") if isinstance(entry.get("process"), str) else ""
        if known:
            return bool(process) and known == process
        if process:
            if speaks_for_another(root, agent_session, process):
                return False
            _write(path, {**entry, "process": process})
        return True


def note_process(root: str | os.PathLike[str], agent_session: str | None, process: str) -> None:
    """Record `process` as the agent of `agent_session` when nothing is recorded for that session yet (its
    `session-start`, bound or not) and the process is no other session's agent: a process that is one session's
    agent never takes another on first use (a binding carried over after `/clear` records it, `take_handover`)."""
    from brain_tui.core.sessions.agents import _locked, _write

    if not agent_session or not process or not valid_agent_session(agent_session):
        return
    path = session_path(root, agent_session)
    with _locked(root):
        if read_record(path) is None and not speaks_for_another(root, agent_session, process):
            _write(path, {"agent_session": agent_session, "sess_ids": [], "process": process})


def leave_handover(root: str | os.PathLike[str], agent_session: str, sess_ids: Sequence[str], now: datetime,
                   *, cwd: str = "", process: str = "") -> str:
    """Leave an ending session's binding for its successor (`session-end` with reason `clear` or `compact`).

    "" when left (or nothing to leave), else one line saying why it was refused: the hook's agent process is
    not the session's own recorded one (a forged hand-over).
    """
    from brain_tui.core.sessions.agents import _iso, _locked, _write

    if not sess_ids:
        return ""
    recorded = recorded_process(root, agent_session)
    if not process or not recorded or recorded != process:
        mine = process or "unknown"
        return (f"hand-over of agent session {agent_session} refused: it comes from agent process {mine}, "
                f"not from the session's own ({recorded or 'none recorded'}); "
                f"{', '.join(sess_ids)[:300]} stay bound to {agent_session}")
    with _locked(root):
        _write(session_path(root, agent_session, "handover"), {
            "agent_session": agent_session, "sess_ids": list(sess_ids), "at": _iso(now),
            "cwd": cwd, "process": process,
        })
    return ""


def take_handover(root: str | os.PathLike[str], agent_session: str, now: datetime, *, cwd: str = "",
                  process: str = "") -> tuple[list[str], str]:
    """Carry a pending binding over to a new agent session (`session-start` after `/clear` or compaction).

    The candidates are the hand-overs younger than `HANDOVER_MAX_AGE` left by
    this same agent process (`process`, required) for a session whose recorded
    process it is. Exactly one is taken and bound to `agent_session`; with
    none, or with two or more (never guessed between), nothing is bound. Gives ``(sess_ids bound, why)``:
    a short fact about what happened, "" when there was nothing to carry over.
    """
    from brain_tui.core.sessions.agents import _bind_unlocked, _locked

    del cwd  # the process decides: a session may have changed folder since
    if not process:
        return [], ""
    with _locked(root):
        refused = _not_its_own(root, agent_session, process)
        if refused:
            return [], refused
        candidates: list[tuple[str, dict[str, Any]]] = []
        for _name, path, entry in json_records(agents_dir(root, "handover")):
            if entry is None or not _fresh(entry, "at", now):
                continue
            old = entry.get("agent_session")
            if old == agent_session or not isinstance(old, str) or entry.get("process") != process:
                continue
            if recorded_process(root, old) != process:
                continue
            candidates.append((path, entry))
        if not candidates:
            return [], ""
        if len(candidates) > 1:
            ids = sorted({s for _p, e in candidates for s in e.get("sess_ids", []) if isinstance(s, str)})
            return [], f"{len(candidates)} bindings wait to be carried over ({', '.join(ids)[:300]}): none taken"
        path, entry = candidates[0]
        ids = [s for s in entry.get("sess_ids", []) if isinstance(s, str) and SESS_RE.match(s)]
        for sess_id in ids:
            _bind_unlocked(root, sess_id, agent_session, now, process)
        with contextlib.suppress(OSError):
            os.unlink(path)
        return ids, f"binding carried over from agent session {entry.get('agent_session')}"


def _not_its_own(root: str | os.PathLike[str], agent_session: str, process: str) -> str:
    """Why a binding may not move to `agent_session` on the word of `process` ("" when it may): the session is
    recorded as another agent process's own. A shell's forged `session-start` naming another agent's session
    would make that agent act for this one's claims (SPEC 21.4). Asked under the records' lock where it guards a
    binding (`take_handover`, `take_compacted`); `start_session` asks it outside only to keep a hand-over waiting."""
    known = recorded_process(root, agent_session)
    if not known or known == process:
        return ""
    return (f"agent session {agent_session} belongs to another agent process ({known}), not to this one "
            f"({process}): no binding carried over to it")


def drop_handover(root: str | os.PathLike[str], agent_session: str) -> None:
    """Forget a hand-over this agent session left (it came back with the same ID: nothing to carry over)."""
    with contextlib.suppress(OSError, ValueError):
        os.unlink(session_path(root, agent_session, "handover"))


def _pending_path(root: str | os.PathLike[str], sess_id: str) -> str:
    if not SESS_RE.match(sess_id):
        raise ValueError(f"invalid session ID {sess_id!r}")
    return agents_dir(root, "pending", f"{sess_id}.json")


def leave_pending(root: str | os.PathLike[str], sess_id: str, client: str, now: datetime) -> None:
    """Remember that `client` (the MCP server's agent process) opened `sess_id`: its next hook event binds it."""
    from brain_tui.core.sessions.agents import _iso, _locked, _write

    if not client:
        return
    with _locked(root):
        _write(_pending_path(root, sess_id), {"sess_id": sess_id, "client": client, "at": _iso(now)})


def adopt_pending(root: str | os.PathLike[str], agent_session: str, process: str, now: datetime) -> list[str]:
    """Bind to `agent_session` the claims its own client process opened through `bsi mcp`; the claims bound.

    Only a hook running under that same client process (`process`) adopts a
    claim, and only for a session that is that process's own (its recorded
    process, or none yet: then it is recorded now). A pending entry too old is dropped.
    """
    from brain_tui.core.sessions.agents import _bind_unlocked, _locked

    if not process or not valid_agent_session(agent_session):
        return []
    adopted: list[str] = []
    with _locked(root):
        for name, path, entry in json_records(agents_dir(root, "pending")):
            sess_id = entry.get("sess_id") if entry else None
            if entry is None or not isinstance(sess_id, str) or f"{sess_id}.json" != name \
                    or not _fresh(entry, "at", now):
                with contextlib.suppress(OSError):
                    os.unlink(path)
                continue
            if entry.get("client") != process:
                continue
            known = (read_record(session_path(root, agent_session)) or {}).get("process")
            if isinstance(known, str) and known and known != process:
                continue
            _bind_unlocked(root, sess_id, agent_session, now, process)
            adopted.append(sess_id)
            with contextlib.suppress(OSError):
                os.unlink(path)
    return adopted


# ---------------------------------------------------------------------------------------------
# The hook events' rules (the hooks only translate)
# ---------------------------------------------------------------------------------------------
def session_claims(root: str | os.PathLike[str], agent_session: str, now: Callable[[], datetime]) -> list[str]:
    """The claims bound to `agent_session` here, oldest first, once any open killed between its commit and its
    binding is bound (`opening.settle`) and any claim its client opened through `bsi mcp` is bound
    (`adopt_pending`), each asked only when one waits."""
    if has_opening(root):
        from brain_tui.core.sessions.opening import settle

        settle(root, now())
    if has_pending(root):
        from brain_tui.core.sessions.agent_process import agent_process

        adopt_pending(root, agent_session, agent_process(), now())
    return bound_claims(root, agent_session)


def genuine(root: str | os.PathLike[str], agent_session: str | None) -> bool:
    """True when this process's hook event for `agent_session` comes from the session's own agent process
    (`vouch`); a hook without a session ID has nothing to vouch for."""
    if not agent_session:
        return True
    from brain_tui.core.sessions.agent_process import agent_process

    return vouch(root, agent_session, agent_process())


def end_session(root: str | os.PathLike[str], agent_session: str | None, sess_ids: Sequence[str], reason: str,
                now: datetime, *, cwd: str = "", handover: bool = True) -> str:
    """`session-end`: the bound claim's session `ended`; on `/clear` or compaction its binding is left for the
    successor (`leave_handover`, from the session's own agent process only).

    `sess_ids` oldest first; `handover` False when the binding came from a launcher (`$BSI_SESSION`: nothing to
    carry over). "" or one line for the hook's stderr: why an event or a hand-over was refused.
    """
    from brain_tui.core.sessions.agent_process import agent_process
    from brain_tui.core.sessions.agents import record_state

    if not sess_ids:
        return ""
    process = agent_process()
    if agent_session and not vouch(root, agent_session, process):
        return (f"session-end for agent session {agent_session} refused (no hand-over, state unchanged): it comes "
                f"from agent process {process or 'unknown'}, not from the session's own; "
                f"{', '.join(sess_ids)[:300]} stay bound to {agent_session}")
    record_state(root, sess_ids[-1], agent_session, "ended", now)
    if not (handover and agent_session and reason in HANDOVER_REASONS):
        return ""
    return leave_handover(root, agent_session, list(sess_ids), now, cwd=cwd, process=process)


def start_session(root: str | os.PathLike[str], agent_session: str | None, source: str, bound: Sequence[str],
                  now: datetime, *, cwd: str = "", launched: bool = False) -> tuple[list[str], str]:
    """`session-start`: a session that comes back bound drops its own hand-over (from its own agent process only:
    `_not_its_own`); an unbound one after `/clear`, compaction or resume takes the hand-over its agent process left
    (`take_handover`). Gives ``(the session's claims oldest first, a fact for the session or "")``.
    """
    from brain_tui.core.sessions.agent_process import agent_process

    if not agent_session:
        return list(bound), ""
    process = agent_process()
    if bound:
        # only the session's own agent process takes its hand-over back: another's forged event leaves it waiting
        if not launched and not _not_its_own(root, agent_session, process):
            drop_handover(root, agent_session)
        return list(bound), ""
    if source not in HANDOVER_SOURCES:
        return [], ""
    held, why = take_handover(root, agent_session, now, cwd=cwd, process=process)
    if held or why or source != "compact":
        return held, why
    return take_compacted(root, agent_session, now, process)


def take_compacted(root: str | os.PathLike[str], agent_session: str, now: datetime,
                   process: str) -> tuple[list[str], str]:
    """Carry the binding over at compaction, which Claude Code announces with no `session-end`: the claims still
    bound to, and not ended by, the one other session of this same agent process (`process`, required) go to
    `agent_session`. Two such sessions are never guessed between. Gives ``(sess_ids bound, why)``."""
    from brain_tui.core.sessions.agent_files import sessions_of_process
    from brain_tui.core.sessions.agents import _bind_unlocked, _claim_path, _locked

    if not process:
        return [], ""
    with _locked(root):
        refused = _not_its_own(root, agent_session, process)
        if refused:
            return [], refused
        held: dict[str, list[str]] = {}
        for old in sessions_of_process(root, process):
            if old == agent_session:
                continue
            for sess_id in bound_claims(root, old):
                record = read_record(_claim_path(root, sess_id)) or {}
                if record.get("agent_session") == old and record.get("state") != "ended":
                    held.setdefault(old, []).append(sess_id)
        if not held:
            return [], ""
        if len(held) > 1:
            ids = sorted({s for claims in held.values() for s in claims})
            return [], f"{len(held)} sessions of this agent hold claims ({', '.join(ids)[:300]}): none taken"
        (old, ids), = held.items()
        for sess_id in ids:
            _bind_unlocked(root, sess_id, agent_session, now, process)
        return ids, f"binding carried over from agent session {old} (compaction)"
