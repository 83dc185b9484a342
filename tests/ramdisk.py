"""The tests' temporary folders go to a RAM file system (`/dev/shm`) when the machine has one with room.

Brains, clones and remotes live under `tmp_path` (and `tempfile`'s folder): every write the product
makes there ends in `fsync` and an atomic rename, which on a disk wait for the disk (ext4 flushes a file
renamed over another): about 3 ms an atomic write on the CI machine's disk, 0.06 ms on tmpfs, and the
hypothesis and kill -9 suites make thousands. What the tests check is unchanged: a `kill -9` loses no
page the kernel holds, on a disk or in RAM (no test cuts the power). tests/conftest.py imports this
module first, before the runner (tests/bsi.py) copies the environment, so every `bsi` and `git` the
tests start inherits `TMPDIR` too.

The end-to-end tests keep their folders on the disk (`DISK`, tests/e2e/conftest.py): Claude Code's
sandbox mounts a /dev of its own, without the host's /dev/shm.

`TMPDIR` set by the caller wins (set it to keep the temporary folders on a disk); so does a machine
with no `/dev/shm` or less than `MIN_FREE` bytes free there (a container's default 64 MB).
"""

from __future__ import annotations

import os
import shutil
import tempfile

RAM = "/dev/shm"
#: Room the RAM folder must have free (pytest keeps the last three runs' folders, a few hundred MB each).
MIN_FREE = 4 << 30


def _ram_with_room() -> bool:
    try:
        return os.path.isdir(RAM) and os.access(RAM, os.W_OK | os.X_OK) and shutil.disk_usage(RAM).free >= MIN_FREE
    except OSError:
        return False


#: Where the process that moved the temporary folder says it was (the xdist workers inherit it).
DISK_VAR = "TESTS_DISK_TMPDIR"
#: The temporary folder before this module moved it (on a disk unless the caller chose otherwise).
DISK: str = os.environ.get(DISK_VAR) or tempfile.gettempdir()
#: The folder the tests' temporary files go to when this module moved them, else None.
MOVED_TO: str | None = None
if os.environ.get(DISK_VAR) and os.environ.get("TMPDIR") == RAM:  # an xdist worker: moved by the controller
    MOVED_TO = RAM
elif not os.environ.get("TMPDIR") and _ram_with_room():
    os.environ[DISK_VAR] = DISK
    os.environ["TMPDIR"] = MOVED_TO = RAM
    tempfile.tempdir = None  # computed again from TMPDIR on the next use
