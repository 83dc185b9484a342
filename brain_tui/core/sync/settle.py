"""Sync settles protocol records by the protocol's rules: no claim, signal, lock or breath file needs a hand merge.

SPEC 22: when two machines changed one protocol file, the side that wins is the one whose change ranks higher: a
human's decision (approve, reject, pause, resume, abort, release), then the owner's committed action (a renew, a
close, a gate request, any field change), then a derived mark (the watchdog's STALE, sync's "lost while offline", a
skew revival). On a tie the remote's side wins: it was pushed first, and the remote is the only arbiter (SPEC 11) —
but between two humans, a decision that ends the claim (abort, reject, release) wins over a lift made meanwhile, and
a pause is carried onto the winner, the nearer of two pausers kept (`keep_pause`): no human's stop is undone by
another's concurrent go, nor by the resume of a farther pause. The winning side is taken whole, never merged line
by line (a STALE mark merged with a renew would leave a renewed claim marked stale).

Git runs `choose` as a merge driver (`bsi-protocol`, set in `.git/config` and `.git/info/attributes`) for every
protocol file both sides changed, textual conflict or not; `settle_rebase` settles what a driver cannot see (a file
one side deleted and the other changed) and goes on with the rebase.

BRAIN-INDEX.md goes through `merge_index` (driver `bsi-index`): its generated block is regenerated after the
sync, never merged, but the text outside the markers is a human's (SPEC 8 keeps it): both sides' changes to it
are kept, and the same lines changed on both sides stop the sync as any other file of the user's would.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from brain_tui.core.paths.layout import DATA_DIRS, INDEX_FILE
from brain_tui.core.records.statuses import TERMINAL_STATUSES, Status
from brain_tui.core.records.yamlio import CorruptYaml, atomic_write_text, safe_load_text
from brain_tui.core.sync import git_state, gitops

__all__ = ["DRIVER", "PROTOCOL_DIRS", "choose", "claim_parents", "ensure_drivers", "is_protocol", "keep_gate",
           "keep_pause", "merge_index", "rank", "settle_rebase", "unrenamed_clash"]

DRIVER = "bsi-protocol"
INDEX_DRIVER = "bsi-index"
PROTOCOL_DIRS = tuple(f"{folder}/" for folder in DATA_DIRS)
HUMAN, OWNER, DERIVED, NOTHING = 3, 2, 1, 0
#: gate_history events only a human records (SPEC 21.2).
HUMAN_EVENTS = frozenset({"APPROVED", "REJECTED", "PAUSED", "PAUSED_CASCADE", "RESUMED", "RESUMED_CASCADE",
                          "ABORTED", "ABORTED_CASCADE", "RELEASED"})
#: gate_history events the product derives from clocks and the remote, never anyone's decision.
DERIVED_EVENTS = frozenset({"STALE", "REVIVED"})
#: Who records an event as a derived mark (`reconcile.mark_lost` aborts as "sync").
DERIVED_ACTORS = frozenset({"watchdog", "sync"})
_MAX_STEPS = 200


def is_protocol(rel: str) -> bool:
    """True for a brain-relative path under claims/, signals/, locks/ or breath/."""
    return rel.startswith(PROTOCOL_DIRS)


def _parse(text: str | None) -> Mapping[str, Any] | None:
    if text is None:
        return None
    try:
        doc = safe_load_text(text)
    except CorruptYaml:
        return None
    return doc if isinstance(doc, Mapping) else None


def _events(doc: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    history = doc.get("gate_history")
    if not isinstance(history, list):
        return []
    return [(str(e.get("ts")), str(e.get("event")), str(e.get("by"))) for e in history if isinstance(e, Mapping)]


def rank(base: str | None, side: str | None) -> int:
    """How strong one side's change to a claim is against their common base (HUMAN > OWNER > DERIVED).

    A side that does not parse ranks NOTHING (the other side wins); a deleted or new file is an owner's action.
    """
    if side == base:
        return NOTHING
    if side is None:
        return OWNER
    doc = _parse(side)
    if doc is None:
        return NOTHING
    before = _parse(base) or {}
    seen = set(_events(before))
    new = [e for e in _events(doc) if e not in seen]
    if any(event in HUMAN_EVENTS and by not in DERIVED_ACTORS for _, event, by in new):
        return HUMAN
    if new and all(event in DERIVED_EVENTS or by in DERIVED_ACTORS for _, event, by in new):
        return DERIVED
    return OWNER


def unrenamed_clash(rel: str, base: str | None, upstream: str | None, local: str | None) -> bool:
    """True for a claim file both sides created with different texts: one ID opened on two machines, which sync
    renames before it rebases (`BrainRemote.before_integrate`). Missed, it is never settled by keeping one side
    (the other would be a claim lost without a word): the rebase stops and the next sync renames it."""
    return rel.startswith("claims/") and base is None and None not in (upstream, local) and upstream != local


def choose(rel: str, base: str | None, upstream: str | None, local: str | None,
           parent_of: Callable[[str], str | None] | None = None) -> str | None:
    """The side of brain-relative `rel` in force after a sync: the local side only when its change ranks higher.

    Claims rank by their history; a lock held beats its deletion; other records tie. `base` is the common
    ancestor's text, `upstream` the remote's side (pushed first), `local` this machine's (replayed on top); None
    is an absent or deleted file, and None is returned for "the file is deleted". `parent_of` gives another
    claim's parent (`keep_pause`: which of two pauses is nearer)."""
    if rel.startswith("locks/") and upstream is None:
        # A lock one side holds beats its deletion by the other: removing an expired lock is a derived mark, an
        # acquire its holder's action; and a mutex kept fails closed (it expires), one dropped lets two write.
        return local
    if not rel.startswith("claims/"):
        return upstream
    mine, theirs = rank(base, local), rank(base, upstream)
    if mine > theirs or (mine == theirs == HUMAN and _ended(local) and not _ended(upstream)):
        winner, loser = local, upstream
    else:
        winner, loser = upstream, local
    return keep_pause(base, keep_gate(base, winner, loser), loser, parent_of)


