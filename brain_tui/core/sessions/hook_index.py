"""The small index of blocking claims that `bsi hook pre-tool-use` reads before every agent write (DESIGN 7).

A hook runs before every write of every agent, so it must cost about one
interpreter start. Reading the brain through the store (YAML, the parse
cache, the whole model) costs several times that. This index,
``.brain/hook-index.json`` (local, never committed), holds what the preflight
of SPEC 10 looks at, for the blocking claims only: status, scope entries,
parent, type, expiry, breaker, branch requirement, agent session, and the
live locks and kernel zone.

It is a cache of one answer only: "nothing here can refuse this write".
`may_write` and `unclaimed_free` answer True only when every check the core
would run is plainly passed; on anything else (a refusal, a claim or an
ancestor missing from the index, a branch requirement, an odd path) they
answer False, and the hook asks the core (`Brain.decide_write`), which
decides and explains. So the rules stay in
one place and the index can only make a write faster, never let one through
that the core would stop.

Validity: the index records the `(mtime_ns, ino)` of `claims/` and `locks/`
(a file added, removed or atomically replaced moves them), the stat key of
every file it read (an in-place edit moves it), of brain-compose.yml, and of
the files that decide HEAD's commit (`git_head.head_files`: in force is what
git holds, so a commit, a reset or a checkout moves what the core would say
with no file of the work tree touched; a layout they do not decide is never
vouched for), and the rules of the machine's zone when times written without
an offset were read in it (another `TZ` reads them as other instants). An
index whose snapshot began to be read less than 2 s after the newest of those
times (or before it) is *racy* (one timestamp tick can hide a change, as in
git's racy-clean rule; a change during the read would be keyed with the old
content) and is not trusted. A claim's entries and a lock's file are keyed
through the brain's symlinks (`path_keys.resolve_in_brain`), so the index also
records the folders on the way to each of them: a link made, removed or
replaced on that way moves one of those folders. Not seen: an in-place edit
(no rename) that turns a non-blocking claim file back into a blocking one;
the product and git never write so.

Paths are held and compared as `path_keys.path_key` values (NFC, case-folded),
the key the core compares by: ``SRC/a.py`` meets the claim on ``src/`` here too.

Standard library only: the hook imports this module, not the core model.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from brain_tui.core.paths.layout import HOOK_INDEX_FILE
from brain_tui.core.paths.path_keys import path_key, resolve_in_brain
from brain_tui.core.paths.text_safety import CONTROL_RE
from brain_tui.core.records.git_head import head_files
from brain_tui.core.records.statuses import Status

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from brain_tui.core.config import BrainConfig
    from brain_tui.core.records.model import BrainSnapshot

#: The note of a write no claim holds under ``unclaimed_writes: warn``: the core and this shortcut say the same.
UNCLAIMED_NOTE = ("{file} written without a claim (no claim holds it; "
                  "`bsi claim open --scope …` makes the work visible to other sessions)")
VERSION = 18  # 2: paths stored as their path_key; 3: the folders on the way to them; 4: HFS+ ignorables dropped;
# 5: the expiry is the effective one (8 h cap, no opening time); 6: the files that decide HEAD's commit;
# 7: a claim that shares its scope with another (`preflight.shared_scope`); 8: `unclaimed` is deny for a value
# naming no mode (an index written before read it as warn); 9: the machine's UTC offset its times were read in;
# 10: the rules of the machine's zone (its offsets through a year), not one offset; 11: a HUMAN_GATE event with no
# `by` (the old scripts') holds its claim at the gate; 12: paths keyed decomposed before the case fold; 13: a kernel
# zone entry naming the whole brain (`*`) is kept (""); 14: and `**`, `/`-led and folder-glob entries; 15: and the
# paths zone entries lead to through links (`scope_paths.zone_keys`); 16: a run of folder globs (`agents/**/*`);
# 17: whether brain-compose.yml read (`unreadable_config`): no bound write is vouched for while it does not;
# 18: a lock file holds the path its name decodes to as well as its `file:` (`locks.lock_paths`)
RACY_NS = 2_000_000_000
_KINDS = ("global", "dir", "file", "section")


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns]


def _dir_key(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ino, st.st_ctime_ns]


def _keys(root: str) -> dict[str, Any]:
    head = head_files(Path(root))  # what is in force is what git holds: HEAD moved, the index may be wrong
    return {"claims": _dir_key(os.path.join(root, "claims")), "locks": _dir_key(os.path.join(root, "locks")),
            "config": _stat(os.path.join(root, "brain-compose.yml")),
            "head": None if head is None else [[path, _stat(path)] for path in head]}


def _on_the_way(paths: Iterable[str]) -> set[str]:
    """The brain folders holding a component of one of `paths` ("" for the brain itself): where a link that
    changes what a path leads to would be made."""
    folders = {""}
    for path in paths:
        parts = [part for part in path.split("/") if part]
        folders.update("/".join(parts[:end]) for end in range(1, len(parts)))
    return folders


def build(root: str | os.PathLike[str], snapshot: BrainSnapshot, config: BrainConfig,
          read_at: int | None = None) -> dict[str, Any]:
    """The index of `snapshot` (at least every blocking claim, and the live locks) as a JSON-ready mapping.

    `read_at`: when the reading of `snapshot` began (`time.time_ns()`; None: now). The index is racy when a file
    it vouches for changed less than 2 s before that moment, or after it: the stat keys are taken now, so a
    change that landed while the snapshot was read (a pause, a gate) would otherwise be vouched for with the
    status read before it.
    """
    from brain_tui.core.paths.scope_paths import zone_entries, zone_keys
    from brain_tui.core.records.folder_variants import variants
    from brain_tui.core.records.statuses import TERMINAL_STATUSES
    from brain_tui.core.rules.circuit import circuit_state
    from brain_tui.core.rules.lock_names import lock_file_path, lock_paths
    from brain_tui.core.rules.preflight import shared_scope

    base = os.fspath(root)
    keys = _keys(base)
    files: dict[str, list[int] | None] = {}
    claims: dict[str, Any] = {}
    linked: list[str] = []
    for claim in snapshot.claims:
        if claim.status in TERMINAL_STATUSES:  # a status the product does not know blocks too (`is_blocking`)
            continue
        files[claim.path] = _stat(os.path.join(base, claim.path))
        entries = [[e.kind, e.key] for e in claim.scope] if claim.scope and "scope-invalid" not in claim.flags \
            else None
        linked.extend(path for e in claim.scope for path in (e.path, e.target) if path)
        expires = _expiry(claim)
        claims[claim.sess_id] = {
            "status": claim.status, "scope": entries, "parent": claim.parent, "type": claim.type,
            "search": claim.satellite_type == "search", "expires": expires,
            "tripped": circuit_state(claim, config.max_consecutive_fails).tripped,
            "branch": bool(claim.theme_branch),
            "agent_session": claim.agent_session,
            "shared": bool(shared_scope(snapshot, claim)),  # a hand merge left another holder: the core refuses
        }
    locks = []
    for lock in snapshot.locks:
        files[lock.path] = _stat(os.path.join(base, lock.path))
        for held in lock_paths(lock):  # its `file:` and the path its name decodes to (`locks.lock_paths`)
            try:
                locked = lock_file_path(held)
                linked.append(locked)
                name = path_key(resolve_in_brain(base, locked) or "*")
            except Exception:  # noqa: BLE001 - a lock naming no usable path: the index cannot vouch for anything
                name = "*"
            locks.append([name, lock.holder, lock.expires_at.timestamp() if lock.expires_at else None])
    # the core's own reading of the entries ("": the whole brain), through the links on their way: a link made or
    # changed there changes a folder's key below, and the index is built again
    zone = zone_keys(config.kernel_zone, base)
    linked.extend(entry for entry in zone_entries(config.kernel_zone) if entry)
    # a claim file added under another spelling of claims/ (`folder_variants`) changes that folder's key
    folders = {rel: _dir_key(os.path.join(base, rel)) for rel in sorted(_on_the_way(linked) | set(variants(base)))}
    built = time.time_ns() if read_at is None else min(read_at, time.time_ns())
    stamps = [0]
    heads = [key for _path, key in keys["head"] or ()]
    for key in [keys["claims"], keys["locks"], keys["config"], *heads, *files.values(), *folders.values()]:
        if key:
            stamps.extend((key[0], key[-1]))  # mtime and ctime (the last field of both key shapes)
    return {
        "version": VERSION, "keys": keys, "files": files, "folders": folders, "claims": claims, "locks": locks,
        "zone": zone,
        "kerneluser": bool(config.kerneluser), "unclaimed": config.unclaimed_writes,
        "unreadable_config": bool(config.problem),  # its zones and breaker unknown: the core refuses (SPEC 22)
        "corrupt": [c.path for c in snapshot.corrupt if c.path.startswith(("claims/", "locks/")) or c.holds],
        "offset": _local_offset(snapshot.tz, config),
        # a layout whose HEAD files are not known (`head_files` None) is never vouched for
        "racy": keys["head"] is None or built - max(stamps) < RACY_NS,
    }


def _local_offset(tz: Any, config: BrainConfig) -> str | None:
    """The rules of the machine's zone a time written without an offset was read in, when it is the machine's (no
    usable `timezone:` in brain-compose.yml: `clock.zone_from_name`); None when brain-compose.yml names the zone.

    A claim's or lock's `expires_at` written without an offset (a legacy tool, a hand edit) is an instant only
    in a zone: an index built by a process in another zone (its `TZ`) would hold another instant than the core
    of this process reads.
    """
    from brain_tui.core.clock import LocalZone

    if config.timezone == "UTC" or not isinstance(tz, LocalZone):
        return None  # UTC, or a named zone (a `ZoneInfo`): the same in every process
    return tz.fingerprint()


def _expiry(claim: Any) -> float:
    """When the claim goes stale for the core (`effective.expiry_reason`): its TTL, else 8 h after opening;
    0 (already) when it has no readable opening time. The skew tolerance is not added: earlier is safe."""
    from brain_tui.core.clock import MAX_TTL

    if claim.opened_at is None:
        return 0.0
    deadline = claim.opened_at + MAX_TTL
    if claim.expires_at is not None:
        deadline = min(deadline, claim.expires_at)
    return float(deadline.timestamp())


def write(root: str | os.PathLike[str], snapshot: BrainSnapshot, config: BrainConfig,
          read_at: int | None = None) -> None:
    """Rebuild the index from `snapshot` (read from `read_at` on, see `build`) and write it atomically.

    Any failure leaves no index, never an error.
    """
    path = os.path.join(os.fspath(root), HOOK_INDEX_FILE)
    tmp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"  # this writer's own: threads of one process write it
    try:
        text = json.dumps(build(root, snapshot, config, read_at), separators=(",", ":"))
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError:
        _unlink(tmp)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return


def _machine_zone_fingerprint() -> str:
    from brain_tui.core.clock import LocalZone

    return LocalZone().fingerprint()


def load(root: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The index when it is still the brain's state, else None (missing, racy, stale or unreadable)."""
    base = os.fspath(root)
    from brain_tui.core.records.state_json import read_state_json

    index = read_state_json(os.path.join(base, HOOK_INDEX_FILE))
    if not isinstance(index, dict) or index.get("version") != VERSION or index.get("racy") is not False:
        return None
    if index.get("keys") != _keys(base):
        return None
    offset = index.get("offset")
    if offset is not None and offset != _machine_zone_fingerprint():
        return None  # its times without an offset were read in another zone than this process reads them
    files = index.get("files")
    if not isinstance(files, dict):
        return None
    for rel, key in files.items():
        if _stat(os.path.join(base, rel)) != key:
            return None
    folders = index.get("folders")
    if not isinstance(folders, dict):
        return None
    for rel, key in folders.items():
        if _dir_key(os.path.join(base, rel)) != key:
            return None
    return index


