"""What git says changed, read only: line counts, status letters, patches, untracked files (the gate review's sources,
`core.rules.gate_review`).

Renames are detected (`-M`, git's default similarity) whatever the repository's `diff.renames` says: a moved file
is one change, listed under its new path with an ``R`` and its old path, not a deletion and an unrelated addition.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from brain_tui.core.sync.gitops import literal, run_git


def numstat(root: str | Path, *args: str) -> list[tuple[str, str, str]]:
    """(added, deleted, path) from `git ARGS --numstat -z -M --relative` (``-`` for binary counts; a rename's new
    path)."""
    proc = run_git(root, args[0], "--numstat", "-z", "-M", "--relative", "--no-ext-diff", *args[1:], check=False)
    if proc.returncode != 0:
        return []
    out = []
    parts = iter(proc.stdout.split("\0"))
    for part in parts:  # "added\tdeleted\tpath\0"; a rename "added\tdeleted\t\0old\0new\0"; a commit's list after "\n"
        fields = part.lstrip("\n").split("\t", 2)
        if len(fields) != 3:
            continue
        path = fields[2]
        if not path:
            next(parts, "")
            path = next(parts, "")
        if path:
            out.append((fields[0], fields[1], path))
    return out


def name_status(root: str | Path, *args: str) -> dict[str, tuple[str, str]]:
    """{path: (git's status letter (A, M, D, T, R, C…), the old path of a rename or copy, else "")} from
    `git ARGS --name-status -z -M --relative`; with several commits, a path keeps what the first one listing it says."""
    proc = run_git(root, args[0], "--name-status", "-z", "-M", "--relative", "--no-ext-diff", *args[1:], check=False)
    parts = iter(proc.stdout.split("\0") if proc.returncode == 0 else [])
    out: dict[str, tuple[str, str]] = {}
    for head in parts:  # "M\0path\0"; a rename "R100\0old\0new\0"; a commit's list after "\n"
        letter = head.lstrip("\n")[:1]
        if not letter:
            continue
        old, path = "", next(parts, "")
        if letter in ("R", "C"):
            old, path = path, next(parts, "")
        if path:
            out.setdefault(path, (letter, old))
    return out


def patch_text(root: str | Path, *args: str, max_bytes: int) -> tuple[str, bool]:
    """The patch `git ARGS` prints (no colour, no external diff or textconv), cut at `max_bytes`; (text, cut)."""
    proc = run_git(root, args[0], "--no-color", "--no-ext-diff", "--no-textconv", *args[1:], check=False)
    if proc.returncode not in (0, 1):
        return "", False
    text = proc.stdout
    return (text[:max_bytes], True) if len(text) > max_bytes else (text, False)


def untracked(root: str | Path, paths: Sequence[str]) -> list[str]:
    """Untracked, not ignored files under `paths` (relative to `root`)."""
    proc = run_git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", *literal(paths), check=False)
    return [p for p in proc.stdout.split("\0") if p] if proc.returncode == 0 else []
