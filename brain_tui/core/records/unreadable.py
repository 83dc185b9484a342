"""What a claim file that does not read may hold: an unreadable claim fails closed (SPEC 22, 13).

A claim file that does not parse (git conflict markers left by a hand merge, an unquoted ``"``, more than 64 KiB, a
symbolic link, a FIFO, a device or a socket: `odd_entries`, an invalid field) is a corrupt row. It may be a live
claim, so it blocks as an open claim would: new claims, unbound agent writes and other claims' writes that meet what it
may hold. What it may hold is the union of every scope that can be read from it — each side of conflict markers
counts, and a side whose scope cannot be read makes the whole brain held — else the whole brain. A version that reads
whole and says it is finished (closed, failed, released) holds nothing; so does a file that is plainly not a claim
(``gate-ack-*.yml``, SPEC 2).

It never counts as a holder for delegation: it has no tree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import tzinfo
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from brain_tui.core.errors import InvalidData
from brain_tui.core.ids import valid_session_id
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.paths.layout import CLAIMS_DIR, INDEX_FILE
from brain_tui.core.paths.scope import GLOBAL, ScopeEntry, parse_scope
from brain_tui.core.records.formats import claim_identity, is_claim_mapping, parse_claim_bytes
from brain_tui.core.records.statuses import TERMINAL_STATUSES
from brain_tui.core.records.yamlio import MAX_FILE_BYTES, CorruptYaml, read_capped, safe_load_text

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["BY_HAND", "NOT_A_CLAIM_PREFIXES", "held_by_bytes", "held_by_data", "held_by_file", "holder_id",
           "repair_command", "repair_of", "shown_path", "whole_brain"]

#: Files in ``claims/`` that older tools wrote and that are not claims (SPEC 2): never held, even when unreadable.
NOT_A_CLAIM_PREFIXES = ("gate-ack-",)

#: A git conflict marker line (marker size 7 by default; `conflict-marker-size` may make it longer).
_MARKER_RE = LazyPattern(r"^(<{7,}|\|{7,}|={7,}|>{7,})(?:[ \t].*)?$")
#: A top-level ``scope:`` key (quoted or not) and its inline value.
_SCOPE_KEY_RE = LazyPattern(r"""^(?:scope|"scope"|'scope')[ \t]*:(?:[ \t]|$)""")


def whole_brain() -> tuple[ScopeEntry, ...]:
    """The scope of a claim whose scope cannot be read: the whole brain (``*``)."""
    return parse_scope("*")


#: The characters of a file name shown as they are; any other is percent-encoded (a name is hostile text).
_SHOWN_AS_IS = "/._-+=,@~"


def shown_path(rel_path: str) -> str:
    """A brain path as it may be shown to a user or an agent: percent-encoded beyond plain ASCII names.

    A file name in ``claims/`` is written by anyone (terminal escapes, bidi controls, newlines): this
    spelling is inert, reversible, and the path itself for every ordinary name.
    """
    return quote(rel_path, safe=_SHOWN_AS_IS)


def holder_id(rel_path: str) -> str:
    """The name a corrupt row holds under: the file's stem when it is a session ID, else its (shown) path."""
    stem = PurePosixPath(rel_path).stem
    return stem if valid_session_id(stem) else shown_path(rel_path)


def repair_command(rel_path: str) -> str:
    """The command that offers to repair a corrupt claim file (``bsi claim repair ID|PATH``); for a row of the
    legacy BRAIN-INDEX.md, ``bsi index``, which imports it into its claim file (then repaired as one)."""
    if rel_path == INDEX_FILE:
        return "bsi index"
    stem = PurePosixPath(rel_path).stem
    named = stem if valid_session_id(stem) and rel_path.endswith(".yml") else shown_path(rel_path)
    return f"bsi claim repair {named}"


#: The repair of a lock or signal file that does not read: no `bsi lock` or `bsi signal` verb mends one.
BY_HAND = "fix or remove it by hand"


def repair_of(rel_path: str) -> str:
    """How a human mends the brain file `rel_path` that does not read: a claim file (or the legacy BRAIN-INDEX.md)
    by `repair_command`; a lock or signal file, a folder or a link named like one, by hand (`BY_HAND`)."""
    if rel_path == INDEX_FILE or rel_path.startswith(f"{CLAIMS_DIR}/"):
        return repair_command(rel_path)
    return BY_HAND


def _not_a_claim_name(rel_path: str) -> bool:
    return PurePosixPath(rel_path).name.startswith(NOT_A_CLAIM_PREFIXES)


def _versions(text: str) -> list[str]:
    """The versions a file holds: itself, or each side of its conflict markers (with the lines they share)."""
    lines = text.splitlines(keepends=True)
    sides: dict[str, list[str]] = {"ours": [], "base": [], "theirs": []}
    state: str | None = None
    marked = with_base = False
    for line in lines:
        match = _MARKER_RE.match(line.rstrip("\r\n"))
        mark = match.group(1)[0] if match else None
        if mark == "<":
            state, marked = "ours", True
            continue
        if mark == "|" and state is not None:
            state, with_base = "base", True
            continue
        if mark == "=" and state is not None:
            state = "theirs"
            continue
        if mark == ">" and state is not None:
            state = None
            continue
        for side in ([state] if state is not None else sides):
            sides[side].append(line)
    if not marked:
        return [text]
    return ["".join(kept) for side, kept in sides.items() if side != "base" or with_base]


