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
text, and is checked against what a pause writes before anything of it is committed (`commit_held_back`): a record
not made by bsi (a hand, a program) can make no commit lift, end or release anything HEAD holds.

The record is written inside the pause's journal entry (`write_path.apply`): a kill before that entry finishes rolls
the record back with the files it names.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from brain_tui.core.paths.layout import CLAIMS_DIR, HELD_BACK_RECORD, INDEX_FILE, SIGNALS_DIR
from brain_tui.core.paths.text_safety import CONTROL_RE
from brain_tui.core.records.git_head import blob_id
from brain_tui.core.records.model import Claim
from brain_tui.core.records.state_json import read_state_json
from brain_tui.core.records.statuses import Status
from brain_tui.core.records.yamlio import MAX_FILE_BYTES, atomic_write_text, read_capped

__all__ = ["ReadClaim", "commit_held_back", "held_back", "record", "subjects"]

#: At most this many writes not committed are told one by one.
_NOTES_SHOWN = 10
#: How a claim file's bytes are read as the brain reads them (None: not a claim).
ReadClaim = Callable[[bytes, str], "Claim | None"]

#: A SHA-1 object ID, for `blob_id`'s choice of hash when the repository does not say (no HEAD yet).
_SHA1_LIKE = "0" * 40


def _path(root: Path) -> Path:
    return root / HELD_BACK_RECORD  # (a pause's journal entry covers it: `write_path.apply`)


def _committable(rel: str) -> bool:
    """Only the protocol's record files are ever committed from the record (never a path a forged record names)."""
    parts = rel.split("/")
    if CONTROL_RE.search(rel):  # (one line each in git's answers)
        return False
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

    `like`: an object ID of the repository (its hash: SHA-1 or SHA-256). Called inside the write's journal entry,
    which covers the record too: a kill before the entry finishes rolls both back."""
    hash_like = like or _SHA1_LIKE
    files = {rel: _blob(root, rel, hash_like) for rel in dict.fromkeys(rels) if _committable(rel)}
    writes = [*_writes(root), {"message": message, "like": hash_like, "files": files}]
    atomic_write_text(_path(root), json.dumps({"writes": writes}, sort_keys=True) + "\n")


def commit_held_back(root: Path, when: datetime | None, read_claim: ReadClaim, *, keep_undone: bool = False
                     ) -> list[str]:
    """Commit every write held back, in order, each under its own message (git must be idle: the caller checks).

    A file is committed by the last write that left it, and only while it still holds the bytes that write left.
    Only what a pause leaves is committed: a claim file HEAD holds live, made paused and holding at least all
    HEAD's copy holds (`in_force.holds_all_of`: its scope, its expiry, its breaker); a signal HEAD does not hold
    yet; the index. A file recorded absent is never committed (a pause deletes nothing), nor a folder.
    `read_claim(data, rel)` reads a claim file's bytes as the brain's reads do.
    Returns a line for each write not committed (to tell the human). The record is dropped once every write was
    settled; a git failure, or a HEAD naming no commit git holds (nothing to check a pause against), leaves it for
    the next command. With `keep_undone` (an agent's write settles it) a write not committed stays in the record, its
    files as they are, told to nobody: the next human command settles it and tells its human (the queue keeps
    showing it meanwhile). One pass over the record, one git process for HEAD's commit, one for what HEAD holds, one
    for HEAD's copies of the claims: a record of any size holds no write up."""
    from brain_tui.core.records.journal import writing
    from brain_tui.core.sync import gitops

    if gitops.run_git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).returncode != 0:
        return []  # HEAD names no commit git holds (its branch's file forged): nothing can be checked against it
    writes = _writes(root)
    plan = _last_writes(writes)
    now: dict[tuple[str, str], str | None] = {}

    def current(rel: str, like: str) -> str | None:
        if (rel, like) not in now:
            now[(rel, like)] = _blob(root, rel, like)
        return now[(rel, like)]

    head = _head_blobs(root, sorted({rel for _m, like, files in plan for rel, blob in files.items()
                                     if current(rel, like) == blob}))
    checks = _claim_checks(root, plan, head, read_claim)
    notes: list[str] = []
    kept: list[dict[str, object]] = []
    for (message, like, files), write in zip(plan, writes, strict=True):
        ready: list[str] = []
        changed: list[str] = []
        refused: list[str] = []
        for rel, blob in files.items():
            if current(rel, like) != blob:
                changed.append(rel)
            elif head.get(rel) == blob:
                continue  # HEAD holds it already (a kill after its commit, a hand's `git commit`)
            elif not checks.get(rel, rel == INDEX_FILE or (rel.startswith(f"{SIGNALS_DIR}/") and rel not in head)):
                refused.append(rel)
            else:
                ready.append(rel)
        if (refused or any(rel != INDEX_FILE for rel in changed)) and keep_undone:
            kept.append(write)
            continue
        if refused:
            notes.append(f"not committed: `{message}`: {', '.join(refused)} does not hold what a pause writes over "
                         "what the last commit holds (the claim changed since, or a record bsi did not write); "
                         "nothing of it was committed: check the claim and decide again")
            continue
        if not any(rel != INDEX_FILE for rel in changed):
            if ready:
                with writing(root, ready, message, True):
                    gitops.commit_paths(root, ready, message, when)
            continue
        # a write is committed whole or not at all; a signal it made that no commit holds (PAUSED) goes with it
        for rel in ready:
            if rel.startswith(f"{SIGNALS_DIR}/") and rel not in head:
                (root / rel).unlink(missing_ok=True)
        shown = ", ".join(rel for rel in changed if rel != INDEX_FILE)
        notes.append(f"not committed: `{message}`, written while git could not commit; {shown} changed since "
                     "(a reset or an aborted git operation put it back?), so that decision is not in force: "
                     "make it again")
    if kept:
        atomic_write_text(_path(root), json.dumps({"writes": kept}, sort_keys=True) + "\n")
    else:
        _path(root).unlink(missing_ok=True)
    if len(notes) > _NOTES_SHOWN:  # (no bsi record holds that many: a forged one says so in a few lines)
        notes[_NOTES_SHOWN:] = [f"and {len(notes) - _NOTES_SHOWN} more writes held back not committed"]
    return notes


