"""The folders a claim's parsed scope depends on, and whether they are still as they were.

A claim file's scope is text; what it holds is read against the brain's files (`scope.parse_entry`): a path naming a
folder is a dir, ``brain/`` is the whole brain only while the brain has no ``brain`` folder, and an entry is keyed by
the path the brain's symlinks lead to (`path_keys.resolve_in_brain`). So the same claim file holds something else
once a link on its way is retargeted, a folder is made or removed where it points, or ``brain/`` appears or goes; no
byte of ``claims/`` moves. A process that keeps a parsed claim between reads (`BrainStore`, the check-scope memo of
`bsi mcp`, the cockpit) must look at those folders again before it answers from memory.

Every such change makes, removes or replaces a name in a folder holding one of the entry's components (the brain
folder for the first one), which moves that folder's ``(mtime_ns, ino, ctime_ns)``. `ways_of` lists those folders,
`way_keys` takes their keys, `ways_hold` compares. A key whose last change is less than `RACY_NS` old cannot vouch
for the parse (a second change in the same timestamp tick would look the same; a change between the parse and the
stat would be keyed with the old result): `trusted` says so.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence

from brain_tui.core.records.cache import RACY_NS

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from brain_tui.core.paths.scope import ScopeEntry

__all__ = ["WayKeys", "trusted", "vouching_keys", "way_keys", "ways_hold", "ways_of"]

#: folder (brain-relative, "" for the brain) -> its ``(mtime_ns, ino, ctime_ns)``, None when it cannot be statted
WayKeys = dict[str, "tuple[int, int, int] | None"]


def ways_of(scopes: Iterable[Sequence[ScopeEntry]]) -> dict[str, set[str]]:
    """The brain folders holding a component of an entry of `scopes` (its path and its target), each with the names
    of those components: where a name made, removed or retargeted changes what the entry holds ("" is the brain
    folder, always there: ``brain/`` depends on it). A scope is a claim's, or what an unreadable claim file holds."""
    folders: dict[str, set[str]] = {"": {"brain"}}
    for scope in scopes:
        for entry in scope:
            for path in (entry.path, entry.target):
                parts = [part for part in path.split("/") if part]
                for end, part in enumerate(parts):
                    folders.setdefault("/".join(parts[:end]), set()).add(part)
    return folders


def _dir_key(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def way_keys(root: str, folders: Iterable[str]) -> WayKeys:
    """The stat key of each folder of `folders` under the brain `root`."""
    return {rel: _dir_key(os.path.join(root, rel)) for rel in folders}


def ways_hold(root: str, keys: Mapping[str, tuple[int, int, int] | None]) -> bool:
    """True when every folder of `keys` still has its key."""
    return all(_dir_key(os.path.join(root, rel)) == key for rel, key in keys.items())


def trusted(keys: Mapping[str, tuple[int, int, int] | None], taken_at_ns: int, racy_ns: int = RACY_NS) -> bool:
    """True when no key changed less than `racy_ns` before `taken_at_ns` (`time.time_ns()` when taken)."""
    return all(key is None or taken_at_ns - max(key[0], key[2]) >= racy_ns for key in keys.values())


def vouching_keys(root: str, scope: Sequence[ScopeEntry]) -> WayKeys | None:
    """The keys of the ways of `scope`, just read under the brain `root`; None when one is too fresh to vouch
    for what was read (`trusted`)."""
    taken = time.time_ns()
    keys = way_keys(root, ways_of((scope,)))
    return keys if trusted(keys, taken) else None
