"""What cp, mv, install and ln write (and `git mv`), for the shell's reader (`shell_targets`): the destination
(inside a folder: one file per source; with `-T` the last operand itself, even a folder), and, for a move or a hard
link, the sources too; a folder copied with `-r`, or moved, is written whole.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os

from brain_tui.core.sessions.shell_wrappers import join_path

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["copy_like", "is_dir"]


def is_dir(cwd: str | None, path: str) -> bool:
    """True when `path` (from `cwd`) names a folder: written with its slash, or one on disk."""
    full = join_path(cwd, path)
    return path.endswith("/") or (full is not None and os.path.isdir(full))


def copy_like(name: str, operands: list[str], values: dict[str, str], flags: set[str], cwd: str | None,
               reading: ShellReading, moves: bool) -> None:
    """cp / mv / install / ln: the destination (inside a folder: one file per source; with `-T` the last operand
    itself, even a folder); with `moves` (mv, a hard link) also its sources. A folder copied with `-r`, or moved,
    writes its destination whole."""
    recursive = name == "mv" or bool(flags & {"-r", "-R", "-a", "--recursive", "--archive"})
    itself = bool(flags & {"-T", "--no-target-directory"})  # `cp -rT src eng/sub`: src's files into eng/sub
    folder = values.get("-t") or values.get("--target-directory")
    if folder is None and not operands:
        return
    if folder is None:
        if len(operands) == 1 and name == "ln":
            folder, sources = ".", operands
        elif len(operands) == 1:
            return
        else:
            *sources, dest = operands
            if len(sources) == 1 and (itself or not is_dir(cwd, dest)):
                reading.add(dest, cwd, name, tree=recursive and is_dir(cwd, sources[0]))
                folder = None
            else:
                folder = dest
    else:
        sources = operands
    if folder is not None:
        for source in sources:
            base = os.path.basename(source.rstrip("/")) or source
            reading.add(os.path.join(folder, base), cwd, name, tree=recursive and is_dir(cwd, source))
    if moves:
        for source in sources:
            reading.add(source, cwd, name, tree=is_dir(cwd, source))
