"""Whether the work tree still holds live a claim file that a commit ended (SPEC 21, 22).

The work tree's claim files are fenced from the agents; git's objects are not (an agent's shell can make a
commit with git's plumbing). So a file HEAD holds terminal while the work tree's copy is another blob that is
not terminal was ended in git alone: the closed set keeps it out (`closed_set._evaluate`), and a live read
reads it as stale (`in_force.strictest_with_head`), until a human releases it or its owner closes it.
"""

from __future__ import annotations

import os
from datetime import tzinfo
from pathlib import Path

from brain_tui.core.paths.layout import CLAIMS_DIR
from brain_tui.core.records.git_head import blob_id
from brain_tui.core.records.status_scan import terminal_of
from brain_tui.core.records.yamlio import read_capped

__all__ = ["live_in_work_tree", "work_tree_bytes"]


def work_tree_bytes(root: Path, rel: str) -> bytes | None:
    """The bytes of the work tree's copy of `rel` (relative to `root`), None when it cannot be read (deleted, a
    folder): the work tree holds nothing there. A FIFO, a device or a socket there is never read (never waited
    on): ``b""``, bytes that read as no claim, so it may hold what it holds, as a claim file that does not read."""
    path = os.path.join(root, rel)
    try:
        data = read_capped(path, -1)
    except OSError:
        return None
    if data is None:
        return None if os.path.isdir(path) else b""
    return data


def live_in_work_tree(root: Path, name: str, oid: str, tz: tzinfo) -> bool:
    """True when the work tree's ``claims/<name>`` is not the blob `oid` and is not a terminal claim (it is live,
    or does not read: either way it may hold what it holds)."""
    data = work_tree_bytes(root, f"{CLAIMS_DIR}/{name}")
    if data is None:
        return False  # deleted (or not a file): the work tree lets it go too
    return blob_id(data, oid) != oid and terminal_of(data, name, tz) is None
