"""The `.brain/`-and-folders layout of a brain: every name the product reads or writes, in one place.

A brain is a folder (a git work tree) holding one folder per kind of record and the generated index; `.brain/` holds
local, never-committed state (the writer lock, the parse cache, the sync record, agent liveness, launches, the hook
index). Finding the brain a path or a command names lives here too.

Standard library only (`os`, `pathlib`), no `typing`: `bsi hook pre-tool-use` imports this module on its hot path.
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

#: The generated index of the brain (a block inside a human-edited Markdown file).
INDEX_FILE = "BRAIN-INDEX.md"
#: The environment variable naming the brain (`--brain` wins over it).
ROOT_VARIABLE = "BRAIN_ROOT"
#: The environment variable naming the claim a launcher or the session-start hook gave the session (SPEC 20.1,
#: 20.5): it wins over any binding.
SESSION_VARIABLE = "BSI_SESSION"

#: Folders of records, one file per record.
CLAIMS_DIR = "claims"
SIGNALS_DIR = "signals"
LOCKS_DIR = "locks"
BREATH_DIR = "breath"
DATA_DIRS = (CLAIMS_DIR, SIGNALS_DIR, LOCKS_DIR, BREATH_DIR)

#: The brain's settings (SPEC 12).
CONFIG_FILE = "brain-compose.yml"

#: Local state, ignored by git (`bsi init` adds it to .gitignore).
STATE_DIR = ".brain"
#: `flock` target serialising local writers (freed by the kernel when a process dies).
LOCK_FILE = "lock"
#: The parse cache (sqlite3, stdlib only).
CACHE_FILE = "parse-cache.sqlite3"
#: The closed set: the claim files HEAD holds terminal, skipped by live-only reads (core/records/closed_set.py).
CLOSED_SET_FILE = "closed-set.json"
#: Its rows for one `claims` tree of HEAD: ``closed-set-<tree>.txt`` (the tree ID fills the braces).
CLOSED_ROWS_FILE = "closed-set-{}.txt"
#: The commit known to hold no such folder: ``<folder>-not-in-head.json`` (the folder's name fills the braces).
NOT_IN_HEAD_FILE = "{}-not-in-head.json"
#: Last sync time and pending local commits.
SYNC_STATE_FILE = "sync.json"
#: The keys the cockpit's notices already told, under STATE_DIR (core/sessions/notify.py; never committed).
NOTIFIED_FILE = "notified.json"
#: The write journal of a write in flight (core/records/journal.py), under STATE_DIR, and its manifest.
JOURNAL_DIR = "journal"
JOURNAL_MANIFEST = "manifest.json"
#: A human's pause written while git could not commit it, committed once git is idle (core/records/held_back.py),
#: relative to the brain.
HELD_BACK_RECORD = f"{STATE_DIR}/held-back.json"

#: The hook index: the shadow of the write rules `bsi hook pre-tool-use` answers from (relative to the brain).
HOOK_INDEX_FILE = f"{STATE_DIR}/hook-index.json"
#: Agent liveness and session bindings, one folder per agent kind (relative to the brain).
AGENTS_DIR = f"{STATE_DIR}/agents"
#: Under AGENTS_DIR: the claims sync gave a new ID on this clone, old → new (core/sessions/rebind.py).
RENAMED_FILE = "renamed.json"
#: Launch records of `bsi launch`, one `sess-*.json` each (relative to the brain).
LAUNCH_DIR = f"{STATE_DIR}/launches"
#: Per-launch settings files handed to an agent's `--settings` (relative to the brain).
LAUNCH_SETTINGS_DIR = f"{STATE_DIR}/launch"

#: Present in the state folder while `bsi` itself rebases (a rebase found with it was left by a killed `bsi`).
REBASE_MARK = "rebasing"
#: The sandbox fence record of an agent session (relative to the brain).
SANDBOX_RECORD = f"{STATE_DIR}/sandbox-fence.json"
#: The agents' settings files `bsi hooks install` created on this clone (relative to the brain).
CREATED_SETTINGS_RECORD = f"{STATE_DIR}/created-settings.json"

#: The protocol's own folders and files (SPEC 2): written through `bsi` only, never with an editor tool.
PROTOCOL_DIRS = (*DATA_DIRS, STATE_DIR)
PROTOCOL_FILES = (INDEX_FILE,)

#: What to do when no brain is found.
_HINT = ("run `bsi init [PATH]` to create one, or try the demo (`bsi demo PATH`, `brain-tui --demo`), "
         "or pass --brain PATH")


def journal_pending(root: Path) -> bool:
    """True when a journal entry is in flight or was left by a killed process (one stat; `core.journal`)."""
    return (root / STATE_DIR / JOURNAL_DIR / JOURNAL_MANIFEST).is_file()


def is_brain(folder: str | os.PathLike[str]) -> bool:
    """Whether `folder` is a brain: it holds ``claims/`` or the brain index."""
    return os.path.isdir(os.path.join(folder, CLAIMS_DIR)) or os.path.isfile(os.path.join(folder, INDEX_FILE))


def brain_above(start: str | os.PathLike[str]) -> str | None:
    """The nearest brain at or above `start` (walked as spelled: resolve first where links matter), or None."""
    folder = os.fspath(start)
    while True:
        if is_brain(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def locate_brain(explicit: str | None, environ: Mapping[str, str], starts: Iterable[str]) -> str | None:
    """The brain a command names, resolved: `explicit` (``--brain``), else ``$BRAIN_ROOT`` in `environ`, else up
    from each of `starts` in order (relative or empty ones are skipped); None when none is found (a named folder that
    is not a brain included)."""
    given = explicit or environ.get(ROOT_VARIABLE)
    if given:
        path = os.path.realpath(os.path.expanduser(given))
        return path if is_brain(path) else None
    for start in starts:
        if start and os.path.isabs(start):
            found = brain_above(os.path.realpath(start))
            if found is not None:
                return found
    return None


def find_root(explicit: str | os.PathLike[str] | None = None, cwd: str | os.PathLike[str] | None = None,
              environ: Mapping[str, str] | None = None) -> Path:
    """Find the brain: `--brain PATH`, else `$BRAIN_ROOT` (from `environ`, default the process's), else walk up
    from `cwd` (default the current folder).

    Raises:
        NotFound: no brain found (exit 66), with the commands that make one.
        InvalidData: `explicit` is blank (an unset variable in a script): it names no brain, and another is never
            taken in its place (exit 65).
    """
    from brain_tui.core.errors import InvalidData, NotFound

    if explicit is not None and not os.fspath(explicit).strip():
        raise InvalidData("invalid --brain: the path is empty (give the brain's folder)")
    env = os.environ if environ is None else environ
    given = os.fspath(explicit) if explicit else env.get(ROOT_VARIABLE)
    start = os.path.realpath(cwd or os.getcwd())
    found = locate_brain(given, env, [start])
    if found is not None:
        return Path(found)
    if given:
        raise NotFound(f"no brain at {Path(given).expanduser()} (no {CLAIMS_DIR}/ nor {INDEX_FILE}): {_HINT}")
    raise NotFound(f"no brain found from {start} upwards: {_HINT}")
