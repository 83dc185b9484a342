"""The closed set: the claim files HEAD holds in a terminal status, persisted under ``.brain/``.

Why: a record is in force only as committed (SPEC 22) and a terminal status has no way out (SPEC 6.3). So a file of
``claims/`` whose blob in HEAD is terminal is terminal, whatever an uncommitted edit of the work tree says; a read
that only wants the live claims (the hook, ``check-scope``, ``preflight``, ``claim list``) can skip those files
without a ``stat``. Everything else — untracked files, files HEAD holds in another status or that do not parse,
links, anything not proven terminal — is *live* and read as before.

The file (`CLOSED_SET_FILE`, plain text, not the sqlite cache: a live-only read loads one short JSON line and never
the 100,000 rows): line 1 is a JSON header — format, code fingerprint, the ``claims`` tree of HEAD it was computed
for, the ``claims/`` folder's ``(mtime_ns, ctime_ns, inode)``, the live names at that key and the rows file it reads
(named by the tree its rows were written for: a later tree with the same rows shares it); then one line per terminal
file, ``closed_us<TAB>status<TAB>sess_id<TAB>blob<TAB>parent<TAB>name`` (``parent``: the claim's
``parent_satellite``, empty for none), latest close first (so "closed since" reads only the head of the file). The
header counts the rows: a file that does not decode, or whose count is off, is rebuilt, never trusted. Written
atomically.

Validity, per read: one ``git ls-tree HEAD -- claims`` (the tree ID: commits that touch nothing in ``claims/``
change nothing); same tree and same folder key: trusted as is. Folder key moved: one ``listdir`` (new names are
live). Tree moved: ``git diff-tree`` of the two trees, and only the changed blobs are read (``git cat-file
--batch``); any git error: rebuilt from ``git ls-tree`` (blobs already known are not read again). Not a git
repository, or no ``claims`` in HEAD: no closed set (the caller reads every file); a commit found to hold no
``claims`` is named in ``.brain/`` (`NOT_IN_HEAD_FILE`), so the next reads of that commit ask git nothing.

A write that made HEAD's move itself moves the set on with it (`closed_advance.advance`): the next
read finds the set of HEAD's commit and runs no git at all (the folder is still listed).

The same machinery, with the same guarantees, keeps ``signals/`` files whose HEAD blob is
``state: archived`` (SPEC 7: nothing leaves archived) out of live reads: a `Folder` names the
folder, the set's files and the rule that decides a blob terminal (`CLOSED_CLAIMS`, `ARCHIVED_SIGNALS`).
"""

from __future__ import annotations

import bisect
import contextlib
import json
import os
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from datetime import tzinfo
from pathlib import Path

from brain_tui.core.paths.layout import (
    CLAIMS_DIR,
    CLOSED_ROWS_FILE,
    CLOSED_SET_FILE,
    NOT_IN_HEAD_FILE,
    SIGNALS_DIR,
    STATE_DIR,
)
from brain_tui.core.record import field, record
from brain_tui.core.records import formats, status_scan
from brain_tui.core.records.closed_rows import (
    FORMAT,
    checked_row,
    open_rows,
    rows_file,
    rows_read,
    rows_version,
    write_atomically,
)
from brain_tui.core.records.formats import YAML_SUFFIXES
from brain_tui.core.records.git_head import blob_id, git_output, head_commit, outside_git
from brain_tui.core.records.state_json import read_for_commit, write_for_commit
from brain_tui.core.records.status_scan import Terminal, archived_of, micros, terminal_of
from brain_tui.core.records.work_tree_copy import live_in_work_tree
from brain_tui.core.records.yamlio import TEMP_MARK, make_state_dir

__all__ = ["ARCHIVED_SIGNALS", "CLOSED_CLAIMS", "ClosedSet", "Folder", "closed_set", "git_output", "head_commit",
           "load", "merged", "micros"]


@record
class Folder:
    """One folder whose files can reach a terminal state (``claims``, ``signals``): its header and rows files under
    ``.brain/`` (``{}`` stands for the tree ID), and `decide`: ``(bytes, name, tz) -> Terminal | None`` (None: live)."""

    name: str
    head_file: str
    rows_file: str
    decide: Callable[[bytes, str, tzinfo], Terminal | None]


#: ``claims/``: closed, failed, released (SPEC 6.3), rows ``closed_us, status, sess_id, blob, parent``.
CLOSED_CLAIMS = Folder(CLAIMS_DIR, CLOSED_SET_FILE, CLOSED_ROWS_FILE, terminal_of)
#: ``signals/``: archived (SPEC 7: nothing leaves it), rows ``created_us, archived, sig_id, blob, ""``.
ARCHIVED_SIGNALS = Folder(SIGNALS_DIR, "archived-signals.json", "archived-signals-{}.txt", archived_of)

