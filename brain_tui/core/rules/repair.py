"""Repair of a claim file that does not read: back to its last committed version that reads (SPEC 22).

A claim file left unreadable (git conflict markers from a hand merge, a stray
edit, a symbolic link) blocks what it may hold until it is repaired
(core/records/unreadable.py). `bsi claim repair ID|PATH` offers the one repair the
product can make without guessing: the newest version git holds of that file
that reads as a claim. It is refused when git holds none, and when the claim
it would bring back meets another blocking claim (two holders of one scope
would be the result).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from brain_tui.core.errors import ConflictError, InvalidData, NotFound
from brain_tui.core.ids import valid_session_id
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.scope_paths import normalize_path
from brain_tui.core.record import record
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.records.formats import YAML_SUFFIXES, claim_from_mapping, parse_claim_bytes
from brain_tui.core.records.model import BrainSnapshot, Claim, CorruptFile
from brain_tui.core.records.yamlio import CorruptYaml
from brain_tui.core.rules.conflicts import CORRUPT, find_conflicts
from brain_tui.core.sync import gitops

__all__ = ["MAX_VERSIONS", "Repair", "stage_repair"]

#: How many committed versions of the file are tried, newest first.
MAX_VERSIONS = 200


@record
class Repair(JsonShaped):
    """What a repair did.

    Attributes:
        path: the claim file.
        repaired: False when the file already read (nothing was written).
        sess_id: the claim the file holds now.
        status: its status.
        commit: the commit whose version was restored ("" when nothing was).
    """

    path: str
    repaired: bool
    sess_id: str
    status: str
    commit: str = ""

    _json_none_if_unset = frozenset({"commit"})


def _target_path(snapshot: BrainSnapshot, target: str) -> str:
    """``claims/<name>`` for an ID or a path.

    Raises:
        InvalidData: a path outside ``claims/`` or not a ``.yml``/``.yaml`` file, or a malformed ID (65).
    """
    text = target.strip()
    if "/" not in text:
        if not valid_session_id(text):
            raise InvalidData(f"invalid claim {text[:80]!r}: give a session ID (sess-…) or a path claims/<name>.yml")
        names = [f"claims/{text}{suffix}" for suffix in YAML_SUFFIXES]
        for name in names:
            if any(bad.path == name for bad in snapshot.corrupt):
                return name
        return names[0]
    rel = normalize_path(text)
    if not rel.startswith("claims/") or "/" in rel[len("claims/"):] or not rel.endswith(YAML_SUFFIXES):
        raise InvalidData(f"invalid claim file {rel[:80]!r}: a claim file is claims/<name>.yml")
    return rel


def _committed_versions(root: Path, rel: str) -> list[str]:
    """The commits that changed `rel`, newest first (at most `MAX_VERSIONS`)."""
    proc = gitops.run_git(root, "log", f"-n{MAX_VERSIONS}", "--format=%H", "--", rel, check=False)
    return [line.strip() for line in proc.stdout.splitlines() if line.strip()] if proc.returncode == 0 else []


def _blob(root: Path, commit: str, rel: str) -> bytes | None:
    """The bytes of `rel` at `commit` (None when absent, a link, or unreadable)."""
    listing = gitops.run_git(root, "ls-tree", commit, "--", rel, check=False).stdout.split()
    if not listing or listing[0] != "100644" and listing[0] != "100755":
        return None
    try:
        proc = subprocess.run(["git", "cat-file", "blob", listing[2]], cwd=root, env=gitops.git_env(),
                              capture_output=True, timeout=30, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def _as_claim(raw: bytes, rel: str, snapshot: BrainSnapshot) -> Claim | None:
    try:
        data = parse_claim_bytes(raw)
    except CorruptYaml:
        return None
    found = claim_from_mapping(data, rel, snapshot.root, snapshot.tz, snapshot.default_ttl)
    return found if isinstance(found, Claim) else None


def _rank(rel: str, sess_id: str) -> int:
    """Which of several files naming one ID is read as its claim (the store's rule: the lowest; on a tie, the name
    that sorts first, which a repair does not count on)."""
    return 0 if rel == f"claims/{sess_id}.yml" else 1 if rel == f"claims/{sess_id}.yaml" else 2


def stage_repair(cs: ChangeSet, target: str) -> Repair:
    """Stage the last committed version of a corrupt claim file that reads as a claim.

    `target`: a session ID (``claims/<ID>.yml``, or ``.yaml`` when that is the corrupt one) or a path.
    A file that already reads gives ``repaired=False`` and stages nothing.

    Raises:
        InvalidData: a bad ID or path; no git history; no committed version that reads (65).
        NotFound: no such claim file (66).
        ConflictError: the claim it would bring back meets another blocking claim (10).
    """
    snapshot = cs.snapshot
    rel = _target_path(snapshot, target)
    bad: CorruptFile | None = next((c for c in snapshot.corrupt if c.path == rel), None)
    if bad is None:
        present = next((c for c in snapshot.claims if c.path == rel), None)
        if present is not None:
            return Repair(rel, False, present.sess_id, present.status)
        raise NotFound(f"claim file {rel} not found (`bsi claim list` shows the corrupt ones)")
    root = Path(snapshot.root)
    if not gitops.is_repository(root):
        raise InvalidData(f"{rel} does not read and the brain has no git history to restore it from: "
                          "fix the file by hand")
    twin = ""
    for commit in _committed_versions(root, rel):
        raw = _blob(root, commit, f"./{rel}")
        claim = _as_claim(raw, rel, snapshot) if raw is not None else None
        if raw is None or claim is None:
            continue
        owner = snapshot.claim(claim.sess_id)
        if owner is not None and owner.path != rel and _rank(rel, claim.sess_id) >= _rank(owner.path, claim.sess_id):
            # restored, it would still be a second file for that ID (the ID's own file, or a name first, holds it)
            twin = twin or f"; its versions that read name {claim.sess_id}, which {owner.path} holds"
            continue
        if claim.is_blocking:
            others = [c for c in find_conflicts(snapshot, claim.scope, parent=claim.parent,
                                                satellite_type=claim.satellite_type, exclude=claim.sess_id)
                      if not (c.status == CORRUPT and c.path == rel)]
            if others:
                raise ConflictError(
                    f"repair refused: the version of {rel} from {commit[:10]} holds {claim.scope_text}, which "
                    f"now meets {'; '.join(c.describe() for c in others)}: fix the file by hand",
                    {"conflicts": [c.as_dict() for c in others]},
                )
        cs.put_text(rel, raw.decode("utf-8"))  # it read as a claim: UTF-8
        cs.message = f"bsi: repair claim {claim.sess_id}"
        return Repair(rel, True, claim.sess_id, claim.status, commit)
    how = f"{twin}: fix the file by hand (remove or rename one of the two files)" if twin else \
        ": fix the file by hand"
    raise InvalidData(f"{rel} does not read ({bad.reason}) and no committed version of it reads as a claim{how}")