def _ended(text: str | None) -> bool:
    """True for a claim side that is terminal: between two humans' decisions, an abort, a rejection or a release
    ends the claim for good and wins over a lift (a resume, an approval) made meanwhile on another machine."""
    doc = _parse(text)
    return doc is not None and str(doc.get("status")) in TERMINAL_STATUSES


#: The field that says where a claim waits, by the winner's status: an open claim waits for the human; a pause
#: or a stale mark taken from `open` is taken from `waiting_human` instead (resume restores it, SPEC 6.3).
_WAITS_IN: dict[str, str] = {Status.OPEN: "status", Status.PAUSED: "paused_from", Status.STALE: "stale_from"}
#: Fields the winner's status owns; never carried from the losing side.
_STATUS_FIELDS = frozenset({"status", "paused_from", "paused_by", "stale_from", "stale_since", "stale_reason",
                            "gate_history"})


def keep_gate(base: str | None, winner: str | None, loser: str | None) -> str | None:
    """The winning side of a claim, with the gate request the losing side made carried onto it.

    The winner is taken whole (`choose`) but for one thing: a pending gate is never lost (SPEC 6.3, 14.2).
    When the losing side asked for a gate (a HUMAN_GATE the winner has not seen) and the winner is not
    terminal, the claim still waits for a human: an open winner goes `waiting_human`, a pause or a stale mark
    taken from `open` is taken from `waiting_human`; the gate's own fields (`gate_origin`, `gate_message`,
    a close's `result`) and its HUMAN_GATE events come along.
    """
    won, lost, before = _parse(winner), _parse(loser), _parse(base) or {}
    if winner is None or loser is None or won is None or lost is None:
        return winner
    seen = set(_events(before)) | set(_events(won))
    asked = [e for e in _events(lost) if e[1] == "HUMAN_GATE" and e not in seen]
    waits_in = _WAITS_IN.get(str(won.get("status")))
    if not asked or waits_in is None or str(won.get(waits_in)) != Status.OPEN:
        return winner
    from brain_tui.core.records.yamlio import dump_round_trip, load_round_trip

    doc, gone = load_round_trip(winner), load_round_trip(loser)
    doc[waits_in] = Status.WAITING_HUMAN.value
    for key, value in gone.items():
        if key not in _STATUS_FIELDS and value != before.get(key) and won.get(key) == before.get(key):
            doc[key] = value
    _carry_events(doc, gone, asked)
    return dump_round_trip(doc)


def _carry_events(doc: Any, gone: Mapping[str, Any], wanted: Collection[tuple[str, str, str]]) -> None:
    """Append to `doc`'s gate_history the events of the losing side `gone` named in `wanted` (ts, event, by)."""
    history = doc.get("gate_history")
    if not isinstance(history, list):
        history = doc["gate_history"] = []
    history.extend(e for e in gone.get("gate_history") or []
                   if isinstance(e, Mapping) and (str(e.get("ts")), str(e.get("event")), str(e.get("by"))) in wanted)


