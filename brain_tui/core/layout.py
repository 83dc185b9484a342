"""The `.brain/`-and-folders layout of a brain: every name the product reads or writes, in one place.

A brain is a folder (a git work tree) holding one folder per kind of record
and the generated index; `.brain/` holds local, never-committed state (the
writer lock, the parse cache, the sync record, agent liveness).
"""

from __future__ import annotations

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
