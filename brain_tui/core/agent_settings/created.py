"""The agents' settings files `bsi hooks install` created, remembered on this clone, so that `bsi hooks uninstall`
takes out a file (and the folder made for it) that holds nothing once bsi's entries are out, rather than leave `{}`.

Only a file install created goes, and only when nothing else is in it: a file the user made, even an empty `{}`,
stays. Whatever uninstall finds, the mark is dropped: from then on the file, if it stays, is the user's. The mark is
written before the file, so a kill between the two leaves a mark for a file not there yet, which the next install
writes (the other order could leave a file bsi made and no mark: it would stay for good, which is only untidy).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from brain_tui.core.agent_settings.files import record_key, save
from brain_tui.core.paths.layout import CREATED_SETTINGS_RECORD
from brain_tui.core.records.state_json import read_state_json

__all__ = ["DELETED", "note_creation", "settle"]

#: What uninstall's report says of a file it deleted.
DELETED = "deleted: bsi hooks install created it and nothing else is in it"

#: The mark's words: the file was created; its folder was too.
FILE, FOLDER = "file", "folder"


def _read(root: Path) -> dict[str, Any]:
    data = read_state_json(root / CREATED_SETTINGS_RECORD)
    return data if isinstance(data, dict) else {}


def note_creation(root: Path | None, settings: Path) -> None:
    """Before install writes `settings`: mark it created when it does not exist yet (with its folder when that does
    not either). Nothing without a brain (`root` None)."""
    if root is None or settings.exists():
        return
    data = _read(root)
    data[record_key(root, settings)] = [FILE] if settings.parent.is_dir() else [FILE, FOLDER]
    save(root / CREATED_SETTINGS_RECORD, data)


def settle(root: Path | None, settings: Path, after: dict[str, Any]) -> bool:
    """After uninstall took bsi's entries out of `settings` (`after`, not written yet): delete the file when install
    created it and `after` is empty (and its folder, when install made that too and it is now empty); True when it
    went. The mark is dropped either way."""
    if root is None:
        return False
    data = _read(root)
    mark = data.pop(record_key(root, settings), None)
    if mark is None:
        return False
    gone = after == {} and isinstance(mark, list) and FILE in mark and settings.is_file()
    if gone:
        settings.unlink(missing_ok=True)
        if FOLDER in mark:
            with contextlib.suppress(OSError):  # something else is in it now: it stays
                settings.parent.rmdir()
    save(root / CREATED_SETTINGS_RECORD, data)
    return gone