#: git's mode of a regular file blob (a link, 120000, or a submodule is never terminal here).
_FILE_MODES = ("100644", "100755")
#: Counts of the work this process did, for tests and benchmarks (``advances``: sets a write's commit moved on).
COUNTERS = {"rebuilds": 0, "diffs": 0, "blobs_read": 0, "listdirs": 0, "writes": 0, "advances": 0}
#: The other code that writes sets (a change of it rebuilds them too).
_OTHER_FILES = tuple(os.path.join(os.path.dirname(__file__), name)
                     for name in ("closed_advance.py", "closed_rows.py", "work_tree_copy.py"))


def _fingerprint(kind: Folder) -> str:
    """The code that decides terminal (a change of it rebuilds the set)."""
    parts = []
    for path in (status_scan.__file__, formats.__file__, __file__, *_OTHER_FILES):
        try:
            st = os.stat(path)
        except OSError:
            return ""
        parts.append(f"{st.st_size}.{st.st_mtime_ns}")
    return "-".join((kind.name, *parts))


def _line(name: str, oid: str, row: Terminal) -> str:
    return f"{row[2]}\t{row[1]}\t{row[0]}\t{oid}\t{row[3]}\t{name}\n"


def _line_name(line: str) -> str:
    return line.rstrip("\n").rpartition("\t")[2]


def _line_time(line: str) -> int:
    return -int(line.partition("\t")[0])


@record(frozen=False)
class ClosedSet:
    """The terminal claim files of HEAD's ``claims`` tree, and the live names of the folder.

    Attributes:
        tree: the ``claims`` tree ID it was computed for.
        dir_key: the ``claims/`` folder's ``(mtime_ns, ctime_ns, inode)`` when `live` was listed.
        live: the names in ``claims/`` that are not in the set (candidates a live read looks at).
        count: how many terminal files the set holds.
        others: blob IDs of HEAD's files known not to be terminal, per name (not read again).
        odd: the terminal files not named ``<sess_id>.yml``/``.yaml``, per session ID.
    """

    tree: str
    dir_key: tuple[int, int, int]
    live: tuple[str, ...]
    count: int
    others: dict[str, str] = field(default_factory=dict)
    odd: dict[str, list[str]] = field(default_factory=dict)
    _path: Path | None = None
    #: the rows as written (latest close first), and the set of their names: loaded on demand.
    _lines: list[str] | None = None
    _names: set[str] | None = None
    #: the HEAD commit `tree` was read from ("" unknown): the same commit again needs no git call.
    commit: str = ""
    #: the folder the set is of.
    kind: Folder = CLOSED_CLAIMS
    #: the rows added since the rows file `_path` was written (latest close first), and the names of that
    #: file's rows that left the set since: a write adds a row without rewriting the whole file.
    extra: tuple[str, ...] = ()
    dropped: frozenset[str] = frozenset()
    #: the last `closed_since` answer, by its `since_us`.
    _since: tuple[int, list[tuple[str, Terminal]]] | None = field(default=None, repr=False, compare=False)

    def names(self) -> set[str]:
        """The names of the terminal files (one line of the file: no row is decoded). Shared: never changed."""
        if self._names is None:
            if self._lines is not None:
                self._names = {_line_name(line) for line in self._lines}
            else:
                key = (self.rows_version(), self.extra, self.dropped)
                if key not in _NAMES:  # else: the same rows file and header rows as the last set's, the same names
                    base = rows_file(self._path, names=True)[0] if self._path is not None else frozenset()
                    _NAMES.clear()
                    _NAMES[key] = set(base - self.dropped) | {_line_name(line) for line in self.extra}
                self._names = _NAMES[key]
        return self._names

    def lines(self) -> list[str]:
        """The rows, latest close first (loads the file)."""
        if self._lines is None:
            base = rows_file(self._path, names=False)[1] if self._path is not None else None
            held = rows_file(self._path, names=True)[0] if self._path is not None and (self.extra or self.dropped) \
                else None
            self._lines = merged(base or [], self.extra, self.dropped, held)
        return self._lines

    def rows_version(self) -> tuple[str, int, int, int] | None:
        """The rows file's path and ``(mtime_ns, size, inode)`` (None: no file, or the rows are in memory only)."""
        return rows_version(self._path) if self._path is not None else None

    def file_lines(self) -> list[str]:
        """The rows of the rows file itself (the header's rows not applied)."""
        return (rows_file(self._path, names=False)[1] if self._path is not None else None) or []

    def has(self, name: str) -> bool:
        """True when ``claims/<name>`` is terminal in HEAD."""
        return name in self.names()

    def holding(self, sess_id: str) -> list[str]:
        """The terminal files whose claim has this session ID."""
        mark = f"\t{sess_id}\t"
        return [_line_name(line) for line in self.lines() if mark in line and line.split("\t")[2] == sess_id]

    def closed_since(self, since_us: int) -> list[tuple[str, Terminal]]:
        """``(name, (sess_id, status, closed_us, parent))`` of the files closed at or after `since_us`, latest first.

        Reads the rows only down to the first older close.
        """
        if self._since is not None and self._since[0] == since_us:
            return self._since[1]
        out: list[tuple[str, Terminal]] = []
        for line in self._recent(since_us):
            closed_us, status, sess_id, _oid, parent, name = line.rstrip("\n").split("\t")
            if int(closed_us) < since_us:
                break
            out.append((name, (sess_id, status, int(closed_us), parent)))
        self._since = (since_us, out)
        return out


    def _recent(self, since_us: int) -> list[str]:
        """The rows closed at or after `since_us` and maybe a few more, latest first: the rows file is read only
        down to the first older close when the rows are not loaded."""
        if self._lines is not None or self._path is None or rows_read(self._path):
            return self.lines()
        head: list[str] = []
        with contextlib.suppress(OSError, ValueError), open_rows(self._path) as handle:  # a FIFO: never waited on
            handle.readline()
            handle.readline()
            for line in handle:
                head.append(line)
                if -_line_time(line) < since_us:
                    break
        return merged(head, self.extra, self.dropped)


