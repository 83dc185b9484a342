"""A write's commit moves the saved closed sets on itself, so the next read needs no ``git diff-tree``.

The writer knows what its commit did: HEAD went from `parent` to `commit`, and `commit`'s tree is
`parent`'s plus exactly the committed paths (`sync.commits.commit_paths`). So a set saved for the
parent's folder tree becomes the set of the new one by deciding only those paths, with the rule of
the set (`closed_set.advanced`, the same code a read's catch-up runs). One ``git diff-tree`` limited to
the committed paths gives both folder trees and the new blobs; one ``git cat-file --batch`` reads them.

What is never done: advance a set saved for another tree (the read catches up as before), or
record the folder's listing as fresh (a file another process or a hand creates at any time must
still be listed: the advanced set leaves the folder key unset, the next read lists the folder).
Any failure leaves the saved set as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo
from pathlib import Path

from brain_tui.core.records import closed_set
from brain_tui.core.records.closed_set import ARCHIVED_SIGNALS, CLOSED_CLAIMS, ClosedSet, Folder

__all__ = ["advance"]

_TREE_MODE = "040000"


def advance(root: str | Path, tz: tzinfo, parent: str, commit: str, paths: Sequence[str],
            kinds: Sequence[Folder] = (CLOSED_CLAIMS, ARCHIVED_SIGNALS)) -> None:
    """Move the saved sets of `kinds` from `parent`'s tree to `commit`'s (best effort, never raises).

    Args:
        root: the brain folder.
        tz: the brain's timezone (naive close times).
        parent: the commit HEAD was at (full ID).
        commit: the commit just made on it (full ID): its tree is `parent`'s plus `paths`.
        paths: the committed paths, relative to `root`.
        kinds: the sets to move on.
    """
    try:
        _advance(Path(root), tz, parent, commit, paths, kinds)
    except Exception:  # a faster next read, never needed: the read catches up
        return


def _advance(root: Path, tz: tzinfo, parent: str, commit: str, paths: Sequence[str],
             kinds: Sequence[Folder]) -> None:
    saved = [(kind, found) for kind in kinds if (found := closed_set.load(root, kind)) is not None]
    if not saved:
        return
    mine = [p for p in paths if any(p.startswith(f"{kind.name}/") for kind, _found in saved)]
    changes: dict[str, tuple[list[str], dict[str, list[str]]]] = {}
    if mine:
        out = closed_set.git_output(root, "--literal-pathspecs", "diff-tree", "-z", "-r", "-t", "--no-renames",
                                    "--relative", parent, commit, "--", *mine)
        if out is None:
            return
        parsed = _changes(out, [kind.name for kind, _found in saved])
        if parsed is None:
            return
        changes = parsed
    for kind, found in saved:
        moved = _moved(root, tz, found, parent, changes.get(kind.name))
        if moved is not None:
            moved.commit = commit
            closed_set.store(root, moved)
            closed_set.COUNTERS["advances"] += 1


def _changes(out: bytes, folders: list[str]) -> dict[str, tuple[list[str], dict[str, list[str]]]] | None:
    """Per folder: its tree entry's fields, and the fields of each changed name directly in it; None if malformed."""
    found: dict[str, tuple[list[str], dict[str, list[str]]]] = {}
    entries: dict[str, dict[str, list[str]]] = {folder: {} for folder in folders}
    parts = out.split(b"\0")
    if len(parts) % 2 != 1 or parts[-1]:
        return None
    for meta, raw_name in zip(parts[0::2], parts[1::2], strict=False):
        fields = closed_set.diff_fields(meta)
        if fields is None:
            return None
        name = raw_name.decode("utf-8", "surrogateescape")
        folder, _slash, rest = name.partition("/")
        if folder not in entries:
            continue
        if not rest:
            found[folder] = (fields, entries[folder])
        elif "/" not in rest:  # deeper: its folder's own entry (shown by -t) stands for it
            entries[folder][rest] = fields
    return found


def _moved(root: Path, tz: tzinfo, found: ClosedSet, parent: str,
           change: tuple[list[str], dict[str, list[str]]] | None) -> ClosedSet | None:
    """The set `found` moved on to the new commit, or None when it cannot be (saved for another tree, a git failure).

    `change`: the folder's entry in the commit's diff and the entries changed in it (None: the folder's tree is
    the parent's).
    """
    if change is None:  # the commit left the folder's tree as it was
        return found if found.commit == parent else None  # (a set of unknown commit: not proven the parent's)
    fields, entries = change
    if fields[0] != _TREE_MODE or fields[1] != _TREE_MODE or fields[2] != found.tree:
        return None
    if not closed_set.rows_ok(found) or len(found.names()) != found.count:
        return None
    changed: set[str] = set()
    wanted: dict[str, str] = {}
    for name, entry in entries.items():
        closed_set.changed_entry(name, entry, changed, wanted)
    return closed_set.advanced(root, tz, found, fields[3], changed, wanted)
