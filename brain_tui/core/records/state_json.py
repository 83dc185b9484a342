"""The local state files under `.brain/`: reading them (JSON the product wrote, which anything may have spoiled) and
opening the lock files (`open_lock`).

A state file is a cache or a record of this machine: when it does not read, the caller rebuilds it or goes
without. So every way it can fail to read is one answer, None: missing, unreadable, no regular file (a FIFO, a
link to /dev/zero: never waited on), larger than its bound, not UTF-8 JSON, or nested past the parser's depth.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` is not imported at run time: the hook's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, BinaryIO

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


def read_for_commit(path: str | os.PathLike[str], commit: str) -> dict[str, Any] | None:
    """The state file at `path` when it was written for HEAD's commit `commit` (`write_for_commit`), else None.

    What git answers about a commit never changes: a file keyed by the commit's ID is valid while HEAD stays there
    and never after (another commit is another key), so it needs no other check."""
    data = read_state_json(path)
    return data if commit and isinstance(data, dict) and data.get("commit") == commit else None


def write_for_commit(root: str | os.PathLike[str], name: str, commit: str, **fields: Any) -> None:
    """Keep `fields` in ``.brain/<name>`` for HEAD's commit `commit` (best effort: a cache, never needed)."""
    import contextlib
    import json
    from pathlib import Path

    from brain_tui.core.paths.layout import STATE_DIR
    from brain_tui.core.records.closed_rows import write_atomically
    from brain_tui.core.records.yamlio import make_state_dir

    with contextlib.suppress(OSError):
        state = Path(root) / STATE_DIR
        make_state_dir(state)
        write_atomically(state / name, json.dumps({"commit": commit, **fields}))


def open_lock(path: str | os.PathLike[str]) -> BinaryIO:
    """The lock file at `path` open to `flock` (made when missing; never waited on).

    Raises:
        InvalidData: it is no regular file (a FIFO, a device, a socket planted there): one line naming it (exit 65),
            where opening it in append mode used to fail with an internal error.
        OSError: it cannot be opened (a folder there: EISDIR, which `errors.os_refusal` words).
    """
    from brain_tui.core.records.yamlio import open_regular

    fd = open_regular(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0))
    if fd is None:
        raise _not_regular(path)
    return open(fd, "r+b")  # noqa: SIM115 - the caller's `with` closes it


def check_lock(path: str | os.PathLike[str]) -> None:
    """Raise what `open_lock` would raise for the lock file at `path`, making nothing (a missing file or folder is
    fine: `open_lock` makes it)."""
    from brain_tui.core.records.yamlio import open_regular

    try:
        fd = open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    if fd is None:
        raise _not_regular(path)
    os.close(fd)


def _not_regular(path: str | os.PathLike[str]) -> Exception:
    """The refusal of a lock file that is no regular file (exit 65)."""
    from brain_tui.core.errors import InvalidData

    return InvalidData(f"cannot write {os.fspath(path)}: it is no regular file (a FIFO, a device or a socket); "
                       "nothing was written (move it away, then run the command again)")
