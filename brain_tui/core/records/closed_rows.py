"""The closed sets' rows files under ``.brain/``: read once per version by a process, written atomically.

A rows file (`closed_set`'s module docstring says what it holds) is named by the tree its rows were written for and
replaced by a rename, never edited in place: its ``(mtime_ns, size, inode)`` names one content, so a long-lived
process (the cockpit, `bsi mcp`) keeps what it read and reads it again only when another file takes its place.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

from brain_tui.core.records.yamlio import TEMP_MARK, open_regular

__all__ = ["FORMAT", "READS", "checked_row", "open_rows", "read_lines", "rows_file", "rows_read", "rows_version",
           "write_atomically"]

#: 2: the rows carry the parent (a file of format 1 is rebuilt, never read with the new columns).
FORMAT = 2

#: The rows files this process read, by path: their ``(mtime_ns, size, inode)``, names and rows (None: not read).
#: A long-lived process (the cockpit, `bsi mcp`) reads a rows file once, not again after every write: a write
#: leaves it in place (`ClosedSet.extra`), and a new one has another inode.
_READ: dict[str, tuple[tuple[int, int, int], frozenset[str] | None, list[str] | None]] = {}
#: How many times this process read a rows file's names line, and its rows (tests, benchmarks).
READS = {"names": 0, "rows": 0}


def rows_version(path: Path) -> tuple[str, int, int, int] | None:
    """``(path, mtime_ns, size, inode)`` of a rows file, None when it is not there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return str(path), st.st_mtime_ns, st.st_size, st.st_ino


def rows_read(path: Path) -> bool:
    """True when this process holds the rows of this version of the file already (no need to read its head)."""
    known = _READ.get(str(path))
    version = rows_version(path)
    return known is not None and known[2] is not None and version is not None and known[0] == version[1:]


def rows_file(path: Path, *, names: bool) -> tuple[frozenset[str], list[str] | None]:
    """The names (`names`) or the rows (None when they do not decode) of a rows file, read once per version."""
    version = rows_version(path)
    if version is None:
        return frozenset(), None
    key = version[1:]
    known = _READ.get(str(path))
    found_names, rows = (known[1], known[2]) if known is not None and known[0] == key else (None, None)
    if names and found_names is None:
        READS["names"] += 1
        found_names = frozenset()
        with contextlib.suppress(OSError, ValueError):
            raw = _read_bounded(path)
            if raw is not None:
                lines = raw.decode("utf-8").split("\n", 2)
                found_names = frozenset((lines[1] if len(lines) > 1 else "").split("\t")) - {""}
    if not names and rows is None:
        READS["rows"] += 1
        rows = read_lines(path)
    if str(path) not in _READ and len(_READ) >= 4:  # a file or two per folder at a time
        del _READ[next(iter(_READ))]
    _READ[str(path)] = (key, found_names, rows)
    return found_names or frozenset(), rows


def checked_row(line: object) -> str:
    """One row of a header's `extra`, checked for its six fields (else the header does not load)."""
    if not isinstance(line, str) or line.count("\t") != 5 or not line.endswith("\n"):
        raise ValueError("not a row")
    return line


def _read_bounded(path: Path) -> bytes | None:
    """The bytes of a rows file; None when it is no regular file (a FIFO, a link to /dev/zero: never waited on) or
    larger than a state file may be. OSError when it cannot be opened."""
    from brain_tui.core.records.state_json import MAX_STATE_BYTES
    from brain_tui.core.records.yamlio import read_capped

    raw = read_capped(path, MAX_STATE_BYTES + 1)
    return None if raw is None or len(raw) > MAX_STATE_BYTES else raw


def open_rows(path: Path) -> io.TextIOWrapper:
    """The rows file open to read line by line. OSError when it cannot be opened or is no regular file once opened
    (a FIFO, a link to /dev/zero): the open does not block and nothing is read from it."""
    import errno

    fd = open_regular(path, os.O_RDONLY)
    if fd is None:
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return open(fd, encoding="utf-8")  # noqa: SIM115 - the caller's `with` closes it


def read_lines(path: Path) -> list[str] | None:
    """The rows of the stored set, or None when the file does not hold as many as its header says."""
    try:
        raw = _read_bounded(path)
        if raw is None:
            return None
        first, _sep, rest = raw.decode("utf-8").partition("\n")
        head = json.loads(first)
        parts = rest.split("\n")  # lines as `readlines` gives them: only "\n" ends one
        lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        lines = lines[1:]
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(head, dict) or head.get("format") != FORMAT or head.get("count") != len(lines) or \
            (lines and not lines[-1].endswith("\n")):
        return None
    return lines


def write_atomically(path: Path, text: str) -> None:
    """Temp file and rename: a reader sees the old or the new file (no fsync: a torn file after a
    power cut fails its count check and is rebuilt). The temp file is this writer's own, not only this
    process's: two threads (a read storing the closed set, a write advancing it) may write one file."""
    tmp = path.with_name(f"{TEMP_MARK}{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
