"""Brain files that do not read, as items of the attention queue (kind ``unreadable``; SPEC 13, 22).

Each waits for a human to mend it, and its summary says what it is, its line and reason, what it blocks and its
repair (`records.unreadable.repair_of`):

- a claim file that may hold something blocks it as an open claim would, until `bsi claim repair` (or a hand edit)
  mends it;
- a lock file that does not read — a corrupt YAML, a folder or a symbolic link named like a lock file — may hold the
  lock of the file its name decodes to: no session acquires that file until a human fixes or removes it
  (`locks.corrupt_lock_of`); no `bsi lock` verb mends it;
- a signal file that does not read blocks nothing, but the message it holds (a gate request, a BLOCKED_ON) reaches
  no one; no `bsi signal` verb mends it either; a copy of a signal under another name (`signal_twins`) loses
  nothing: the signal is read from the file of its own name.

One item per file: a lock file whose work-tree copy and HEAD's copy both fail to read is one row (its key is its
path, as the cockpit's rows are keyed). A lock or signal file counts as holding one claim up (`unblocks` 1): whoever
waits on its lock or its message is not known, and what does not read fails closed.
"""

from __future__ import annotations

from brain_tui.core.paths.layout import LOCKS_DIR, SIGNALS_DIR
from brain_tui.core.records.model import BrainSnapshot, CorruptFile
from brain_tui.core.records.signal_twins import COPY_OF
from brain_tui.core.records.unreadable import BY_HAND, holder_id, repair_command, shown_path
from brain_tui.core.rules.attention import AttentionItem
from brain_tui.core.rules.lock_names import name_path

__all__ = ["file_items", "file_name", "lock_blocks"]


def lock_blocks(rel_path: str) -> str:
    """What the lock file `rel_path` that does not read blocks, in words: the file its name decodes to, kept
    locked; or, for a name that decodes to no path (a legacy ``.lock``), that its name does not tell."""
    named = name_path(rel_path)
    if named is None:
        return "its name does not tell which file it may lock"
    return f"until then it keeps {shown_path(named)} locked"


def file_name(rel_path: str) -> str:
    """How a row names the brain file `rel_path` that does not read: a claim file by the claim it names
    (`holder_id`); a lock file by the file it may lock (``lock notes/a.md``: its own name is that path
    percent-encoded, which `shown_path` would encode again); any other by its shown path."""
    named = name_path(rel_path)
    return f"lock {shown_path(named)}" if named is not None else holder_id(rel_path)


def _item(bad: CorruptFile, summary: str) -> AttentionItem:
    return AttentionItem("unreadable", f"unreadable:{bad.path}", None, None, None, None, 1, summary, path=bad.path)


def _why(bad: CorruptFile) -> str:
    return f"(line {bad.line}: {bad.reason})"


def file_items(snapshot: BrainSnapshot) -> list[AttentionItem]:
    """One item per claim, lock and signal file of `snapshot` that does not read and waits on a human (see the
    module docstring); a claim file that holds nothing (a folder, a ``gate-ack-*`` file) is none."""
    items: list[AttentionItem] = []
    seen: set[str] = set()
    for bad in snapshot.corrupt:
        if bad.path in seen:
            continue
        if bad.holds:
            summary = (f"does not read: {repair_command(bad.path)} {_why(bad)}; until repaired it holds "
                       f"{' '.join(str(entry) for entry in bad.holds)}")
        elif bad.path.startswith(f"{LOCKS_DIR}/"):
            summary = f"lock file does not read: {BY_HAND} {_why(bad)}; {lock_blocks(bad.path)}"
        elif bad.path.startswith(f"{SIGNALS_DIR}/") and bad.reason.startswith(COPY_OF):
            summary = (f"signal file is a copy: {BY_HAND} {_why(bad)}; it blocks nothing, the signal is in the "
                       "other file")
        elif bad.path.startswith(f"{SIGNALS_DIR}/"):
            summary = (f"signal file does not read: {BY_HAND} {_why(bad)}; it blocks nothing, but a message may be "
                       "lost (a gate request, a BLOCKED_ON)")
        else:
            continue
        seen.add(bad.path)
        items.append(_item(bad, summary))
    return items
