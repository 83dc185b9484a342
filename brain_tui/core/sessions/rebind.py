"""The local records of a claim follow it when sync gives it a new ID (SPEC 4: another machine pushed the same ID
first).

The old ID now names the other machine's claim: an agent session still bound to it, a pending MCP binding or
hand-over naming it, or a launch record under it would let this machine's agent act for, and write in the scope of,
a claim it does not hold. Every record under ``.brain/agents/`` and ``.brain/launches/`` that names an old ID is
rewritten to the new one, under the agents' lock, each write atomic; the renames are recorded
(`agent_files.renamed_to`) for what cannot be rewritten: the `$BSI_SESSION` a launched agent was started with.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from typing import Any

from brain_tui.core.paths.layout import LAUNCH_DIR, RENAMED_FILE
from brain_tui.core.sessions.agent_files import SESS_RE, agents_dir, json_records, read_record

__all__ = ["rebind_renamed", "record_renames"]


def _pairs(renamed: Mapping[str, str]) -> dict[str, str]:
    return {old: new for old, new in renamed.items() if SESS_RE.match(old) and SESS_RE.match(new) and old != new}


def record_renames(root: str | os.PathLike[str], renamed: Mapping[str, str]) -> None:
    """Record `renamed` (old → new) in the renames table before the commits are rewritten: every local binding and
    launcher's `$BSI_SESSION` is read through it (`agent_files.renamed_to`), so a kill before `rebind_renamed` leaves
    no agent on the old ID. A rewrite that fails leaves the agent on an ID that does not exist yet (it acts for
    nothing) until the next sync records the rename it makes."""
    from brain_tui.core.sessions.agents import _locked

    pairs = _pairs(renamed)
    if pairs:
        with _locked(root):
            table = agents_dir(root, RENAMED_FILE)
            _rewrite(table, table, {**(read_record(table) or {}), **pairs})


def rebind_renamed(root: str | os.PathLike[str], renamed: Mapping[str, str]) -> None:
    """Rewrite every local agent and launch record naming an old ID of `renamed` (old → new) to the new one."""
    from brain_tui.core.sessions.agents import _locked

    pairs = _pairs(renamed)
    if not pairs:
        return
    record_renames(root, pairs)  # a launcher's `$BSI_SESSION` still names the old ID
    with _locked(root):
        for kind in ("sessions", "handover"):
            for _name, path, entry in json_records(agents_dir(root, kind)):
                ids = entry.get("sess_ids") if entry else None
                if entry is not None and isinstance(ids, list) and any(i in pairs for i in ids):
                    entry["sess_ids"] = [pairs.get(i, i) if isinstance(i, str) else i for i in ids]
                    _rewrite(path, path, entry)
        for old, new in pairs.items():
            for folder in (agents_dir(root), agents_dir(root, "pending"), os.path.join(os.fspath(root), LAUNCH_DIR)):
                _move(os.path.join(folder, f"{old}.json"), os.path.join(folder, f"{new}.json"), new)


def _move(old_path: str, new_path: str, new: str) -> None:
    """The record of a claim under its new name, its `sess_id` field following; nothing when there is none."""
    entry = read_record(old_path)
    if entry is None:
        return
    entry["sess_id"] = new
    _rewrite(old_path, new_path, entry)


def _rewrite(old_path: str, new_path: str, entry: Mapping[str, Any]) -> None:
    from brain_tui.core.sessions.agents import _write

    _write(new_path, entry)
    if old_path != new_path:
        with contextlib.suppress(OSError):
            os.unlink(old_path)

