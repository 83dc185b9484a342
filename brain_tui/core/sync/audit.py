"""The audit trail from git: `bsi log` and scope-drift verification `bsi verify` (SPEC 11)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from brain_tui.core.ids import names_id
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.scope import covers_file
from brain_tui.core.record import record
from brain_tui.core.records.model import BrainSnapshot, Claim

#: Files the protocol itself writes: never counted as a session's drift.
BOOKKEEPING = ("claims/", "signals/", "locks/", "breath/", ".brain/")
BOOKKEEPING_FILES = ("BRAIN-INDEX.md", ".gitignore")
_SEP = "\x1f"
_REC = "\x1e"


@record
class LogEntry(JsonShaped):
    """One commit of the audit trail."""

    commit: str
    date: str
    author: str
    message: str
    files: tuple[str, ...]


def _log(root: Path, *args: str) -> list[_Commit]:
    """`git log` with the files of each commit, paths relative to the brain folder (`../x` outside it).

    NUL-separated (`-z`), so no path is ever quoted or split, whatever its characters.
    """
    fields = ("%h", "%aI", "%an <%ae>", "%s", "%(trailers:key=BSI-Session,valueonly,separator=%x2C)",
              "%(trailers:key=BSI-Instance,valueonly,separator=%x2C)", "%B")
    fmt = _REC + _SEP.join(fields)
    from brain_tui.core.sync import gitops  # git runs only when a history is asked for

    proc = gitops.run_git(root, "-c", "core.quotepath=false", "log", f"--format={fmt}", "--name-only", "-z",
                          *args, check=False)
    if proc.returncode != 0:
        return []
    prefix = gitops.top_prefix(root)
    entries = []
    for raw in proc.stdout.split(_REC):
        if not raw.strip():
            continue
        head, _, files = raw.partition("\0")
        parts = head.split(_SEP, 6)
        if len(parts) < 7:
            continue
        paths = tuple(gitops.brain_relative(f.lstrip("\n"), prefix) for f in files.split("\0") if f.strip())
        entry = LogEntry(parts[0], parts[1], parts[2], parts[3], paths)
        entries.append(_Commit(entry, _split(parts[4]), _split(parts[5]), parts[6]))
    return entries


def _split(values: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in values.split(",") if v.strip())


@record
class _Commit:
    """A log entry with what the exact-ID matching needs: trailers and the whole message."""

    entry: LogEntry
    sessions: tuple[str, ...]
    instances: tuple[str, ...]
    text: str

    def names(self, sess_id: str) -> bool:
        """True when the message or a `BSI-Session:` trailer names `sess_id` exactly, never as a substring."""
        return sess_id in self.sessions or names_id(self.text, sess_id)


def claim_log(root: Path, sess_id: str | None = None, limit: int = 200) -> list[LogEntry]:
    """Who changed which claim when: commits touching `claims/` (or one claim), newest first.

    For one claim: the commits that touch its file, or whose message names its
    exact ID (`sess-x-pilote` never matches `sess-x-pilote-be5`).
    """
    if sess_id is None:
        return [c.entry for c in _log(root, f"-n{limit}", "--", "claims/")]
    by_file = _log(root, f"-n{limit}", "--", f"claims/{sess_id}.yml", f"claims/{sess_id}.yaml")
    by_message = [c for c in _log(root, "--fixed-strings", f"--grep={sess_id}") if c.names(sess_id)]
    seen: dict[str, LogEntry] = {}
    for commit in [*by_file, *by_message[:limit]]:
        seen.setdefault(commit.entry.commit, commit.entry)
    return sorted(seen.values(), key=_instant, reverse=True)


def _instant(entry: LogEntry) -> datetime:
    """When the commit was authored, as an instant: dates from machines at other offsets compare rightly."""
    return datetime.fromisoformat(entry.date)


def _is_bookkeeping(path: str) -> bool:
    return path.startswith(BOOKKEEPING) or path in BOOKKEEPING_FILES


@record
class DriftReport(JsonShaped):
    """Files a session changed, and those outside its scope."""

    sess_id: str
    scope: str
    commits: tuple[str, ...]
    changed: tuple[str, ...]
    uncommitted: tuple[str, ...]
    outside: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `bsi verify --json`."""
        return {**super().as_dict(), "drift": bool(self.outside)}


def _session_commits(root: Path, claim: Claim, until: datetime) -> list[LogEntry]:
    found: dict[str, LogEntry] = {}
    for commit in _log(root, "--fixed-strings", f"--grep={claim.sess_id}"):
        if commit.names(claim.sess_id):
            found.setdefault(commit.entry.commit, commit.entry)
    if not claim.instance or "\0" in claim.instance:  # a hand-written NUL: no commit's trailer nor author holds it
        return list(found.values())
    span = _history_span(root, claim)
    windows = [[span]] if span else []
    if claim.opened_at is not None:
        windows.append(["--since", claim.opened_at.isoformat(), "--until", until.isoformat()])
    for window in windows:
        for commit in _log(root, *window, "--fixed-strings", f"--grep=BSI-Instance: {claim.instance}"):
            if claim.instance in commit.instances:
                found.setdefault(commit.entry.commit, commit.entry)
        for commit in _log(root, *window, f"--author={re.escape(claim.instance)}"):
            if _author_is(commit.entry.author, claim.instance):
                found.setdefault(commit.entry.commit, commit.entry)
    return list(found.values())


