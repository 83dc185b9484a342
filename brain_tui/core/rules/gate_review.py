"""What a human gate asks to approve: the files a satellite changed, their diff, the tree it approves (issue 19).

The changes come from git: the commits whose message carries the claim's ID since it opened (the
product's own ``bsi:`` protocol commits left out, its ``result.commit`` added), and the uncommitted
changes inside its scope. The diff is bounded (`MAX_DIFF_BYTES`, `MAX_FILES`). Its text is the
repository's, hostile: front-ends show it through `core.text_safety`, never as markup.

The approval records ``approved_tree``: the git tree hash of the scope's files at decision time
(`scope_tree`). An approval made on a review of another tree is refused (`TreeChanged`, 12) naming
what changed, so a human never approves work they did not see.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from brain_tui.core.errors import InvalidData, TransitionRefused
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.layout import DATA_DIRS, INDEX_FILE, STATE_DIR
from brain_tui.core.paths.text_safety import placeholder
from brain_tui.core.record import field, record
from brain_tui.core.records.model import Claim
from brain_tui.core.sync import gitdiff, gitops

#: The diff shown for one gate never exceeds this many bytes (the rest is cut, and said).
MAX_DIFF_BYTES = 256 * 1024
#: At most this many changed files are listed.
MAX_FILES = 200
#: At most this many untracked files get their content in the diff.
MAX_UNTRACKED_PATCHES = 20
#: The brain's own folders: never part of a scope's tree (approving writes the claim file).
PROTOCOL_PATHS = (*DATA_DIRS, INDEX_FILE, STATE_DIR)


class TreeChanged(TransitionRefused):
    """The scope changed between the review a human saw and the decision (exit 12): review again."""


@record
class ChangedFile(JsonShaped):
    """One changed file: path (brain-relative), how (git's `--name-status` letter: ``A``, ``M``, ``D``, ``T``,
    ``R`` renamed from `old_path`…; ``?`` untracked), line counts."""

    _json_if_set = frozenset({"old_path"})

    path: str
    how: str
    added: str = ""
    deleted: str = ""
    committed: bool = True
    old_path: str = ""

    @property
    def shown_path(self) -> str:
        """The path as a listing shows it: ``old → new`` for a rename or a copy."""
        return f"{self.old_path} → {self.path}" if self.old_path else self.path


@record
class GateReview:
    """What a gate on `sess_id` asks a human to approve."""

    sess_id: str
    status: str
    message: str
    origin: str
    scope: str
    tree: str | None
    commits: tuple[tuple[str, str], ...] = ()
    files: tuple[ChangedFile, ...] = ()
    diff: str = ""
    truncated: bool = False
    tests: dict[str, Any] = field(default_factory=dict)
    approved_tree: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi gate show ID --json`."""
        return {
            "sess_id": self.sess_id, "status": self.status, "gate_message": self.message,
            "gate_origin": self.origin, "scope": self.scope, "tree": self.tree,
            "approved_tree": self.approved_tree or None,
            "commits": [{"commit": h, "subject": s} for h, s in self.commits],
            "files": [f.as_dict() for f in self.files], "tests": self.tests or None,
            "diff": self.diff, "truncated": self.truncated,
        }


def scope_paths(claim: Claim) -> list[str]:
    """The brain-relative paths a claim's scope names (`.` for a global scope), deduplicated in order."""
    out: list[str] = []
    for entry in claim.scope:
        path = "." if entry.kind == "global" else (entry.target or entry.path)
        if path and path not in out:
            out.append(path)
    return out


def scope_tree(root: Path, claim: Claim) -> str | None:
    """The git tree hash of the claim's scope now (None outside a repository or with an empty scope)."""
    paths = scope_paths(claim)
    if not paths or not gitops.is_repository(root):
        return None
    return gitops.scope_tree(root, paths, PROTOCOL_PATHS)


def _commits(root: Path, claim: Claim) -> list[tuple[str, str]]:
    """The claim's work commits: its ID in the message since it opened, plus `result.commit`; no ``bsi:`` ones."""
    found = [(h, s) for h, s in gitops.session_commits(root, claim.sess_id, claim.opened_at)
             if not s.startswith("bsi: ")]
    recorded = claim.result.data.get("commit") if claim.result is not None else None
    if recorded and gitops.commit_exists(root, str(recorded)):
        full = gitops.run_git(root, "rev-parse", "--verify", "--end-of-options", f"{recorded}^{{commit}}").stdout
        full = full.strip()
        if all(h != full for h, _ in found):
            subject = gitops.run_git(root, "log", "-1", "--format=%s", full, "--").stdout.strip()
            found.append((full, subject))
    return found


def _inside(path: str, paths: list[str]) -> bool:
    """Whether a brain-relative path lies inside one of the scope's paths."""
    return any(p == "." or path == p or path.startswith(p.rstrip("/") + "/") for p in paths)