def _covers(entries: Iterable[Any], rel: str) -> bool | None:
    """Whether scope entries cover a file keyed `rel` (as `scope.covers_file`, but a section: which lines an edit
    changes is the core's to read, `section_writes`); None when an entry is not understood."""
    for entry in entries:
        if not isinstance(entry, list) or len(entry) != 2 or entry[0] not in _KINDS:
            return None
        kind, path = entry
        if kind == "global" or (kind == "dir" and rel.startswith(path + "/")) or (kind == "file" and rel == path):
            return True
    return False


def near_kernel_zone(zone: Iterable[str], rel: str) -> bool:
    """True when the key `rel` starts like a kernel-zone entry (keys too): every file `preflight.in_zone` puts in
    the zone, and more (a shortcut that answers "maybe": the core then decides)."""
    return any(rel.startswith(entry.rstrip("/")) for entry in zone)


def _plain(rel: str) -> bool:
    """A normalised brain-relative path the shortcut may judge (anything else goes to the core): what
    `scope_paths.normalize` takes unchanged (a glob character, `*` or `?`, it refuses: the core then does too)."""
    return bool(rel) and rel == rel.strip() and "\\" not in rel and not rel.startswith("/") and \
        "*" not in rel and "?" not in rel and \
        not CONTROL_RE.search(rel) and all(part not in ("", ".", "..") for part in rel.split("/"))