#: gate_history events that put a claim on hold (a human's pause, or its cascade from an ancestor).
_PAUSE_EVENTS = frozenset({"PAUSED", "PAUSED_CASCADE"})


def keep_pause(base: str | None, winner: str | None, loser: str | None,
               parent_of: Callable[[str], str | None] | None = None) -> str | None:
    """The winning side of a claim, with a pause the losing side still holds carried onto it (SPEC 6.3, 21.2).

    Two humans' decisions tie, and the remote's side is taken; but a pause only a human's resume lifts: when the
    losing side recorded a pause the winner has not seen and still holds it (``paused_by``), and the winner is
    ``open`` or ``waiting_human``, the claim is paused from the winner's status, by the loser's pauser, with
    the pause's events. An approval made meanwhile is kept: the resume gives the claim back as it left it.

    Both sides paused by different humans (the winner by an ancestor's cascade, the loser by the claim's own
    pause or a nearer ancestor's): the nearer pauser is kept, as if its pause came first, so the farther one's
    resume leaves the claim paused until its own (`parent_of` walks the tree; without it, only the claim itself
    and its parent are known to be nearer).
    """
    won, lost, before = _parse(winner), _parse(loser), _parse(base) or {}
    if winner is None or loser is None or won is None or lost is None or not str(lost.get("paused_by") or "").strip():
        return winner
    seen = set(_events(before)) | set(_events(won))
    paused = [e for e in _events(lost) if e[1] in _PAUSE_EVENTS and e[2] not in DERIVED_ACTORS and e not in seen]
    previous = str(won.get("status"))
    if not paused:
        return winner
    if previous == Status.PAUSED:
        if not _nearer(won, str(lost.get("paused_by")), str(won.get("paused_by")), parent_of):
            return winner
    elif previous not in (Status.OPEN, Status.WAITING_HUMAN):
        return winner
    from brain_tui.core.records.yamlio import dump_round_trip, load_round_trip

    doc, gone = load_round_trip(winner), load_round_trip(loser)
    doc["status"] = Status.PAUSED.value
    doc["paused_by"] = gone["paused_by"]
    if previous != Status.PAUSED:
        doc["paused_from"] = previous
    _carry_events(doc, gone, paused)
    return dump_round_trip(doc)


def _nearer(claim: Mapping[str, Any], mine: str, theirs: str,
            parent_of: Callable[[str], str | None] | None) -> bool:
    """True when pauser `mine` is nearer to `claim` than `theirs` in its satellite tree: the claim itself, or an
    ancestor met before `theirs` going up from the claim's parent."""
    own = str(claim.get("sess_id"))
    if mine == theirs or theirs == own:
        return False
    if mine == own:
        return True
    step: str | None = str(claim.get("parent_satellite") or "") or None
    for _ in range(_MAX_STEPS):
        if step is None or step == theirs:
            return False
        if step == mine:
            return True
        step = parent_of(step) if parent_of is not None else None
    return False


def claim_parents(folder: Path) -> Callable[[str], str | None]:
    """`parent_of` over the claim files of `folder` (a brain's claims/ in the work tree): a claim's parent, or
    None when it has none, is unknown or does not parse."""
    from brain_tui.core.ids import valid_session_id
    from brain_tui.core.records.yamlio import MAX_FILE_BYTES, read_capped

    def parent_of(sess_id: str) -> str | None:
        if not valid_session_id(sess_id):
            return None
        try:
            raw = read_capped(folder / f"{sess_id}.yml")
        except OSError:
            return None
        if raw is None or len(raw) > MAX_FILE_BYTES:
            return None
        doc = _parse(raw.decode("utf-8", errors="replace"))
        parent = doc.get("parent_satellite") if doc is not None else None
        return str(parent) if parent else None

    return parent_of


#: The one line that stands for the generated block while the hand-written text of the index is merged.
_BLOCK_STAND_IN = "<!-- bsi:generated:block -->"


def _split_index(text: str) -> tuple[str, str]:
    """(the hand-written text with the generated block replaced by a stand-in line, the block)."""
    from brain_tui.core.records.index import END, START

    start = text.find(START)
    if start < 0:
        return text, ""
    end = text.rfind(END)
    stop = end + len(END) if end >= start + len(START) else len(text)
    return text[:start] + _BLOCK_STAND_IN + text[stop:], text[start:stop]