def review(root: Path, claim: Claim, status: str) -> GateReview:
    """Build the review of the gate on `claim` (git read-only; bounded)."""
    paths = scope_paths(claim)
    tests = dict(claim.result.data.get("tests") or {}) if claim.result is not None and isinstance(
        claim.result.data.get("tests"), dict) else {}
    base = GateReview(claim.sess_id, status, claim.gate_message, claim.gate_origin or "", claim.scope_text,
                      None, tests=tests, approved_tree=str(claim.data.get("approved_tree") or ""))
    if not paths or not gitops.is_repository(root):
        return base
    commits = _commits(root, claim)
    files: dict[str, ChangedFile] = {}
    chunks: list[str] = []
    budget = MAX_DIFF_BYTES
    truncated = False
    hashes = [h for h, _ in commits]
    if hashes:
        letters = gitdiff.name_status(root, "show", "--format=", *hashes)
        for added, deleted, path in gitdiff.numstat(root, "show", "--format=", *hashes):
            how, old = letters.get(path, ("M", ""))
            files.setdefault(path, ChangedFile(path, how, added, deleted, old_path=old))
        text, cut = gitdiff.patch_text(root, "show", "-M", "--relative", "--format=commit: %s", "--patch", *hashes,
                                       max_bytes=budget)
        chunks.append(text)
        budget -= len(text)
        truncated |= cut
    specs = [f":(literal){p}" if p != "." else "." for p in paths]
    excl = [f":(exclude,literal){e}" for e in PROTOCOL_PATHS]
    has_head = gitops.run_git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode == 0
    if has_head:
        letters = gitdiff.name_status(root, "diff", "HEAD", "--", *specs, *excl)
        for added, deleted, path in gitdiff.numstat(root, "diff", "HEAD", "--", *specs, *excl):
            how, old = letters.get(path, ("M", ""))
            files[path] = ChangedFile(path, how, added, deleted, committed=False, old_path=old)
            if how == "R":
                files.pop(old, None)  # gone from the tree being approved: its R line names it
        if budget > 0:
            text, cut = gitdiff.patch_text(root, "diff", "-M", "--relative", "HEAD", "--", *specs, *excl,
                                           max_bytes=budget)
            chunks.append(text)
            budget -= len(text)
            truncated |= cut
    for n, path in enumerate(p for p in gitdiff.untracked(root, paths) if not _inside(p, list(PROTOCOL_PATHS))):
        files[path] = ChangedFile(path, "?", committed=False)
        if n < MAX_UNTRACKED_PATCHES and budget > 0:
            text, cut = gitdiff.patch_text(root, "diff", "--no-index", "--", "/dev/null", path, max_bytes=budget)
            chunks.append(text)
            budget -= len(text)
            truncated |= cut
    listed = sorted(files.values(), key=lambda f: f.path)
    if len(listed) > MAX_FILES:
        listed, truncated = listed[:MAX_FILES], True
    return GateReview(
        claim.sess_id, status, claim.gate_message, claim.gate_origin or "", claim.scope_text,
        gitops.scope_tree(root, paths, PROTOCOL_PATHS), tuple(commits), tuple(listed), "".join(chunks),
        truncated, tests, base.approved_tree,
    )


def check_tree(root: Path, claim: Claim, seen: str | None, now: str | None) -> None:
    """Refuse an approval made on a review of tree `seen` when the scope's tree is now `now`.

    Raises:
        InvalidData: `seen` is not a tree hash (65: bad input, not a moved scope).
        TreeChanged: the trees differ; the message names the changed files and asks to review again.
    """
    if seen is not None and re.fullmatch(r"[0-9a-fA-F]{4,64}", seen) is None:
        raise InvalidData(f"--tree {seen[:60]!r} is not a tree hash: give the `tree` that `bsi gate show` printed")
    if not seen or now is None or seen == now:
        return
    changed = gitops.changed_between(root, seen, now)
    shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    raise TreeChanged(
        f"cannot approve {claim.sess_id}: its scope changed since it was reviewed (tree {seen[:12]} → "
        f"{now[:12]}{': ' + shown if shown else ''}); review it again (bsi gate show {claim.sess_id})"
    )


def inert_diff_lines(diff: str, width: int = 400) -> list[str]:
    """The diff's lines made inert for a screen (SPEC 15): tabs as spaces, every hidden character a placeholder.

    Each line is cut at `width` characters (with ``…``); nothing in the text can move a cursor or start markup
    once it is drawn as plain text.
    """
    out: list[str] = []
    for raw in diff.splitlines():
        pieces: list[str] = []
        for char in raw.expandtabs(4)[: width * 2]:
            shown = placeholder(char) if (ord(char) < 0x20 or ord(char) >= 0x7F) else None
            pieces.append(char if shown is None else shown)
        line = "".join(pieces)
        out.append(line if len(line) <= width else line[: width - 1] + "…")
    return out