#: The names of the last set read from a rows file, by the file's version and the header's rows: a long-lived
#: process reading the same set again (the cockpit after a file of `claims/` moved) does not build them again.
_NAMES: dict[tuple[object, ...], set[str]] = {}


def merged(base: list[str], extra: tuple[str, ...], dropped: frozenset[str],
           held: AbstractSet[str] | None = None) -> list[str]:
    """The rows of a rows file (`base`, naming `held` when known) with `dropped` names out and `extra` rows in,
    latest close first."""
    if not extra and not dropped:
        return base
    gone = dropped | {_line_name(line) for line in extra}
    if held is not None and gone.isdisjoint(held):  # new closes: no row of the file leaves
        lines = list(base)
    else:
        lines = [line for line in base if _line_name(line) not in gone]
    for line in sorted(extra, key=_line_time):
        lines.insert(bisect.bisect_right(lines, _line_time(line), key=_line_time), line)
    return lines


def _odd(lines: dict[str, str], into: dict[str, list[str]]) -> dict[str, list[str]]:
    """Add the rows (``{name: line}``) whose name is not their session ID's to `into`."""
    for name, line in lines.items():
        sess_id = line.split("\t")[2]
        if name not in (f"{sess_id}.yml", f"{sess_id}.yaml"):
            into.setdefault(sess_id, []).append(name)
    return into


def _dir_key(root: Path, kind: Folder) -> tuple[int, int, int] | None:
    try:
        st = os.stat(root / kind.name)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def _folder_tree(root: Path, kind: Folder) -> str | None:
    """The ID of the tree HEAD holds at `kind`'s folder; ``""`` when HEAD holds no folder there (git answered:
    nothing, or no tree, by that name); None when git did not answer (or no repository can hold `root`)."""
    if outside_git(root):  # no git process (and no `subprocess`) to learn there is no repository
        return None
    out = git_output(root, "ls-tree", "-z", "HEAD", "--", kind.name)  # the path is relative to the brain's folder
    if out is None:
        return None
    meta, _tab, name = out.partition(b"\0")[0].partition(b"\t")
    parts = meta.split(b" ")
    if len(parts) != 3 or parts[1] != b"tree" or name != kind.name.encode():
        return ""
    return parts[2].decode("ascii", "replace") if parts[2].isalnum() else None


def _listed(name: str) -> bool:
    """Names the store reads in ``claims/`` (the set never holds a name a row cannot carry)."""
    return name.endswith(YAML_SUFFIXES) and not name.startswith(TEMP_MARK) and "\t" not in name \
        and "\n" not in name


