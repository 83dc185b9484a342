"""A closed set moved from one tree to another: by a read's ``git diff-tree`` (`apply_diff`), or by a write's
own commit (`advance`), so the next read needs no diff at all.

The writer knows what its commit did: HEAD went from `parent` to `commit`, and `commit`'s tree is
`parent`'s plus exactly the committed paths (`sync.commits.commit_paths`). So a set saved for the
parent's folder tree becomes the set of the new one by deciding only those paths, with the rule of
the set (`advanced`, the same code a read's catch-up runs). One ``git cat-file --batch-check``
gives both folder trees, one ``git ls-tree`` of the committed paths their new blobs, one
``git cat-file --batch`` reads them (a diff of the two folder trees would walk every entry of both).

The writer then lists the folder itself, once its files are in place, as a read does when the folder's key moved
(`closed_set._relist`: the key taken before the listing and checked after it; a file made meanwhile leaves the key
unset): the next read, the hook's or preflight's, finds the folder as listed and lists nothing. A file another
process or a hand makes after that listing moves the folder's key: the next read lists the folder again.

What is never done: advance a set saved for another tree (the read catches up as before), or trust a
listing the folder's key does not vouch for. Any failure leaves the saved set as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo
from pathlib import Path

from brain_tui.core.records import closed_set
from brain_tui.core.records.closed_set import (
    ARCHIVED_SIGNALS,
    CLOSED_CLAIMS,
    COUNTERS,
    FILE_MODES,
    ClosedSet,
    Folder,
    _dir_key,
    _evaluate,
    _line_name,
    _line_time,
    _listed,
    _odd,
    _relist,
    merged,
    rows_ok,
)

__all__ = ["DELTA_ROWS", "advance", "advanced", "apply_diff"]

#: How many changed rows the header carries beside its rows file before the file is written again in full
#: (a write then costs a header, not the whole history's rows, but for one write in this many).
DELTA_ROWS = 500

def apply_diff(root: Path, tz: tzinfo, old: ClosedSet, tree: str) -> ClosedSet | None:
    """The set for `tree` from the set for an older tree: only the files that changed are read.

    These are commits the brain's own writes did not make (a pull, a hand commit, git's plumbing): a claim file
    they end while the work tree's copy is still live stays out of the set (`closed_set._evaluate`).
    """
    COUNTERS["diffs"] += 1
    out = closed_set.git_output(root, "diff-tree", "-z", "--no-renames", old.tree, tree)
    if out is None:
        return None
    wanted: dict[str, str] = {}
    changed: set[str] = set()
    parts = out.split(b"\0")
    for meta, raw_name in zip(parts[0::2], parts[1::2], strict=False):
        fields = meta.decode("ascii", "replace").lstrip(":").split(" ")  # old, new mode; old, new blob; status
        if len(fields) != 5:
            return None
        changed_entry(raw_name.decode("utf-8", "surrogateescape"), fields, changed, wanted)
    return advanced(root, tz, old, tree, changed, wanted)


def changed_entry(name: str, fields: list[str], changed: set[str], wanted: dict[str, str]) -> None:
    """Note one changed entry of the folder's tree: it leaves the set, and its new blob is to be decided
    when it is a file the set can hold (not deleted, not a link or a folder, a name the store reads)."""
    changed.add(name)
    if fields[4] != "D" and fields[1] in FILE_MODES and _listed(name):
        wanted[name] = fields[3]


def advanced(root: Path, tz: tzinfo, old: ClosedSet, tree: str, changed: set[str],
             wanted: dict[str, str]) -> ClosedSet | None:
    """The set for `tree` from the set `old` of a tree that differs from it in the names `changed` only.

    The changed names leave the set; `wanted` (``{name: new blob}``, the changed names that are files
    in `tree`) are decided again. The result lists no live names (``dir_key`` unset: the next read
    lists the folder). None on a git failure.
    """
    kind = old.kind
    others = dict(old.others)
    for name in changed:
        others.pop(name, None)
    added: dict[str, str] = {}
    if not _evaluate(root, kind, tz, wanted, added, others):
        return None
    names = old.names()
    if not added and not changed & names:  # the same rows: the old set's rows file serves the new tree too
        return ClosedSet(tree, (0, 0, 0), (), old.count, others, old.odd, old._path, old._lines, names, kind=kind,
                         extra=old.extra, dropped=old.dropped)
    odd = {sess_id: kept for sess_id, files in old.odd.items() if (kept := [n for n in files if n not in changed])}
    odd = _odd(added, odd)
    left = changed & names
    new_names = (names - changed) | set(added)
    extra = [line for line in old.extra if _line_name(line) not in changed] + list(added.values())
    dropped = old.dropped | left
    if old._path is not None and len(extra) + len(dropped) <= DELTA_ROWS:
        # the rows file stays; the header carries what changed since it (`ClosedSet.extra`, `dropped`)
        lines = None if old._lines is None else merged(old._lines, tuple(added.values()), frozenset(changed))
        return ClosedSet(tree, (0, 0, 0), (), len(new_names), others, odd, old._path, lines, new_names, kind=kind,
                         extra=tuple(sorted(extra, key=_line_time)), dropped=dropped)
    if not rows_ok(old):
        return None
    lines = merged(old.lines(), tuple(added.values()), frozenset(changed), names)
    return ClosedSet(tree, (0, 0, 0), (), len(lines), others, odd, None, lines, new_names, kind=kind)


def advance(root: str | Path, tz: tzinfo, parent: str, commit: str, paths: Sequence[str],
            kinds: Sequence[Folder] = (CLOSED_CLAIMS, ARCHIVED_SIGNALS)) -> None:
    """Move the saved sets of `kinds` from `parent`'s tree to `commit`'s, whose tree is `parent`'s plus the
    committed `paths` (full commit IDs, paths relative to `root`; best effort, never raises)."""
    try:
        _advance(Path(root), tz, parent, commit, paths, kinds)
    except Exception:  # a faster next read, never needed: the read catches up
        return


def _advance(root: Path, tz: tzinfo, parent: str, commit: str, paths: Sequence[str],
             kinds: Sequence[Folder]) -> None:
    saved = [(kind, found) for kind in kinds if (found := closed_set.load(root, kind)) is not None]
    if not saved:
        return
    asked = "".join(f"{rev}:./{kind.name}\n" for kind, _found in saved for rev in (parent, commit))
    out = closed_set.git_output(root, "cat-file", "--batch-check", data=asked.encode())
    if out is None:
        return
    answers = out.decode("utf-8", "surrogateescape").split("\n")
    moving: list[tuple[ClosedSet, str]] = []
    for number, (_kind, found) in enumerate(saved):
        before, after = _tree_id(answers, 2 * number), _tree_id(answers, 2 * number + 1)
        if before is not None and after is not None and before == found.tree:  # else: saved for another tree
            moving.append((found, after))
    if not moving:
        return
    mine = [p for p in paths if any(p.startswith(f"{found.kind.name}/") for found, after in moving
                                    if after != found.tree)]
    entries: dict[str, list[str]] = {}
    if mine:
        listed = closed_set.git_output(root, "--literal-pathspecs", "ls-tree", "-z", commit, "--", *mine)
        if listed is None:
            return
        for item in listed.split(b"\0"):
            meta, _tab, raw_name = item.partition(b"\t")
            if item:
                entries[raw_name.decode("utf-8", "surrogateescape")] = meta.decode("ascii", "replace").split(" ")
    for found, after in moving:
        moved = found if after == found.tree else _moved(root, tz, found, after, mine, entries)
        if moved is not None:
            moved.commit = commit
            key = _dir_key(root, moved.kind)  # listed now by the writer, not by the next read: the same listing
            relisted = _relist(root, moved, key) if key is not None else None
            if relisted is not None:
                relisted.commit = commit
                moved = relisted
            closed_set.store(root, moved)
            COUNTERS["advances"] += 1


def _tree_id(answers: list[str], number: int) -> str | None:
    """The tree ID in ``git cat-file --batch-check``'s answer `number`, None when missing or not a tree."""
    fields = answers[number].split(" ") if number < len(answers) else []
    return fields[0] if len(fields) == 3 and fields[1] == "tree" else None


def _moved(root: Path, tz: tzinfo, found: ClosedSet, tree: str, paths: list[str],
           entries: dict[str, list[str]]) -> ClosedSet | None:
    """The set `found` moved on to its folder's new `tree` (`entries`: ``ls-tree``'s ``[mode, type, blob]`` of each
    committed path, none when deleted); None when it cannot be (rows that do not decode, a git failure)."""
    if len(found.names()) != found.count:  # (the rows are loaded only if they change: `advanced`)
        return None
    changed: set[str] = set()
    wanted: dict[str, str] = {}
    prefix = f"{found.kind.name}/"
    for path in paths:
        if not path.startswith(prefix):
            continue
        name, deeper, _rest = path[len(prefix):].partition("/")
        entry = entries.get(path)
        if deeper or entry is None or len(entry) != 3 or entry[1] != "blob":  # gone, a folder or deeper: it leaves
            changed.add(name)
        else:  # as a diff of the two trees shows a file there: [old mode, new mode, old blob, new blob, status]
            changed_entry(name, ["", entry[0], "", entry[2], "M"], changed, wanted)
    return advanced(root, tz, found, tree, changed, wanted)