def merge_index(base: str | None, upstream: str | None, local: str | None, *, marked: bool = False) -> str | None:
    """BRAIN-INDEX.md after a sync: the hand-written text of both sides, the generated block of either (it is
    regenerated once the sync is over, SPEC 8).

    `base`, `upstream` and `local` are as in `choose`. None when both sides changed the same hand-written lines
    (the user's to resolve), unless `marked`: then git's conflict lines surround both sides' versions."""
    if upstream is None or local is None:
        return upstream if local is None else local
    (mine, _), (theirs, block), (old, _) = _split_index(local), _split_index(upstream), _split_index(base or "")
    if mine in (old, theirs):
        return upstream
    if theirs != old:
        merged, clean = _merge_text(old, theirs, mine)
        if not clean and not marked:
            return None
        mine = merged
    if _BLOCK_STAND_IN not in mine:
        return mine if not block else mine.rstrip("\n") + "\n\n" + block + "\n"
    return mine.replace(_BLOCK_STAND_IN, block or "", 1)


def _merge_text(base: str, upstream: str, local: str) -> tuple[str, bool]:
    """A three-way line merge (`git merge-file`): (the text, with conflict lines where it conflicts; clean).

    Git that does not answer is a conflict that keeps the remote's side.
    """
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bsi-index-merge-") as folder:
        paths = []
        for name, text in (("local", local), ("base", base), ("upstream", upstream)):
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            paths.append(str(path))
        try:
            proc = gitops.run_git(folder, "merge-file", "-p", "-L", "local", "-L", "base", "-L", "remote", *paths,
                                  check=False)
        except gitops.GitError:
            return upstream, False
    return proc.stdout, proc.returncode == 0


def _driver_command(root: Path) -> str:
    """The command git runs as bsi's merge driver (`_driver` below), for the brain at `root`."""
    prefix = gitops.top_prefix(root)
    return " ".join(shlex.quote(part) for part in (sys.executable, "-m", "brain_tui.core.sync.settle", prefix))


def _ensure_index_driver(root: Path) -> None:
    """Never merge BRAIN-INDEX.md's block as text: `merge_index` keeps the hand-written text of both sides; the
    facade regenerates the block."""
    gitops.run_git(root, "config", f"merge.{INDEX_DRIVER}.name",
                   "BRAIN-INDEX.md: hand-written text merged, the generated block regenerated")
    gitops.run_git(root, "config", f"merge.{INDEX_DRIVER}.driver", f"{_driver_command(root)} %O %A %B %P")
    gdir = gitops.git_dir(root)
    if gdir is None:
        return
    info = gdir / "info" / "attributes"
    line = f"{INDEX_FILE} merge={INDEX_DRIVER}"
    pattern = f"{gitops.top_prefix(root)}{INDEX_FILE} merge={INDEX_DRIVER}"
    existing = info.read_text(encoding="utf-8").splitlines() if info.exists() else []
    wanted = [x for x in dict.fromkeys((line, pattern)) if x not in existing]
    if wanted:
        info.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(info, "\n".join([*existing, *wanted]) + "\n")


def ensure_drivers(root: Path) -> None:
    """Before git brings the remote's commits into the work tree (a fast-forward, a rebase): the index is never
    merged as text, protocol files go through `choose` and are written as their blobs are."""
    _ensure_index_driver(root)
    _ensure_protocol_driver(root)


#: What bsi's lines of `.git/info/attributes` set on every protocol file besides its merge driver: no conversion
#: on checkout or check-in (no end-of-line change, no encoding, no `$Id$`, no filter), so a file git writes into
#: the work tree (a sync's fast-forward or rebase) is the blob's bytes, whatever a `.gitattributes` an agent wrote
#: says: git gives `info/attributes` precedence over the work tree's files, and a later line of it over an earlier.
NO_CONVERSION = "-text -working-tree-encoding -ident -filter"


def _ensure_protocol_driver(root: Path) -> None:
    """Route every protocol file through `choose` when git merges, with no conversion (`NO_CONVERSION`): config,
    and bsi's lines last in info/attributes (a line written after them would override them)."""
    prefix = gitops.top_prefix(root)
    gitops.run_git(root, "config", f"merge.{DRIVER}.name", "bsi protocol records: settled by the protocol's rules")
    gitops.run_git(root, "config", f"merge.{DRIVER}.driver", f"{_driver_command(root)} %O %A %B %P")
    gdir = gitops.git_dir(root)
    if gdir is None:
        return
    info = gdir / "info" / "attributes"
    existing = info.read_text(encoding="utf-8").splitlines() if info.exists() else []
    wanted = [f"{prefix}{folder}** merge={DRIVER} {NO_CONVERSION}" for folder in PROTOCOL_DIRS]
    if existing[-len(wanted):] != wanted:
        info.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(info, "\n".join([*(line for line in existing if line not in wanted), *wanted]) + "\n")