def read_blobs(root: Path, oids: list[str]) -> dict[str, bytes] | None:
    """The bytes of these blobs, in one ``git cat-file --batch``; None when git does not answer, or gives for an ID
    bytes that do not hash to it (git never checks a loose object's hash on reading, and `.git/objects` is a folder
    an agent's shell may write: a forged object under the ID of a paused claim's blob read as a closed claim)."""
    if not oids:
        return {}
    out = git_output(root, "cat-file", "--batch", data="".join(f"{oid}\n" for oid in oids).encode())
    if out is None:
        return None
    COUNTERS["blobs_read"] += len(oids)
    found: dict[str, bytes] = {}
    pos = 0
    for oid in oids:
        end = out.find(b"\n", pos)
        header = out[pos:end].split(b" ")
        if len(header) != 3 or header[1] != b"blob":
            return None
        size = int(header[2])
        found[oid] = out[end + 1:end + 1 + size]
        if blob_id(found[oid], oid) != oid:
            return None
        pos = end + 1 + size + 1
    return found


def _evaluate(root: Path, kind: Folder, tz: tzinfo, wanted: dict[str, str], rows: dict[str, str],
              others: dict[str, str]) -> bool:
    """Decide `wanted` ``{name: blob}`` into `rows` (``{name: line}``, terminal) or `others`; False on a git failure."""
    blobs = read_blobs(root, sorted(set(wanted.values())))
    if blobs is None:
        return False
    for name, oid in wanted.items():
        row = kind.decide(blobs[oid], name, tz)
        if row is None or (kind is CLOSED_CLAIMS and live_in_work_tree(root, name, oid, tz)):  # ended in git alone
            others[name] = oid
        else:
            rows[name] = _line(name, oid, row)
    return True


def _rebuild(root: Path, kind: Folder, tz: tzinfo, tree: str, old: ClosedSet | None) -> ClosedSet | None:
    COUNTERS["rebuilds"] += 1
    out = git_output(root, "ls-tree", "-z", tree)
    if out is None:
        return None
    known = {(_line_name(line), line.split("\t")[3]): line for line in old.lines()} if old is not None else {}
    known_others = old.others if old is not None else {}
    rows: dict[str, str] = {}
    others: dict[str, str] = {}
    wanted: dict[str, str] = {}
    for item in out.split(b"\0"):
        if not item:
            continue
        meta, _tab, raw_name = item.partition(b"\t")
        mode, object_type, oid = meta.decode("ascii", "replace").split(" ")
        name = raw_name.decode("utf-8", "surrogateescape")
        if object_type != "blob" or mode not in _FILE_MODES or not _listed(name):
            continue
        if (name, oid) in known:
            rows[name] = known[name, oid]
        elif known_others.get(name) == oid:
            others[name] = oid
        else:
            wanted[name] = oid
    if not _evaluate(root, kind, tz, wanted, rows, others):
        return None
    lines = sorted(rows.values(), key=lambda line: (_line_time(line), _line_name(line)))
    return ClosedSet(tree, (0, 0, 0), (), len(lines), others, _odd(rows, {}), None, lines, set(rows), kind=kind)


def _relist(root: Path, found: ClosedSet, key: tuple[int, int, int]) -> ClosedSet | None:
    COUNTERS["listdirs"] += 1
    try:
        listed = os.listdir(root / found.kind.name)
    except OSError:
        return None
    names = found.names()
    live = tuple(sorted(name for name in listed if name not in names and _listed(name)))
    if _dir_key(root, found.kind) != key:  # moved while listing: not stored (the next read lists again)
        key = (0, 0, 0)
    return ClosedSet(found.tree, key, live, found.count, found.others, found.odd, found._path, found._lines, names,
                     kind=found.kind, extra=found.extra, dropped=found.dropped)


def load(root: str | Path, kind: Folder = CLOSED_CLAIMS) -> ClosedSet | None:
    """The stored set of `kind` as it is (header only; rows on demand), or None when missing or unreadable."""
    from brain_tui.core.records.state_json import read_state_json

    path = Path(root) / STATE_DIR / kind.head_file
    head = read_state_json(path)
    try:
        if not isinstance(head, dict) or head.get("format") != FORMAT or head.get("code") != _fingerprint(kind):
            return None
        key = head["dir"]
        tree = str(head["tree"])
        if not tree.isalnum():
            return None
        return ClosedSet(tree, (int(key[0]), int(key[1]), int(key[2])),
                         tuple(str(n) for n in head["live"]), int(head["count"]),
                         {str(k): str(v) for k, v in head["others"].items()},
                         {str(k): [str(n) for n in v] for k, v in head["odd"].items()},
                         path.with_name(_rows_name(kind, head.get("rows"), tree)), commit=str(head.get("commit") or ""),
                         kind=kind, extra=tuple(checked_row(line) for line in head.get("extra", ())),
                         dropped=frozenset(str(name) for name in head.get("dropped", ())))
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None


