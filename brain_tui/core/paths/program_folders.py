"""The folders programs are taken from for whoever runs next: a human's, never an agent's to write (SPEC 21).

A program placed in a folder on `PATH` runs for whoever next types its name (`git`, `bsi`, in the human's terminal
or in bsi's own git calls); a module placed on bsi's import path (its site-packages, its source folder, the
standard library) runs inside the hook, the MCP server and the human's `bsi` — the code that decides the writes.
An agent's edit tool reaches them when they lie outside the brain, where SPEC 20.2 otherwise lets any write go.

The folders are those of the deciding process: its `PATH` (from the environment the decision is given; an entry
spelled from the home folder, ``~/bin``, as bash expands it when it looks a command up), the folder of its own
interpreter (where `bsi` is installed beside it), and its `sys.path`. A folder that is the brain,
lies inside it, or holds it is left out: the brain's own files are decided by the claims.

Standard library only: `bsi hook pre-tool-use` imports this module on its hot path.
"""

from __future__ import annotations

import functools
import os
import sys

from brain_tui.core.paths.path_keys import below_folder

__all__ = ["program_folder"]


def program_folder(root: str, absolute: str, environ: dict[str, str] | os._Environ[str]) -> str | None:
    """The program folder (``a folder on PATH (/usr/local/bin)``, ``bsi's import path (…)``) a write of the
    absolute path `absolute` places a program or module in, replaces or moves (a write at the folder or above it),
    or None."""
    for folder, below_too, shown in _folders(os.path.realpath(root), environ.get("PATH", ""), tuple(sys.path),
                                             sys.executable, environ.get("HOME", "")):
        rel = below_folder(folder, absolute)
        if rel is not None and (below_too or "/" not in rel):
            return f"{shown} ({folder})"
        if below_folder(absolute, folder) is not None:  # the folder itself, or one above it, made or replaced
            return f"{shown} ({folder})"
    return None


@functools.lru_cache(maxsize=8)
def _folders(root: str, path: str, import_path: tuple[str, ...], executable: str,
             home: str) -> tuple[tuple[str, bool, str], ...]:
    """The program folders as ``(resolved folder, everything below it too, what it is)``, those that meet the brain
    `root` (resolved) left out; a PATH entry's leading ``~`` or ``~user`` is a home folder (`_tilde`)."""
    found: list[tuple[str, bool, str]] = []
    candidates = [(_tilde(entry, home), False, "a folder on PATH") for entry in path.split(os.pathsep)]
    candidates.append((os.path.dirname(executable), False, "the folder of bsi's own Python"))
    candidates.extend((entry, True, "bsi's import path") for entry in import_path)
    for entry, below_too, shown in candidates:
        if not entry or not os.path.isabs(entry):
            continue
        folder = os.path.realpath(entry)
        if folder == "/" or below_folder(folder, root) is not None or below_folder(root, folder) is not None:
            continue
        if not any(folder == known for known, _below, _shown in found):
            found.append((folder, below_too, shown))
    return tuple(found)


def _tilde(entry: str, home: str) -> str:
    """A PATH entry with its leading ``~`` expanded as bash does when it looks a command up (``~/bin``: `home`;
    ``~user/bin``, or no `home`: as `os.path.expanduser` finds it), else as given."""
    if (entry == "~" or entry.startswith("~/")) and home:
        return home.rstrip("/") + entry[1:]
    return os.path.expanduser(entry) if entry.startswith("~") else entry