def _history_span(root: Path, claim: Claim) -> str | None:
    """``OPEN..END``: the commits after the claim's open commit (the oldest that added its file) up to its newest
    commit when it ended (its close), else HEAD — "between open and close" in the history, whatever the clocks say
    (the other window is the claim's own times). None when its file was never committed."""
    from brain_tui.core.sync import gitops

    def commits(*args: str) -> list[str]:
        proc = gitops.run_git(root, "--literal-pathspecs", "log", "--no-renames", "--format=%H", *args, "--",
                              claim.path, check=False)
        return proc.stdout.split() if proc.returncode == 0 else []

    added = commits("--diff-filter=A")
    if not added:
        return None
    end = (commits("-1") or ["HEAD"])[0] if claim.is_terminal else "HEAD"
    return f"{added[-1]}..{end}"


def _author_is(author: str, instance: str) -> bool:
    """The commit's author name or e-mail is exactly the instance (`prod@desk` is not `prod@desktop`)."""
    name, _, mail = author.partition(" <")
    return instance in (name.strip(), mail.rstrip(">").strip())


def _uncommitted(root: Path) -> list[str]:
    """Changed and untracked files inside the brain folder, relative to it (`git status -z`)."""
    from brain_tui.core.sync import gitops

    proc = gitops.run_git(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", ".", check=False)
    prefix = gitops.top_prefix(root)
    fields = proc.stdout.split("\0")
    paths: list[str] = []
    i = 0
    while i < len(fields):
        item = fields[i]
        i += 1
        if len(item) < 4:
            continue
        if item[0] in "RC":
            i += 1  # the rename's source path follows
        paths.append(gitops.brain_relative(item[3:], prefix))
    return paths


def verify_scope(root: Path, snapshot: BrainSnapshot, claim: Claim) -> DriftReport:
    """Compare the files changed by a session with its scope (the seeds' "v2 frontier").

    Counted: commits whose message or `BSI-Session:` trailer names the session, commits by its instance between open
    and close, and — while the claim is not terminal — uncommitted changes in the work tree.
    """
    until = claim.closed_at or snapshot.now
    commits = _session_commits(root, claim, until)
    changed: set[str] = set()
    for entry in commits:
        changed.update(entry.files)
    uncommitted: list[str] = []
    if not claim.is_terminal:
        uncommitted = _uncommitted(root)
    changed = {p for p in changed if not _is_bookkeeping(p)}
    uncommitted = [p for p in uncommitted if not _is_bookkeeping(p)]
    candidates = sorted({*changed, *uncommitted})
    outside = tuple(p for p in candidates if not covers_file(claim.scope, p, root))
    return DriftReport(
        sess_id=claim.sess_id,
        scope=claim.scope_text,
        commits=tuple(e.commit for e in commits),
        changed=tuple(sorted(changed)),
        uncommitted=tuple(sorted(uncommitted)),
        outside=outside,
    )


#: Subjects of the protocol commits a session makes itself (a human's or the watchdog's are not its own).
SESSION_ACTIONS = ("bsi: open ", "bsi: renew claim ", "bsi: close ", "bsi: gate HUMAN_GATE ", "bsi: circuit fail ")


def last_commits_by(root: Path, claims: Sequence[Claim], touched: Mapping[str, Sequence[str]],
                    limit: int = 300) -> dict[str, LogEntry]:
    """``{sess_id: LogEntry}``: the newest commit made by each session, over the last `limit` commits since the
    earliest opening (sessions with none left out).

    A commit is by session S when its ``BSI-Session:`` trailer names S, when it is one of S's own protocol actions
    (open, renew, close, gate request, circuit fail: `SESSION_ACTIONS` naming S), or when — after S opened — it
    changes a file S's agent wrote (`touched`, recorded by the hooks). One `git log` for all the claims."""
    opened = [c.opened_at for c in claims if c.opened_at is not None]
    if not claims or not opened:
        return {}
    fmt = f"{_REC}%h{_SEP}%aI{_SEP}%an <%ae>{_SEP}%s{_SEP}%(trailers:key=BSI-Session,valueonly,separator=%x2C)"
    from brain_tui.core.sync import gitops

    proc = gitops.run_git(root, "log", f"-n{limit}", f"--since={min(opened).isoformat()}", f"--format={fmt}",
                          "--name-only", check=False)
    if proc.returncode != 0:
        return {}
    files_of = {c.sess_id: frozenset(touched.get(c.sess_id, ())) for c in claims}
    found: dict[str, LogEntry] = {}
    for entry in proc.stdout.split(_REC):
        head, _, names = entry.partition("\n")
        parts = head.split(_SEP)
        if len(parts) < 5:
            continue
        files = tuple(f for f in names.splitlines() if f.strip())
        try:
            when: datetime | None = datetime.fromisoformat(parts[1])
        except ValueError:
            when = None
        trailer = {s.strip() for s in parts[4].split(",") if s.strip()}
        subject = parts[3]
        for claim in claims:
            sess_id = claim.sess_id
            if sess_id in found:
                continue
            own_action = subject.startswith(SESSION_ACTIONS) and sess_id in subject.split()
            wrote = (when is not None and claim.opened_at is not None and when >= claim.opened_at
                     and not files_of[sess_id].isdisjoint(files))
            if sess_id in trailer or own_action or wrote:
                found[sess_id] = LogEntry(parts[0], parts[1], parts[2], subject, files)
        if len(found) == len(claims):
            break
    return found
