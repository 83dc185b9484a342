"""The brain's sync state file, ``.brain/sync.json``: the last sync time and pending local changes.

Local state, never committed: `remote.sync` records a landed sync here and
a write that could not reach the remote records that it waits to be pushed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from brain_tui.core.paths.layout import STATE_DIR, SYNC_STATE_FILE
from brain_tui.core.records.state_json import read_state_json
from brain_tui.core.records.yamlio import atomic_write_text

__all__ = ["read_state", "record"]


def read_state(root: Path) -> dict[str, Any]:
    """`.brain/sync.json` as a dict (empty when absent or unreadable)."""
    state = read_state_json(root / STATE_DIR / SYNC_STATE_FILE)  # None: unreadable, a FIFO (never waited on)…
    return state if isinstance(state, dict) else {}


def record(root: Path, stamp: str, pending: bool) -> str:
    """Remember the last sync time, or that local changes wait to be pushed (`.brain/sync.json`)."""
    (root / STATE_DIR).mkdir(exist_ok=True)
    state = read_state(root)
    if pending:
        state["pending_since"] = state.get("pending_since") or stamp
    else:
        state["last_sync"] = stamp
        state.pop("pending_since", None)
    atomic_write_text(root / STATE_DIR / SYNC_STATE_FILE, json.dumps(state, sort_keys=True) + "\n")
    return stamp