def _last_writes(writes: list[dict[str, object]]) -> list[tuple[str, str, dict[str, str]]]:
    """Each write as ``(message, hash like, {file: blob})``, holding only the files no later write left and that
    may be committed (a protocol record file, recorded present)."""
    plan: list[tuple[str, str, dict[str, str]]] = []
    later: set[str] = set()
    for write in reversed(writes):
        files = {rel: blob for rel, blob in _files(write).items()
                 if isinstance(rel, str) and isinstance(blob, str) and _committable(rel) and rel not in later}
        later.update(rel for rel in _files(write) if isinstance(rel, str))
        plan.append((str(write.get("message") or "bsi: update"), str(write.get("like") or _SHA1_LIKE), files))
    plan.reverse()
    return plan


def _head_blobs(root: Path, rels: list[str]) -> dict[str, str]:
    """The blob HEAD holds at each of `rels` that it holds as a file (one `git cat-file --batch-check`)."""
    from brain_tui.core.sync import gitops

    if not rels:
        return {}
    proc = gitops.run_git(root, "cat-file", "--batch-check=%(objectname) %(objecttype)",
                          input_text="".join(f"HEAD:./{rel}\n" for rel in rels))
    found: dict[str, str] = {}
    for rel, line in zip(rels, proc.stdout.splitlines(), strict=False):
        oid, _, kind = line.partition(" ")
        if kind == "blob":
            found[rel] = oid
    return found


def _claim_checks(root: Path, plan: list[tuple[str, str, dict[str, str]]], head: dict[str, str],
                  read_claim: ReadClaim) -> dict[str, bool]:
    """For each claim file of `plan` that holds what its write left and differs from HEAD's: whether it is a pause
    of HEAD's live copy (`in_force.holds_all_of`)."""
    from brain_tui.core.records.closed_set import read_blobs
    from brain_tui.core.records.in_force import holds_all_of

    wanted = sorted({rel for _m, _like, files in plan for rel, blob in files.items()
                     if rel.startswith(f"{CLAIMS_DIR}/") and head.get(rel) != blob})
    olds = read_blobs(root, sorted({head[rel] for rel in wanted if rel in head})) or {}
    checks: dict[str, bool] = {}
    for rel in wanted:
        old = olds.get(head.get(rel, ""))
        try:
            data = read_capped(root / rel, MAX_FILE_BYTES + 1)
        except OSError:
            data = None
        mine = read_claim(data, rel) if data is not None and len(data) <= MAX_FILE_BYTES else None
        theirs = read_claim(old, rel) if old is not None else None
        checks[rel] = (mine is not None and theirs is not None and mine.status == Status.PAUSED
                       and holds_all_of(mine, theirs))
    return checks
