"""A change feed over a few folders (Linux inotify through ctypes): "did anything change there since I last asked?".

The kernel queues an inotify event inside the system call that changes the file (write, truncate, chmod/utime,
create, delete, rename), before that call returns to the writer. So once a writer's call has returned, a non-blocking
read of the queue sees its event: the feed has no latency window and no thread. It sees what this machine's kernel
does (a local work tree, the product's own writes, git, editors writing in place); it does not see a change made by
another machine on a network file system, which is why its user (`blocking_claims`) keeps its stat keys as well.

Where inotify is missing (not Linux, no watch left, a folder that cannot be watched) `FileEvents.available` is False
and the feed tells nothing: its user falls back to stat keys alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import struct
import sys
from collections.abc import Collection

from brain_tui.core.paths.path_keys import path_key

__all__ = ["FileEvents"]

_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
#: Every event that can mean new content, a new name or a name gone (IN_ACCESS/IN_OPEN/IN_CLOSE_NOWRITE left out).
_MASK = (0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800)
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_HEADER = struct.Struct("iIII")
#: File systems whose every change goes through this kernel (so through inotify): not network, FUSE or virtiofs.
LOCAL_FS = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "overlay", "zfs", "f2fs", "jfs",
                      "reiserfs", "bcachefs", "nilfs2", "vfat", "exfat", "hfsplus"})


def fs_type(folder: str) -> str:
    """The file system type of the mount holding `folder` (from /proc/self/mountinfo), "" when unknown."""
    try:
        target = os.path.realpath(folder)
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return ""
    best, kind = "", ""
    for line in lines:
        fields, _sep, rest = line.partition(" - ")
        parts = fields.split()
        if len(parts) < 5 or not rest:
            continue
        mount = parts[4].encode().decode("unicode_escape") if "\\" in parts[4] else parts[4]
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, kind = mount, rest.split()[0]
    return kind


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols: libc, no `ldconfig` run
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        return libc
    except (OSError, AttributeError):
        return None


class FileEvents:
    """Changes in some folders since the last `changed()` call.

    `folders` maps a folder path to the names in it that matter (None: every name). A folder
    that does not exist yet is not watched: watch its parent for its name."""

    def __init__(self, folders: dict[str, Collection[str] | None]) -> None:
        self._names: dict[int, frozenset[str] | None] = {}
        self._fd = -1
        #: True when every folder given is watched and on a local file system (`LOCAL_FS`): no change there can
        #: bypass the feed.
        self.local = False
        libc = _libc()
        if libc is None:
            return
        fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            return
        self._fd = fd
        for folder, names in folders.items():
            if not os.path.isdir(folder):
                continue
            wd = libc.inotify_add_watch(fd, os.fsencode(folder), _MASK)
            if wd < 0:
                self.close()
                return
            # by `path_key`: a name another spelling of one that matters (a link ``alias`` for ``Alias``) matters
            self._names[wd] = None if names is None else frozenset(path_key(n) for n in names)
        self.local = len(self._names) == len(folders) and all(fs_type(f) in LOCAL_FS for f in folders)

    @property
    def available(self) -> bool:
        """True when the feed watches every folder it was given that existed (its answers can be trusted)."""
        return self._fd >= 0

    def changed(self) -> bool:
        """True when an event that matters was queued since the last call (or the queue overflowed, or a
        watched folder went away: then always True, the feed is no longer complete). Drains the queue."""
        if self._fd < 0:
            return True
        hit = False
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return hit
            except OSError:
                self.close()
                return True
            offset = 0
            while offset + _HEADER.size <= len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
                name = data[offset + _HEADER.size: offset + _HEADER.size + length].rstrip(b"\0")
                offset += _HEADER.size + length
                if mask & (_IN_Q_OVERFLOW | _IN_IGNORED) or wd not in self._names:
                    self.close()
                    return True
                wanted = self._names[wd]
                if wanted is None or not name or path_key(os.fsdecode(name)) in wanted:
                    hit = True

    def close(self) -> None:
        """Stop watching (idempotent); `available` is then False."""
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = -1
        self._names = {}
        self.local = False

    def __del__(self) -> None:
        self.close()