def _stages(top: Path, path: str) -> dict[int, str]:
    proc = gitops.run_git(top, "ls-files", "-u", "-z", "--", path, check=False)
    stages: dict[int, str] = {}
    for entry in proc.stdout.split("\0"):
        meta, _, _name = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3:
            stages[int(parts[2])] = parts[1]
    return stages


def _blob(top: Path, sha: str | None) -> str | None:
    if sha is None:
        return None
    return gitops.run_git(top, "cat-file", "blob", sha).stdout


def _unmerged(top: Path) -> list[str]:
    proc = gitops.run_git(top, "diff", "--name-only", "--diff-filter=U", "-z", check=False)
    return [p for p in proc.stdout.split("\0") if p]


def settle_rebase(root: Path, ident: Sequence[str] = ()) -> bool:
    """Settle a stopped rebase whose conflicts are all protocol files (or the index), and finish it: True when it
    finished; False when a conflict is in another file (the caller aborts it: those are the user's to resolve)."""
    top = gitops.toplevel(root)
    prefix = gitops.top_prefix(root)
    env = {"GIT_EDITOR": "true"}
    for _ in range(_MAX_STEPS):
        if git_state.operation_in_progress(root) is None:
            return True
        paths = _unmerged(top)
        rels = [gitops.brain_relative(p, prefix) for p in paths]
        if any(not (is_protocol(rel) or rel == INDEX_FILE) for rel in rels):
            return False
        for path, rel in zip(paths, rels, strict=True):
            stages = _stages(top, path)
            base, upstream, local = _blob(top, stages.get(1)), _blob(top, stages.get(2)), _blob(top, stages.get(3))
            if unrenamed_clash(rel, base, upstream, local):
                return False
            if rel == INDEX_FILE:
                keep = merge_index(base, upstream, local)
                if keep is None and upstream is not None and local is not None:
                    return False  # both sides changed the same hand-written lines: the user's to resolve
            else:
                keep = choose(rel, base, upstream, local, claim_parents(top / prefix / "claims"))
            if keep is None:
                gitops.run_git(top, "rm", "--quiet", "--cached", "--ignore-unmatch", "--", path, check=False)
                (top / path).unlink(missing_ok=True)
            else:
                atomic_write_text(top / path, keep)
                gitops.run_git(top, "add", "--", path)
        proc = gitops.run_git(top, *ident, "rebase", "--continue", env=env, check=False, timeout=120)
        if proc.returncode != 0 and not _unmerged(top) and git_state.operation_in_progress(root) is not None:
            # The settled commit changes nothing any more (the remote's side won): it is dropped.
            gitops.run_git(top, *ident, "rebase", "--skip", env=env, check=False, timeout=120)
    return False


def _driver(argv: Sequence[str]) -> int:
    """`python -m brain_tui.core.sync.settle PREFIX BASE OURS THEIRS PATH`: git's merge driver (result in OURS)."""
    if len(argv) != 5:
        return 2
    prefix, base_file, ours_file, theirs_file, path = argv

    def read(name: str) -> str | None:
        try:
            return Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    base = read(base_file) or None  # an add/add conflict gives an empty base
    upstream, local = read(ours_file), read(theirs_file)
    rel = gitops.brain_relative(path, prefix)
    if unrenamed_clash(rel, base, upstream, local):
        return 1  # left in conflict: `settle_rebase` stops the rebase
    if rel == INDEX_FILE:
        if merge_index(base, upstream, local) is None:
            # the same hand-written lines changed on both sides: a conflict for the user (`settle_rebase` stops)
            Path(ours_file).write_text(merge_index(base, upstream, local, marked=True) or "", encoding="utf-8")
            return 1
        keep = merge_index(base, upstream, local)
    else:
        keep = choose(rel, base, upstream, local, claim_parents(Path(prefix) / "claims"))
    if keep is not None and keep != upstream:
        Path(ours_file).write_text(keep, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(_driver(sys.argv[1:]))
