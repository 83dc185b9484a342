"""The cockpit's long-lived objects and Python's cyclic garbage collector.

At 100,000 claims the cockpit holds a few hundred thousand objects for its whole
life (the parse cache, the snapshot, the widgets). Each full collection walks
them all: 0.1–0.25 s of CPU landing on whatever allocates next, often a file
change on its way to the screen. Once the first full snapshot is on screen they
are moved out of the collector's reach (`gc.freeze`): they are still freed by
reference counting when dropped; only cycles among them wait for the process
to end.
"""

from __future__ import annotations

import gc


def settle() -> int:
    """Collect once, then freeze what is left (the start-up's objects); the number of objects frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
