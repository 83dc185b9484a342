"""Bindings written before their claim is committed (SPEC 20.1, 22): ``.brain/agents/opening/<sess-id>.json``.

An open that binds its claim (to an agent session, or to the client of the `bsi mcp`
that opened it) records what it will bind before the commit (`intend`): the claim's
ID, the agent session, the client process, and what the claim file will say
(`opened_at`, `instance`). After the commit it makes the binding (`settle_one`:
`agents.record_binding`, `handover.leave_pending`) and drops the record; an open
that failed, or a record its open wrote for an ID it did not commit in the end (a
synced open decided again), makes it only if HEAD holds that claim, else drops it
(`settle_if_held`).

A kill between the commit and the binding leaves the record. The session's next
hook settles it (`settle`): a claim HEAD and the work tree both hold as recorded (the
same ID, `opened_at` and `instance`, and the recorded `agent_session:` or none) is
bound as the open would have bound it; a commit made in git alone binds nothing. A
record whose claim they do not hold binds nothing (the commit never landed, or another
claim holds the ID since): it is dropped once older than `handover.HANDOVER_MAX_AGE`.
"""

from __future__ import annotations

import contextlib
import os
from datetime import datetime
from pathlib import Path

from brain_tui.core.sessions.agent_files import SESS_RE, agents_dir, has_opening, json_records, valid_agent_session

TYPE_CHECKING = False  # not `typing`: the hooks import this module
if TYPE_CHECKING:
    from typing import Any

#: The folder of the records, under `.brain/agents/`.
OPENING = "opening"

__all__ = ["OPENING", "drop", "has_opening", "intend", "settle", "settle_if_held", "settle_one"]


def _path(root: str | os.PathLike[str], sess_id: str) -> str:
    if not SESS_RE.match(sess_id):
        raise ValueError(f"invalid session ID {sess_id!r}")
    return agents_dir(root, OPENING, f"{sess_id}.json")


def intend(root: str | os.PathLike[str], sess_id: str, now: datetime, *, agent_session: str | None,
           process: str, client: str, opened_at: str, instance: str, in_git: bool = True) -> None:
    """Record, before the commit, the binding the open of `sess_id` makes after it.

    `process`: the agent process to record with the agent session ("" none, `record_binding`'s rule); `client`:
    the `bsi mcp` client process whose next hook event binds the claim ("" none); `in_git` False: the open writes
    the file without a commit (`--no-commit`, a brain outside git), which is then read in its place. Raises
    OSError (and InvalidData for a spoiled lock file) when it cannot be written: the open then commits nothing.
    """
    from brain_tui.core.sessions.agents import _iso, _locked, _write

    doc: dict[str, Any] = {"sess_id": sess_id, "agent_session": agent_session or "", "process": process,
                           "client": client, "opened_at": opened_at, "instance": instance, "at": _iso(now),
                           "in_git": in_git}
    with _locked(root):
        _write(_path(root, sess_id), doc)


def drop(root: str | os.PathLike[str], sess_id: str) -> None:
    """Forget the record of `sess_id` (its open failed, or it is settled)."""
    with contextlib.suppress(OSError, ValueError):
        os.unlink(_path(root, sess_id))


def settle_one(root: str | os.PathLike[str], sess_id: str, now: datetime) -> None:
    """The open of `sess_id` committed: make the binding its record names, then drop the record."""
    from brain_tui.core.sessions.agent_files import read_record

    entry = read_record(_path(root, sess_id))
    if entry is not None:
        _bind(root, entry, sess_id, now)
    drop(root, sess_id)


def settle_if_held(root: str | os.PathLike[str], sess_id: str, now: datetime) -> bool:
    """`settle_one` when HEAD holds `sess_id` as its record says (`_committed`), else the record is dropped: the
    open that wrote it is over. True when bound."""
    from brain_tui.core.sessions.agent_files import read_record

    entry = read_record(_path(root, sess_id))
    if entry is not None and _committed(root, entry, sess_id):
        settle_one(root, sess_id, now)
        return True
    drop(root, sess_id)
    return False


def settle(root: str | os.PathLike[str], now: datetime) -> list[str]:
    """Bind every claim whose open was killed after its commit (`settle_one` for it); the claims bound.

    A record is settled only when HEAD holds its claim as recorded (`_committed`); one that does not is
    left (its open may still be under way) until too old.
    """
    from brain_tui.core.sessions.handover import _fresh

    settled: list[str] = []
    for name, path, entry in json_records(agents_dir(root, OPENING)):
        sess_id = entry.get("sess_id") if entry else None
        if entry is None or not isinstance(sess_id, str) or f"{sess_id}.json" != name or not SESS_RE.match(sess_id):
            with contextlib.suppress(OSError):
                os.unlink(path)
            continue
        if _committed(root, entry, sess_id):
            settle_one(root, sess_id, now)
            settled.append(sess_id)
        elif not _fresh(entry, "at", now):
            drop(root, sess_id)
    return settled


def _bind(root: str | os.PathLike[str], entry: dict[str, Any], sess_id: str, now: datetime) -> None:
    from brain_tui.core.sessions.agents import record_binding
    from brain_tui.core.sessions.handover import leave_pending

    session = entry.get("agent_session")
    process = entry.get("process") if isinstance(entry.get("process"), str) else ""
    if isinstance(session, str) and session and valid_agent_session(session):
        record_binding(root, sess_id, session, now, process)
    client = entry.get("client")
    if isinstance(client, str) and client:
        leave_pending(root, sess_id, client, now)


def _committed(root: str | os.PathLike[str], entry: dict[str, Any], sess_id: str) -> bool:
    """True when HEAD and the work tree (the file alone, for an open without a commit) both hold `sess_id` as its
    open wrote it: the same `opened_at` and `instance`, and the recorded agent session or none. Both: the open
    writes the file, then commits it; git's plumbing in an agent's shell can make a commit, never the file."""
    from brain_tui.core.records.git_head import git_output, outside_git
    from brain_tui.core.records.yamlio import read_capped

    rel = f"claims/{sess_id}.yml"
    folder = Path(root)
    try:
        raw = read_capped(folder / rel, follow=False)  # never waited on, never through a link
    except OSError:
        return False
    if raw is None or not _holds(raw, entry, sess_id):
        return False
    if entry.get("in_git") is False or outside_git(folder):
        return True
    data = git_output(folder, "cat-file", "blob", f"HEAD:{rel}")
    return data is not None and _holds(data, entry, sess_id)


def _holds(raw: bytes, entry: dict[str, Any], sess_id: str) -> bool:
    """True when the claim file `raw` is `sess_id` as the record `entry` says its open wrote it."""
    from brain_tui.core.records.yamlio import CorruptYaml, safe_load_text

    try:
        doc = safe_load_text(raw.decode("utf-8", "replace"))
    except CorruptYaml:
        return False
    if not isinstance(doc, dict) or doc.get("sess_id") != sess_id:
        return False
    session = doc.get("agent_session") or ""
    return (str(doc.get("opened_at")) == entry.get("opened_at") and str(doc.get("instance")) == entry.get("instance")
            and session == (entry.get("agent_session") or ""))