def claim_can_act(index: dict[str, Any], sess_id: str, now: float) -> bool:
    """True only when `sess_id` is plainly open now (not expired) under a chain of open ancestors, all indexed:
    the claim check of SPEC 10 cannot refuse it (a shell call of a bound session needs this much)."""
    claims = index["claims"]
    claim = claims.get(sess_id)
    if not isinstance(claim, dict) or claim["status"] != Status.OPEN or claim.get("shared"):
        return False
    if claim["expires"] is not None and now >= claim["expires"]:
        return False
    seen = {sess_id}
    parent = claim["parent"]
    while parent:
        ancestor = claims.get(parent)
        if not isinstance(ancestor, dict) or parent in seen or ancestor["status"] != Status.OPEN:
            return False
        seen.add(parent)
        parent = ancestor["parent"]
    return True


def session_acts(index: dict[str, Any], bound: list[str], now: float) -> bool:
    """True only when no claim of a session can hold back its writes or its shell (`rules.held`): one of its
    `bound` claims plainly acts, and every other one the index holds (a blocking claim: live, paused, at a gate,
    stale) acts too. A claim a human holds refuses the session's shell even beside an open one (what a line
    writes, it may not show), and its files to the session's other claims; a claim the index does not hold is
    finished, and holds nothing back. Else the core decides."""
    indexed = [sess_id for sess_id in bound if sess_id in index["claims"]]
    return any(claim_can_act(index, sess_id, now) for sess_id in bound) and \
        all(claim_can_act(index, sess_id, now) for sess_id in indexed)


