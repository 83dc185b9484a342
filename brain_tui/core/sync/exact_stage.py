"""Staging bsi's own files as their bytes are: no git attribute converts what bsi commits (SPEC 21, 22).

Git converts a work-tree file on its way into the index as its attributes say (`working-tree-encoding`, `eol` and
`text`, `ident`, a `filter`), read from `.gitattributes` files in the work tree and from `.git/info/attributes`:
files an agent may write (a free file at the brain's root; the git directory through a program its shell runs).
Through them, a human's pause failed to commit (an encoding that does not decode: exit 23, the claim kept working)
or was committed as other bytes than the ones bsi wrote and reads. So every regular file bsi commits is hashed
with `git hash-object --no-filters` and put in the index by its ID (`update-index --index-info`): the commit holds
exactly what bsi wrote, whatever attribute names it. Anything else (a deleted path, a symbolic link) is staged as
git stages it (`update-index --add --remove`): no conversion applies to those.
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


#: The attributes that make git change a file's bytes on its way into the index (`crlf`: `text`'s old name).
CONVERTING = ("text", "eol", "crlf", "working-tree-encoding", "ident", "filter")


def stage_exact(root: Path, top: Path, paths: Sequence[str], env: dict[str, str], step: Step) -> None:
    """Stage `paths` (relative to `root`, in the work tree at `top`) into the index `env` names, every regular file
    an attribute would convert (`CONVERTING`) by its bytes as they are; `step` runs each git command and raises
    on failure. The others are staged as git stages them (`update-index --add --remove`: their stat data kept)."""
    real = os.path.realpath(root)
    files: list[tuple[str, str, str]] = []  # (path as given, mode, path from the top)
    rest: list[str] = []
    converted = _converted(root, paths, env, step)
    for path in paths:
        full = os.path.join(real, path)
        try:
            st = os.lstat(full)
        except OSError:
            st = None
        if path not in converted or st is None or not stat.S_ISREG(st.st_mode) or "\n" in path:
            rest.append(path)
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
        step(root, "update-index", "--add", "--remove", "-z", "--stdin", env=env,
             input_text="".join(f"{p}\0" for p in rest))


def _converted(root: Path, paths: Sequence[str], env: dict[str, str], step: Step) -> set[str]:
    """The paths some attribute would convert on their way into the index (`git check-attr`, one process)."""
    out = step(root, "check-attr", "-z", "--stdin", *CONVERTING, env=env,
               input_text="".join(f"{p}\0" for p in paths)).stdout.split("\0")
    return {out[at] for at in range(0, len(out) - 2, 3) if out[at + 2] not in ("unspecified", "unset")}
