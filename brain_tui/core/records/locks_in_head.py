"""Locks are in force as committed (SPEC 22): a lock file HEAD holds keeps holding when the work tree lets it go.

A lock file HEAD holds that the work tree deleted, or rewrote (another holder, an earlier expiry), without a
commit has freed nothing: a live read holds HEAD's copy beside the work tree's, so the file is locked while
either copy locks it. The other way is already fail closed: an uncommitted new lock file locks from the work tree.

HEAD's lock files are listed once per commit (one ``git ls-tree``; a commit with no ``locks/`` lists empty), the
listing kept in ``.brain/``; a read hashes the work tree's lock files as git hashes a blob (no git process) and
reads HEAD's copy (one ``git cat-file``) only of the files that differ from it.
"""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path

from brain_tui.core.paths.layout import LOCKS_DIR, STATE_DIR
from brain_tui.core.records.closed_set import read_blobs
from brain_tui.core.records.formats import YAML_SUFFIXES, lock_from_mapping
from brain_tui.core.records.git_head import blob_id, git_output, head_commit, outside_git
from brain_tui.core.records.model import CorruptFile, Lock
from brain_tui.core.records.yamlio import MAX_FILE_BYTES, CorruptYaml, read_capped, safe_load_bytes

__all__ = ["HEAD_LISTING", "held_in_head"]

#: The listing of HEAD's lock files, in ``.brain/``: ``{"commit": ID, "files": {name: blob ID}}``.
HEAD_LISTING = "locks-head.json"

#: The git modes of the files a lock listing keeps (regular files; a link in HEAD is no lock file).
_FILE_MODES = ("100644", "100755")


def _listed(name: str) -> bool:
    return name.endswith((*YAML_SUFFIXES, ".lock")) and "/" not in name


def _stored(root: Path, commit: str) -> dict[str, str] | None:
    from brain_tui.core.records.state_json import read_for_commit

    data = read_for_commit(root / STATE_DIR / HEAD_LISTING, commit)
    files = data.get("files") if data is not None else None
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return None
    return files


def _listing(root: Path, commit: str, persist: bool) -> dict[str, str]:
    """``{name: blob ID}`` of the lock files HEAD holds (``{}`` when it holds no ``locks/`` or git failed).

    A commit that holds no ``locks/`` (a hand-made brain, a lock folder never committed) lists as empty and is kept
    like any other listing: git answers "nothing there" (``ls-tree`` of the folder as a path) where it used to fail.
    A failure is not kept: it is asked again next time.
    """
    from brain_tui.core.records.state_json import write_for_commit

    stored = _stored(root, commit) if persist else None
    if stored is not None:
        return stored
    prefix = f"{LOCKS_DIR}/"
    out = git_output(root, "ls-tree", "-z", commit, "--", prefix)  # its paths are relative to the brain's folder
    if out is None:  # git failed: nothing kept
        return {}
    files: dict[str, str] = {}
    for entry in out.split(b"\0"):
        meta, _, raw_path = entry.partition(b"\t")
        parts = meta.split(b" ")
        path = raw_path.decode("utf-8", "surrogateescape")
        name = path[len(prefix):]
        if len(parts) == 3 and parts[0].decode() in _FILE_MODES and parts[1] == b"blob" and path.startswith(prefix) \
                and _listed(name):
            files[name] = parts[2].decode("ascii", "replace")
    if persist:
        write_for_commit(root, HEAD_LISTING, commit, files=files)
    return files


def held_in_head(root: Path, tz: tzinfo, *, persist: bool = True) -> list[Lock | CorruptFile]:
    """HEAD's copy of every lock file the work tree deleted or changed without a commit (a copy that does not
    read, or that git fails to give back, is a corrupt row: it may hold the lock). Empty outside git, before the first
    commit, or when git cannot list HEAD's lock files."""
    if outside_git(root):
        return []
    commit = head_commit(root)
    if not commit:
        return []
    listing = _listing(root, commit, persist)
    if not listing:
        return []
    differ: dict[str, str] = {}
    for name, oid in listing.items():
        try:
            data = read_capped(root / LOCKS_DIR / name)
        except OSError:
            data = None
        if data is None or len(data) > MAX_FILE_BYTES or blob_id(data, oid) != oid:
            differ[name] = oid
    if not differ:
        return []
    blobs = read_blobs(root, sorted(set(differ.values())))
    if blobs is None:  # git did not hand HEAD's copies over: each may hold its file, so each does until repaired
        return [CorruptFile(f"{LOCKS_DIR}/{name}", 0, "the copy git holds could not be read")
                for name in sorted(differ)]
    held: list[Lock | CorruptFile] = []
    for name, oid in sorted(differ.items()):
        rel = f"{LOCKS_DIR}/{name}"
        try:
            parsed = safe_load_bytes(blobs[oid])
        except CorruptYaml as exc:
            held.append(CorruptFile(rel, exc.line, f"{exc.reason} (the copy git holds)"))
            continue
        held.append(lock_from_mapping(parsed, rel, tz))
    return held
