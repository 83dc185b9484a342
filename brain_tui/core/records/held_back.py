"""A human's pause that git could not commit yet: written to the work tree at once, committed once git is idle.

The brake must work whatever state git is in. While a merge, rebase, cherry-pick or revert is stopped halfway, or
HEAD is detached, no bsi write commits (`gitops.stall`): a commit would join the user's operation or belong to no
branch. An agent's program can put git in such a state on purpose (a `.git/MERGE_HEAD` is one file), and every write
would then refuse, the human's pause included. So a pause (`Brain.people.pause`) made then is written to the work
tree without a commit: there a tightening is in force at once for every live read, the hook's included
(`records.in_force`: a lift needs both HEAD and the work tree, and the work tree's claim files are fenced from the
agents). What it wrote is recorded here (`.brain/held-back.json`: each write's commit message and the blob of every
file it left), and the first bsi write, or sync, that finds git idle again commits each write held back, in order,
under its own message, before its own (`commit_held_back`).

A write whose files no longer all hold the bytes it left (a human's `git rebase --abort` or `reset --hard` put one
back) is not committed, none of it: what is in the work tree now was not decided by that write. The PAUSED signal
it made is removed with it, and the caller is told, so the human knows that pause is gone; the claim files are left
as they are (a pause still there is the stricter reading, never lifted here). The record holds blob IDs only, never
text: a forged record can at most make bsi commit work-tree bytes of protocol files that are already there (and
already read as the stricter of HEAD and the work tree).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from brain_tui.core.paths.layout import CLAIMS_DIR, HELD_BACK_FILE, INDEX_FILE, SIGNALS_DIR, STATE_DIR
from brain_tui.core.records.git_head import blob_id
from brain_tui.core.records.state_json import read_state_json
from brain_tui.core.records.yamlio import atomic_write_text, read_capped

__all__ = ["commit_held_back", "held_back", "record", "subjects"]

#: A SHA-1 object ID, for `blob_id`'s choice of hash when the repository does not say (no HEAD yet).
_SHA1_LIKE = "0" * 40


def _path(root: Path) -> Path:
    return root / STATE_DIR / HELD_BACK_FILE


def _committable(rel: str) -> bool:
    """Only the protocol's record files are ever committed from the record (never a path a forged record names)."""
    parts = rel.split("/")
    return (rel == INDEX_FILE or (len(parts) == 2 and parts[0] in (CLAIMS_DIR, SIGNALS_DIR)
                                  and parts[1] not in ("", ".", "..")))


def _blob(root: Path, rel: str, like: str) -> str | None:
    """The git blob ID of the file's bytes now; None when it is absent or no regular file."""
    target = root / rel
    if not target.is_file() or target.is_symlink():
        return None
    try:
        data = read_capped(target, -1)
    except OSError:
        return None
    return blob_id(data, like) if data is not None else None


def _writes(root: Path) -> list[dict[str, object]]:
    doc = read_state_json(_path(root))
    writes = doc.get("writes") if isinstance(doc, dict) else None
    return [w for w in writes if isinstance(w, dict)] if isinstance(writes, list) else []


def _files(write: dict[str, object]) -> dict[str, object]:
    files = write.get("files")
    return files if isinstance(files, dict) else {}


def held_back(root: Path) -> bool:
    """True when a write waits for git to be idle to be committed."""
    return _path(root).exists()


def subjects(root: Path) -> list[str]:
    """The commit messages of the writes held back, oldest first (what a person is told waits for git)."""
    return [str(write.get("message") or "bsi: update") for write in _writes(root)]


def record(root: Path, message: str, rels: list[str], like: str | None) -> None:
    """Remember a write left uncommitted: its `message` and the blob each of `rels` holds now (absent: None).

    `like`: an object ID of the repository (its hash: SHA-1 or SHA-256). Called by the write before its journal
    entry finishes, so a kill either rolls the files back (the record then names bytes no longer there: skipped) or
    keeps both."""
    hash_like = like or _SHA1_LIKE
    files = {rel: _blob(root, rel, hash_like) for rel in dict.fromkeys(rels) if _committable(rel)}
    writes = [*_writes(root), {"message": message, "like": hash_like, "files": files}]
    atomic_write_text(_path(root), json.dumps({"writes": writes}, sort_keys=True) + "\n")


def commit_held_back(root: Path, when: datetime | None) -> list[str]:
    """Commit every write held back, in order, each under its own message (git must be idle: the caller checks).

    A file is committed by the last write that left it, and only while it still holds the bytes that write left.
    Returns a line for each write some of whose files no longer held them (to tell the human). The record is
    dropped once every write was committed; a git failure leaves it for the next command."""
    from brain_tui.core.records.journal import writing
    from brain_tui.core.sync import gitops

    writes = _writes(root)
    if not writes:
        _path(root).unlink(missing_ok=True)
        return []
    notes: list[str] = []
    for n, write in enumerate(writes):
        files = _files(write)
        message = str(write.get("message") or "bsi: update")
        like = str(write.get("like") or _SHA1_LIKE)
        later = {rel for other in writes[n + 1:] for rel in _files(other)}
        ready: list[str] = []
        changed: list[str] = []
        for rel, blob in files.items():
            if not isinstance(rel, str) or not _committable(rel) or rel in later:
                continue
            (ready if _blob(root, rel, like) == blob else changed).append(rel)
        if not any(rel != INDEX_FILE for rel in changed):
            if ready:
                with writing(root, ready, message, True):
                    gitops.commit_paths(root, ready, message, when)
            continue
        # a write is committed whole or not at all; a signal it made that no commit holds (PAUSED) goes with it
        for rel in ready:
            if rel.startswith(f"{SIGNALS_DIR}/") and gitops.run_git(root, "cat-file", "-e", f"HEAD:./{rel}",
                                                                     check=False).returncode != 0:
                (root / rel).unlink(missing_ok=True)
        shown = ", ".join(rel for rel in changed if rel != INDEX_FILE)
        notes.append(f"not committed: `{message}`, written while git could not commit; {shown} changed since "
                     "(a reset or an aborted git operation put it back?), so that decision is not in force: "
                     "make it again")
    _path(root).unlink(missing_ok=True)
    return notes
