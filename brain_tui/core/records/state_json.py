"""Reading the local state files under `.brain/` (JSON the product wrote, which anything may have spoiled).

A state file is a cache or a record of this machine: when it does not read, the caller rebuilds it or goes
without. So every way it can fail to read is one answer, None: missing, unreadable, no regular file (a FIFO, a
link to /dev/zero: never waited on), larger than its bound, not UTF-8 JSON, or nested past the parser's depth.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` is not imported at run time: the hook's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

#: The default bound of a state file: far above what the product writes, far below what would exhaust memory.
MAX_STATE_BYTES = 64 * 1024 * 1024


def read_state_json(path: str | os.PathLike[str], limit: int = MAX_STATE_BYTES) -> Any:
    """The JSON value of the file at `path`, or None when it does not read (see the module)."""
    import json

    from brain_tui.core.records.yamlio import read_capped

    try:
        raw = read_capped(path, limit + 1)
    except OSError:
        return None
    if raw is None or len(raw) > limit:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None
