"""Local commits a sync settles away whole: a write that loses at sync leaves nothing of itself (SPEC 22).

A protocol write is one commit holding the claim it changes and what it sent (signals, the index: SPEC 11). When
the remote changed that claim meanwhile and the protocol's rules keep the remote's side (`settle.choose`: a
human's pause beats an offline close), the write did not happen, so none of its commit may reach the remote: a
CHECKPOINT for a close that lost would tell the pilot of work done on a claim a human stopped. `lost_commits`
finds such commits before the rebase, and the rebase drops them (`sequence_editor`): its files leave the
work tree with it.

A commit is lost only when it holds protocol files alone (a commit made by hand that also carries work is kept
whole; settle still gives its claim file the remote's side) and every claim file it changes loses: a cascade (a
pause of a pilot and its tree) whose one descendant the remote ended meanwhile still pauses the others.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from brain_tui.core.paths.layout import DATA_DIRS, INDEX_FILE
from brain_tui.core.sync import gitops

__all__ = ["lost_commits", "sequence_editor", "subjects"]

_CLAIM_SUFFIXES = (".yml", ".yaml")


def _names(root: Path, *args: str) -> list[str]:
    proc = gitops.run_git(root, *args)  # a failure raises: never "nothing lost", which would push the lost write
    return [p for p in proc.stdout.split("\0") if p.endswith(_CLAIM_SUFFIXES)]


def _protocol(rel: str) -> bool:
    """Whether `rel` (brain-relative) is a protocol file a bsi write commits: under a data folder, or the index."""
    return rel == INDEX_FILE or rel.split("/", 1)[0] in DATA_DIRS


def _text(root: Path, ref: str, rel: str) -> str | None:
    proc = gitops.run_git(root, "show", f"{ref}:./{rel}", check=False)
    return proc.stdout if proc.returncode == 0 else None


def lost_commits(root: Path, upstream: str) -> list[str]:
    """The local commits (full IDs, oldest first) not on `upstream` whose every changed claim file the remote
    changed too and keeps against them (`settle.choose` answers the remote's text)."""
    from brain_tui.core.sync.settle import claim_parents

    base = gitops.run_git(root, "merge-base", "HEAD", upstream, check=False).stdout.strip()
    if not base:
        return []
    theirs = set(_names(root, "diff", "--name-only", "-z", "--no-renames", "--relative", base, upstream,
                        "--", "claims/"))
    if not theirs:
        return []
    parent_of = claim_parents(root / "claims")
    lost = []
    for commit in gitops.run_git(root, "rev-list", "--reverse", "--no-merges", f"{upstream}..HEAD").stdout.split():
        touched = gitops.run_git(root, "diff-tree", "-r", "--root", "--no-commit-id", "--name-only", "-z",
                                 "--no-renames", "--relative", commit).stdout.split("\0")  # (--root: no parent)
        if any(rel and not _protocol(rel) for rel in touched):
            continue  # a commit that also holds work (made by hand) is never dropped: settle keeps its claim's side
        mine = [rel for rel in touched if rel.startswith("claims/") and rel.endswith(_CLAIM_SUFFIXES)]
        if mine and all(rel in theirs and _loses(root, rel, commit, upstream, parent_of) for rel in mine):
            lost.append(commit)
    return lost


def _loses(root: Path, rel: str, commit: str, upstream: str, parent_of: Callable[[str], str | None]) -> bool:
    """True when the remote's side of claim file `rel` is kept against `commit`'s change to it.

    A file both sides created is never a lost write: it is one ID opened on two machines, which sync renames
    (or, missed, stops the rebase on: `settle.unrenamed_clash`), never a claim to drop.
    """
    from brain_tui.core.sync.settle import choose

    base, local, remote = _text(root, f"{commit}^", rel), _text(root, commit, rel), _text(root, upstream, rel)
    return base is not None and local != remote and choose(rel, base, remote, local, parent_of) == remote


def subjects(root: Path, commits: Sequence[str]) -> tuple[str, ...]:
    """The first line of each of `commits`' messages, in their order (what a person is told was dropped)."""
    if not commits:
        return ()
    proc = gitops.run_git(root, "show", "--no-patch", "--no-walk=unsorted", "--format=%s%x00", *commits, check=False)
    found = [line.strip("\n") for line in proc.stdout.split("\0")][: len(commits)]
    return tuple(found) if proc.returncode == 0 and len(found) == len(commits) else tuple(c[:12] for c in commits)


def sequence_editor(commits: Sequence[str]) -> str:
    """The `GIT_SEQUENCE_EDITOR` of a rebase that drops `commits` (git appends the todo file's path)."""
    return " ".join(shlex.quote(part) for part in (sys.executable, "-m", "brain_tui.core.sync.lost_writes",
                                                      *commits))


def drop_in_todo(todo: str, commits: Sequence[str]) -> str:
    """The rebase todo with each `pick` of one of `commits` (named by any prefix of its ID) turned into `drop`."""
    out = []
    for line in todo.splitlines(keepends=True):
        words = line.split(maxsplit=2)
        if len(words) >= 2 and words[0] in ("pick", "p") and any(c.startswith(words[1]) for c in commits):
            line = "drop " + line.split(maxsplit=1)[1]
        out.append(line)
    return "".join(out)


def _main(argv: Sequence[str]) -> int:
    """`python -m brain_tui.core.sync.lost_writes COMMIT… TODO`: git's sequence editor (the todo rewritten)."""
    if len(argv) < 2:
        return 2
    *commits, todo = argv
    path = Path(todo)
    path.write_text(drop_in_todo(path.read_text(encoding="utf-8"), commits), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
