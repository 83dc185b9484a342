"""The `.brain/`-and-folders layout of a brain: every name the product reads or writes, in one place.

A brain is a folder (a git work tree) holding one folder per kind of record
and the generated index; `.brain/` holds local, never-committed state (the
writer lock, the parse cache, the sync record, agent liveness).
"""

from __future__ import annotations

import os
from pathlib import Path

from brain_tui.core.errors import NotFound

#: The generated index (a block inside a human-edited Markdown file).
INDEX_FILE = "BRAIN-INDEX.md"
#: Folders of records, one file per record.
CLAIMS_DIR = "claims"
SIGNALS_DIR = "signals"
LOCKS_DIR = "locks"
BREATH_DIR = "breath"
DATA_DIRS = (CLAIMS_DIR, SIGNALS_DIR, LOCKS_DIR, BREATH_DIR)

#: Local state, ignored by git (`bsi init` adds it to .gitignore).
STATE_DIR = ".brain"
#: `flock` target serialising local writers (freed by the kernel when a process dies).
LOCK_FILE = "lock"
#: The parse cache (sqlite3, stdlib only).
CACHE_FILE = "parse-cache.sqlite3"
#: Last sync time and pending local commits.
SYNC_STATE_FILE = "sync.json"
#: The write journal of a write in flight (core/records/journal.py), under STATE_DIR, and its manifest.
JOURNAL_DIR = "journal"
JOURNAL_MANIFEST = "manifest.json"


def journal_pending(root: Path) -> bool:
    """True when a journal entry is in flight or was left by a killed process (one stat; `core.journal`)."""
    return (root / STATE_DIR / JOURNAL_DIR / JOURNAL_MANIFEST).is_file()


def find_root(explicit: str | os.PathLike[str] | None = None, cwd: str | os.PathLike[str] | None = None) -> Path:
    """Find the brain: `--brain PATH`, else `$BRAIN_ROOT`, else walk up from the current folder.

    Raises:
        NotFound: no brain found (exit 66), with the commands that make one.
    """
    hint = ("run `bsi init [PATH]` to create one, or try the demo (`bsi demo PATH`, `brain-tui --demo`), "
            "or pass --brain PATH")
    given = explicit or os.environ.get("BRAIN_ROOT")
    if given:
        path = Path(given).expanduser()
        if not path.is_dir() or not ((path / "claims").is_dir() or (path / INDEX_FILE).is_file()):
            raise NotFound(f"no brain at {path} (no claims/ nor {INDEX_FILE}): {hint}")
        return path.resolve()
    start = Path(cwd or os.getcwd()).resolve()
    for folder in (start, *start.parents):
        if (folder / "claims").is_dir() or (folder / INDEX_FILE).is_file():
            return folder
    raise NotFound(f"no brain found from {start} upwards: {hint}")
