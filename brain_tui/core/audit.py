"""The audit trail from git: `bsi log` and scope-drift verification `bsi verify` (SPEC 11)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from brain_tui.core import gitops
from brain_tui.core.model import BrainSnapshot, Claim
from brain_tui.core.scope import covers_file

#: Files the protocol itself writes: never counted as a session's drift.
BOOKKEEPING = ("claims/", "signals/", "locks/", "breath/", ".brain/")
BOOKKEEPING_FILES = ("BRAIN-INDEX.md", ".gitignore")
_SEP = "\x1f"
_REC = "\x1e"


@dataclass(frozen=True)
class LogEntry:
    """One commit of the audit trail."""

    commit: str
    date: str
    author: str
    message: str
    files: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """JSON shape."""
        return {"commit": self.commit, "date": self.date, "author": self.author, "message": self.message,
                "files": list(self.files)}


def _log(root: Path, *args: str) -> list[LogEntry]:
    fmt = f"{_REC}%h{_SEP}%aI{_SEP}%an <%ae>{_SEP}%s{_SEP}%(trailers:key=BSI-Session,valueonly,separator=%x2C)"
    proc = gitops.run_git(root, "log", f"--format={fmt}", "--name-only", *args, check=False)
    if proc.returncode != 0:
        return []
    entries = []
    for record in proc.stdout.split(_REC):
        if not record.strip():
            continue
        head, _, files = record.partition("\n")
        parts = head.split(_SEP)
        if len(parts) < 4:
            continue
        entries.append(LogEntry(parts[0], parts[1], parts[2], parts[3],
                                tuple(f for f in files.splitlines() if f.strip())))
    return entries


def claim_log(root: Path, sess_id: str | None = None, limit: int = 200) -> list[LogEntry]:
    """Who changed which claim when: commits touching `claims/` (or one claim), newest first."""
    if sess_id is None:
        return _log(root, f"-n{limit}", "--", "claims/")
    by_file = _log(root, f"-n{limit}", "--", f"claims/{sess_id}.yml", f"claims/{sess_id}.yaml")
    by_message = _log(root, f"-n{limit}", "--fixed-strings", f"--grep={sess_id}")
    seen: dict[str, LogEntry] = {}
    for entry in [*by_file, *by_message]:
        seen.setdefault(entry.commit, entry)
    return sorted(seen.values(), key=lambda e: e.date, reverse=True)


def _is_bookkeeping(path: str) -> bool:
    return path.startswith(BOOKKEEPING) or path in BOOKKEEPING_FILES


@dataclass(frozen=True)
class DriftReport:
    """Files a session changed, and those outside its scope."""

    sess_id: str
    scope: str
    commits: tuple[str, ...]
    changed: tuple[str, ...]
    uncommitted: tuple[str, ...]
    outside: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi verify --json`."""
        return {"sess_id": self.sess_id, "scope": self.scope, "commits": list(self.commits),
                "changed": list(self.changed), "uncommitted": list(self.uncommitted),
                "outside": list(self.outside), "drift": bool(self.outside)}


def _session_commits(root: Path, claim: Claim, until: datetime) -> list[LogEntry]:
    found: dict[str, LogEntry] = {}
    for entry in _log(root, "--fixed-strings", f"--grep={claim.sess_id}"):
        found.setdefault(entry.commit, entry)
    for entry in _log(root, f"--grep=BSI-Session: {claim.sess_id}", "--fixed-strings"):
        found.setdefault(entry.commit, entry)
    if claim.instance and claim.opened_at is not None:
        window = ["--since", claim.opened_at.isoformat(), "--until", until.isoformat()]
        for entry in _log(root, *window, "--fixed-strings", f"--grep=BSI-Instance: {claim.instance}"):
            found.setdefault(entry.commit, entry)
        for entry in _log(root, *window, f"--author={claim.instance}"):
            found.setdefault(entry.commit, entry)
    return list(found.values())


def verify_scope(root: Path, snapshot: BrainSnapshot, claim: Claim) -> DriftReport:
    """Compare the files changed by a session with its scope (the seeds' "v2 frontier").

    Counted: commits whose message or `BSI-Session:` trailer names the session,
    commits by its instance between open and close, and — while the claim is
    not terminal — uncommitted changes in the work tree.
    """
    until = claim.closed_at or snapshot.now
    commits = _session_commits(root, claim, until)
    changed: set[str] = set()
    for entry in commits:
        changed.update(entry.files)
    uncommitted: list[str] = []
    if not claim.is_terminal:
        status = gitops.run_git(root, "status", "--porcelain", "--untracked-files=all", check=False).stdout
        for line in status.splitlines():
            path = line[3:].split(" -> ")[-1].strip().strip('"')
            if path:
                uncommitted.append(path)
    changed = {p for p in changed if not _is_bookkeeping(p)}
    uncommitted = [p for p in uncommitted if not _is_bookkeeping(p)]
    candidates = sorted({*changed, *uncommitted})
    outside = tuple(p for p in candidates if not covers_file(claim.scope, p))
    return DriftReport(
        sess_id=claim.sess_id,
        scope=claim.scope_text,
        commits=tuple(e.commit for e in commits),
        changed=tuple(sorted(changed)),
        uncommitted=tuple(sorted(uncommitted)),
        outside=outside,
    )