def _rows_name(kind: Folder, rows: object, tree: str) -> str:
    """The rows file a header names (one of `kind`'s rows files), else the one of its tree."""
    prefix, _mark, suffix = kind.rows_file.partition("{}")
    if isinstance(rows, str) and rows.startswith(prefix) and rows.endswith(suffix) and \
            rows[len(prefix):len(rows) - len(suffix)].isalnum():
        return rows
    return kind.rows_file.format(tree)


def rows_ok(found: ClosedSet) -> bool:
    """True when the set's rows decoded (loads them)."""
    if found._lines is None and found._path is not None:
        loaded = rows_file(found._path, names=False)[1]
        if loaded is None:
            return False
        found._lines = merged(loaded, found.extra, found.dropped)
    return True


def store(root: Path, found: ClosedSet) -> None:
    """Write the set (best effort: the set makes reads faster, never needed).

    The rows of one tree are written once (``closed-set-<tree>.txt``); a move of the folder, or a tree
    with the same rows (a set that still reads its stored rows file), only rewrites the small header.
    """
    state = root / STATE_DIR
    kind = found.kind
    # a set whose rows are those of a stored file (read from it, or moved to a tree where they are the same)
    # keeps that file: only the header is written
    kept = found._path is not None and found._path.parent == state and found._path.exists()
    rows_path = found._path if kept and found._path is not None else state / kind.rows_file.format(found.tree)
    head = {"format": FORMAT, "code": _fingerprint(kind), "tree": found.tree, "dir": list(found.dir_key),
            "live": list(found.live), "count": found.count, "others": found.others,
            "odd": found.odd, "commit": found.commit, "rows": rows_path.name}
    if kept and (found.extra or found.dropped):
        head.update(extra=list(found.extra), dropped=sorted(found.dropped))
    with contextlib.suppress(OSError):
        make_state_dir(state)
        if not kept:
            lines = found.lines()
            rows_head = json.dumps({"format": FORMAT, "tree": found.tree, "count": len(lines)})
            write_atomically(rows_path, rows_head + "\n" + "\t".join(sorted(found.names())) + "\n" + "".join(lines))
            found._path, found.extra, found.dropped = rows_path, (), frozenset()
        write_atomically(state / kind.head_file, json.dumps(head, separators=(",", ":")))
        COUNTERS["writes"] += 1
        for old in state.glob(kind.rows_file.format("*")):
            if old != rows_path:
                old.unlink()


def closed_set(root: str | Path, tz: tzinfo, *, persist: bool = True,
               kind: Folder = CLOSED_CLAIMS) -> ClosedSet | None:
    """The closed set valid for HEAD and the folder now (`kind`: ``claims/`` by default), brought up to date and
    stored when `persist`; None when there is none to trust (not git, no ``claims`` in HEAD, git failed): read all."""
    base = Path(root)
    key = _dir_key(base, kind)
    if key is None:
        return None
    commit = head_commit(base) or ""
    if not commit and outside_git(base):
        return None  # no git, no set: and no failing git process to learn it
    stored = load(base, kind) if persist else None
    if commit and stored is not None and stored.commit == commit:
        if stored.dir_key == key:
            return stored  # the same commit holds the same tree: no git process
        tree = stored.tree  # the folder moved (its new names are listed below): still no git process
    else:
        absent = NOT_IN_HEAD_FILE.format(kind.name)  # names the commit known to hold no such folder
        if commit and persist and read_for_commit(base / STATE_DIR / absent, commit) is not None:
            return None  # HEAD's commit holds no such folder, learnt once: no git process
        found_tree = _folder_tree(base, kind)
        if commit and head_commit(base) != commit:
            commit = ""  # HEAD moved while the tree was read: not paired with a commit
        if not found_tree:
            if found_tree == "" and commit and persist:
                write_for_commit(base, absent, commit)
            return None
        tree = found_tree
    if stored is not None and stored.tree == tree and stored.dir_key == key:
        if commit and stored.commit != commit and persist:
            stored.commit = commit
            store(base, stored)
        return stored
    if stored is not None and not (len(stored.names()) == stored.count if stored.tree == tree
                                   else rows_ok(stored)):
        stored = None  # rows that do not decode: rebuilt from git, never trusted
    found: ClosedSet | None = None
    if stored is not None and stored.tree == tree:
        found = stored
    elif stored is not None:
        from brain_tui.core.records.closed_advance import apply_diff

        found = apply_diff(base, tz, stored, tree)
    if found is None:
        found = _rebuild(base, kind, tz, tree, stored)
    if found is None:
        return None
    found = _relist(base, found, key)
    if found is not None:
        found.commit = commit
    if found is not None and persist and found.dir_key != (0, 0, 0):
        store(base, found)
    return found
