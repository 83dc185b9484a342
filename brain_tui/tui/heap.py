"""The cockpit's memory: its long-lived objects out of the cyclic collector, a write's pages given back.

At 100,000 claims the cockpit holds a few hundred thousand objects for its whole life (the parse cache, the snapshot,
the widgets). Each full collection walks them all: 0.1–0.25 s of CPU landing on whatever allocates next, often a file
change on its way to the screen. Once the first full snapshot is on screen they are moved out of the collector's reach
(`gc.freeze`): they are still freed by reference counting when dropped; only cycles among them wait for the process to
end. After a write, the pages its dropped snapshots held go back to the system (`release`, glibc's ``malloc_trim``).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable


def settle() -> int:
    """Collect once, then freeze what is left (the start-up's objects); the number of objects frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


@functools.cache
def _trimmer() -> Callable[[], object] | None:
    """glibc's `malloc_trim(0)`, when the process's C library has it (None elsewhere: macOS, musl)."""
    import ctypes  # only once a write happened: not on the first paint's path

    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return lambda: trim(0)


def release() -> bool:
    """Give the heap's free pages back to the system (after a write: its snapshots were dropped).

    A write builds and drops tens of MB of records at 100,000 claims; the allocator keeps the pages
    and the cockpit's RSS grew by ~3 MB a write. False when the C library cannot (nothing done).
    """
    trim = _trimmer()
    if trim is None:
        return False
    gc.collect()  # what the write left in cycles first (the frozen start-up objects are not walked)
    trim()
    return True