def _scope_snippets(text: str) -> list[str]:
    """Each top-level ``scope:`` key of a text with the lines of its value (a block list follows it)."""
    lines = text.splitlines()
    found: list[str] = []
    for number, line in enumerate(lines):
        if not _SCOPE_KEY_RE.match(line):
            continue
        snippet = [line]
        for follow in lines[number + 1:]:
            if follow[:1] in (" ", "\t", "-") or not follow.strip():
                snippet.append(follow)
                continue
            break
        found.append("\n".join(snippet) + "\n")
    return found


def _entries(value: Any, root: str | os.PathLike[str]) -> tuple[ScopeEntry, ...] | None:
    try:
        return parse_scope(value, root, typed=False)
    except InvalidData:
        return None


def held_by_data(data: Any, rel_path: str, root: str | os.PathLike[str], tz: tzinfo) -> tuple[ScopeEntry, ...]:
    """What a claim file that parsed (to `data`) but cannot be used may hold: ``()`` when plainly not a live claim
    (not a claim at all, a ``gate-ack-*.yml``, or finished); its scope when it reads; else the whole brain."""
    if _not_a_claim_name(rel_path):
        return ()
    if isinstance(data, Mapping):
        if not is_claim_mapping(data):
            return ()
        identity = claim_identity(data, "claims/x.yml", tz)
        status = identity[1] if isinstance(identity, tuple) else str(data.get("status") or "").strip().lower()
        if status in TERMINAL_STATUSES:
            return ()
        if data.get("satellite_type") == "search" and isinstance(identity, tuple):
            return ()
        entries = _entries(data.get("scope"), root)
        if entries:
            return entries
    return whole_brain()


def _held_by_version(text: str, rel_path: str, root: str | os.PathLike[str],
                     tz: tzinfo) -> tuple[ScopeEntry, ...]:
    try:
        data = parse_claim_bytes(text.encode("utf-8", "surrogatepass"))
    except CorruptYaml:
        pass
    else:
        return held_by_data(data, rel_path, root, tz)
    held: list[ScopeEntry] = []
    snippets = _scope_snippets(text)
    if not snippets:
        return whole_brain()
    for snippet in snippets:
        try:
            loaded = safe_load_text(snippet)
        except CorruptYaml:
            return whole_brain()
        value = loaded.get("scope") if isinstance(loaded, Mapping) and len(loaded) == 1 else None
        entries = _entries(value, root)
        if not entries:
            return whole_brain()
        held.extend(entries)
    return tuple(held)


def held_by_bytes(raw: bytes | None, rel_path: str, root: str | os.PathLike[str],
                  tz: tzinfo) -> tuple[ScopeEntry, ...]:
    """What a claim file that does not parse may hold: the union of every scope read from `raw`, else the brain
    (also when `raw` is None: unread, or larger than 64 KiB)."""
    if _not_a_claim_name(rel_path):
        return ()
    if raw is None or len(raw) > MAX_FILE_BYTES:
        return whole_brain()
    text = raw.decode("utf-8", errors="replace")
    return _union(*(_held_by_version(version, rel_path, root, tz) for version in _versions(text)))


def held_by_file(root: str | os.PathLike[str], rel_path: str, tz: tzinfo) -> tuple[ScopeEntry, ...]:
    """What the unreadable claim file ``rel_path`` may hold (read again, bounded, never through a link).

    ``()`` for a file that is not a claim by its name (``gate-ack-*.yml``); else as `held_by_bytes`,
    with the scope of the version committed at HEAD when that one reads (a work-tree-only spoil)."""
    try:
        raw = read_capped(Path(root) / rel_path, follow=False)
    except OSError:
        raw = None
    held = held_by_bytes(raw, rel_path, root, tz)
    if any(entry.kind == GLOBAL for entry in held):
        return held
    return _union(held, _held_at_head(root, rel_path, tz))


def _held_at_head(root: str | os.PathLike[str], rel_path: str, tz: tzinfo) -> tuple[ScopeEntry, ...]:
    """What the version of ``rel_path`` committed at HEAD holds, when it reads; else ``()``.

    A file spoiled in the work tree only (a stray edit, a hand merge not committed) still stands for
    the claim git holds: that claim's scope stays held with whatever the spoiled bytes may hold.
    """
    from brain_tui.core.sync import gitops

    try:
        proc = gitops.run_git(Path(root), "cat-file", "blob", f"HEAD:{rel_path}", check=False, timeout=5.0)
    except (gitops.GitError, ValueError):  # git missing or slow; bytes that are not text
        return ()
    if proc.returncode != 0 or len(proc.stdout) > MAX_FILE_BYTES:
        return ()
    try:
        data = parse_claim_bytes(proc.stdout.encode("utf-8", "surrogatepass"))
    except CorruptYaml:
        return ()
    return held_by_data(data, rel_path, root, tz)


def _union(*groups: tuple[ScopeEntry, ...]) -> tuple[ScopeEntry, ...]:
    """The entries of every group, each once, in order (the whole brain when one of them is it)."""
    held: dict[tuple[str, str, str], ScopeEntry] = {}
    for group in groups:
        for entry in group:
            if entry.kind == GLOBAL:
                return whole_brain()
            held.setdefault((entry.kind, entry.key, entry.section_key), entry)
    return tuple(held.values())
