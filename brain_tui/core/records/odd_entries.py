"""A brain file that is no regular file: a symbolic link, a FIFO, a device or a socket (SPEC 22: fails closed).

An agent can put any of these where a claim file stands (``ln -s``, ``mkfifo``). None is ever read: a link could
name any file on the machine, and opening a FIFO waits for a writer. None is silently dropped either: a claim that
vanished without a word would block nothing. The scan (`BrainStore`) reports each as a corrupt row; one in
``claims/`` may stand for a live claim, so, unread, it holds the whole brain (a committed claim's HEAD copy still
holds its own scope besides: `in_force.held_in_head`). A write that would edit a claim through such a file is
refused (`ChangeSet.claim_doc`). A folder named like a brain file (``locks/x.yml/``, made by hand or by a program
that mistook the name) is a corrupt row too, so that a human sees it: a lock acquire of its file is refused while it
stands, so no reader calls that file free (`rules.locks.corrupt_lock_of`). One in ``claims/`` holds nothing: no claim
can be read through it (unlike a link), and a claim git holds at that path stays in force from HEAD (`in_force`).
"""

from __future__ import annotations

import os
import stat
from datetime import tzinfo
from pathlib import Path

from brain_tui.core.paths.layout import CLAIMS_DIR
from brain_tui.core.records.model import CorruptFile
from brain_tui.core.records.unreadable import held_by_bytes

__all__ = ["FOLDER", "LINK", "SPECIAL", "odd_kind", "odd_kind_at", "odd_row"]

#: What a symbolic link is called in a refusal.
LINK = "a symbolic link"
#: What a FIFO, a device or a socket is called in a refusal.
SPECIAL = "a FIFO, a device or a socket"
#: What a folder standing where a brain file would is called in its corrupt row.
FOLDER = "a folder"
#: The corrupt row's reason for each kind.
_REASONS = {LINK: "a symbolic link, not followed: the file must be a regular file",
            SPECIAL: f"not a regular file ({SPECIAL})",
            FOLDER: "a folder, not a file: move it away"}


def odd_kind(mode: int) -> str | None:
    """`LINK` or `SPECIAL` for an entry's ``lstat`` mode that is one of them; None for a regular file or a folder."""
    if stat.S_ISLNK(mode):
        return LINK
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return SPECIAL


def odd_kind_at(path: str | os.PathLike[str]) -> str | None:
    """`odd_kind` of what stands at `path` (a link is not followed); None when nothing does."""
    try:
        return odd_kind(os.lstat(path).st_mode)
    except OSError:
        return None


def odd_row(root: Path, rel: str, mode: int, tz: tzinfo) -> CorruptFile | None:
    """The corrupt row of the brain file `rel` whose ``lstat`` mode is `mode`, when it is a link, a FIFO, a device,
    a socket (never opened) or a folder; None for a regular file. A link, FIFO, device or socket in ``claims/``
    holds the whole brain (the name of a file that is plainly no claim, ``gate-ack-*``, holds nothing); a folder
    holds nothing."""
    kind = FOLDER if stat.S_ISDIR(mode) else odd_kind(mode)
    if kind is None:
        return None
    holds = held_by_bytes(None, rel, root, tz) if rel.startswith(f"{CLAIMS_DIR}/") and kind != FOLDER else ()
    return CorruptFile(rel, 0, _REASONS[kind], holds)
