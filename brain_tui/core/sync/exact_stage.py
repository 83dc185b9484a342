"""Staging bsi's own files as their bytes are: neither git's attributes nor the index decide what bsi commits
(SPEC 21, 22).

Git converts a work-tree file on its way into the index as its attributes say (`working-tree-encoding`, `eol` and
`text`, `ident`, a `filter`), read from `.gitattributes` files in the work tree and from `.git/info/attributes`:
files an agent may write (a free file at the brain's root; the git directory through a program its shell runs).
Through them, a human's pause failed to commit (an encoding that does not decode: exit 23, the claim kept working)
or was committed as other bytes than the ones bsi wrote and reads.

The index is a file of the git directory too, and `git update-index` trusts what it says of an entry: a
``skip-worktree`` bit made `update-index --add --remove` drop the entry (a human's pause committed as the claim's
deletion), an ``assume-unchanged`` bit, or stat data made to match the file's, kept the entry's old blob (the pause
not committed at all, and pushed as the open claim). So every regular file bsi commits is hashed with
`git hash-object --no-filters` and put in the index by its ID (`update-index --index-info`: a new entry, no bit and
no stat data of the old one kept): the commit holds exactly what bsi wrote. Anything else (a deleted path, a
symbolic link) is first removed from the index whatever its bits (`--force-remove`), then what is there is added
as git adds a new path (`--add`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from subprocess import CompletedProcess

from brain_tui.core.sync.gitops import CommitFailed

#: One git step that must succeed: ``(root, command, *args, env=…, input_text=…)``.
Step = Callable[..., CompletedProcess[str]]


def stage_exact(root: Path, top: Path, paths: Sequence[str], env: dict[str, str], step: Step) -> None:
    """Stage `paths` (relative to `root`, in the work tree at `top`) into the index `env` names: every regular file
    by its bytes as they are, as a new entry; `step` runs each git command and raises on failure. The others are
    removed from the index whatever its entries say, and those still there are added as new paths."""
    real = os.path.realpath(root)
    files: list[tuple[str, str, str]] = []  # (path as given, mode, path from the top)
    rest: list[str] = []
    present: list[str] = []
    for path in paths:
        full = os.path.join(real, path)
        try:
            st = os.lstat(full)
        except OSError:
            st = None
        if st is None or not stat.S_ISREG(st.st_mode) or "\n" in path:
            rest.append(path)
            if st is not None:
                present.append(path)
            continue
        mode = "100755" if st.st_mode & stat.S_IXUSR else "100644"
        files.append((path, mode, os.path.relpath(full, top)))
    if files:
        listed = "".join(os.path.join(real, path) + "\n" for path, _mode, _rel in files)
        hashed = step(root, "hash-object", "-w", "--no-filters", "--stdin-paths", env=env,
                      input_text=listed).stdout.split()
        if len(hashed) != len(files):
            raise CommitFailed("git commit failed: git hash-object did not hash every file")
        info = "".join(f"{mode} {oid}\t{rel}\0" for (_path, mode, rel), oid in zip(files, hashed, strict=True))
        step(root, "update-index", "-z", "--index-info", env=env, input_text=info)
    if rest:
        step(root, "update-index", "--force-remove", "-z", "--stdin", env=env,
             input_text="".join(f"{p}\0" for p in rest))
    if present:
        step(root, "update-index", "--add", "-z", "--stdin", env=env, input_text="".join(f"{p}\0" for p in present))