def holds_sections(index: dict[str, Any], bound: list[str]) -> bool:
    """True when a `bound` claim may hold a `##` section (its entries not in the index, or not understood: maybe)."""
    for sess_id in bound:
        claim = index["claims"].get(sess_id)
        entries = claim.get("scope") if isinstance(claim, dict) else None
        if not isinstance(entries, list) or any(not isinstance(e, list) or not e or e[0] == "section"
                                                for e in entries):
            return True
    return False


def may_write(index: dict[str, Any], sess_id: str, rel: str, now: float) -> bool:
    """True only when no check of SPEC 10 (nor the effective status) can refuse `sess_id` writing `rel`."""
    claim = index["claims"].get(sess_id)
    if not _plain(rel) or index.get("corrupt") or index.get("unreadable_config") is not False:
        return False  # a claim or lock file, or brain-compose.yml, that does not read (SPEC 22): the core decides
    rel = path_key(rel)
    if not _plain(rel) or not isinstance(claim, dict) or claim["tripped"] or claim["branch"] or not claim["scope"]:
        return False
    if not claim_can_act(index, sess_id, now):
        return False
    if _covers(claim["scope"], rel) is not True:
        return False
    if claim["search"]:  # a search claim's write depends on every other claim's scope: the core decides
        return False
    if (claim["type"] == "satellite" or claim["parent"]) and not index["kerneluser"] \
            and near_kernel_zone(index["zone"], rel):
        return False
    for name, holder, expires in index["locks"]:
        if (name == rel or name == "*") and holder != sess_id and expires is not None and now < expires:
            return False
    return True


def unclaimed_free(index: dict[str, Any], rel: str) -> bool:
    """True only when no blocking claim's scope can hold `rel` (an unbound write then meets no holder).

    The core reads an unbound write's path as a scope entry (`scope.parse_entry`): a name it reads as more
    than that file (``global``, a section marker) is left to it.
    """
    if not _plain(rel) or index.get("corrupt") or rel == "global" or "#" in rel or "\u00a7" in rel:
        return False
    rel = path_key(rel)
    if not _plain(rel):
        return False
    for claim in index["claims"].values():
        if claim["search"]:
            continue
        if not claim["scope"]:
            return False
        for entry in claim["scope"]:
            if not isinstance(entry, list) or len(entry) != 2 or entry[0] not in _KINDS:
                return False
            kind, path = entry
            # Any entry on the path, above it or below it (a file with something below it is a folder).
            if kind == "global" or rel == path or rel.startswith(path + "/") or path.startswith(rel + "/"):
                return False
    return True


def bound_in_index(index: dict[str, Any], agent_session: str) -> list[str]:
    """The blocking claims whose `agent_session:` is this agent session."""
    return [sess for sess, claim in index["claims"].items() if claim.get("agent_session") == agent_session]
