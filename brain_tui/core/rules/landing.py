"""Whether a write an agent's tool is about to make lands in a brain, when the hook has no brain to decide in
(`--brain` or `$BRAIN_ROOT` names a folder that is none): such a write fails closed, any other goes on.

A write lands in a brain when a file its tool names lies in one, or, for a shell command, when the folder it runs
in does or a target its command line names does (a `cd` into the brain, an absolute redirection: `shell_targets`), or
a folder it writes whole (`rm -r`) holds the brain the event's folder is in.
A relative path is read from the event's folder, or from the hook's own when the event gives none (or a relative
one): the agent's tool resolves it from there. Standard library only: the hook's failure path imports this.
"""

from __future__ import annotations

import os

from brain_tui.core.paths.layout import brain_above

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["lands_in_brain", "write_folder"]


def write_folder(cwd: object) -> str:
    """The folder a tool's relative paths start from: the event's `cwd` made absolute against this process's own
    folder (the agent's), which stands in for a `cwd` missing or not text."""
    here = os.getcwd()
    return os.path.normpath(os.path.join(here, cwd)) if isinstance(cwd, str) and cwd and "\x00" not in cwd else here


def _in_brain(path: str) -> bool:
    """True when the absolute `path` (a file written, or below a folder written) lies in a brain, links resolved."""
    return brain_above(os.path.dirname(os.path.realpath(path))) is not None


def lands_in_brain(files: Sequence[str], command: str | tuple[str, ...] | None, cwd: str, run_in: str) -> bool:
    """True when the write lands in a brain: one of `files` (relative ones from `cwd`), or for a shell `command`
    the folder it runs in (`run_in`) or a target its line names (`shell_targets.read_command`), a folder written
    whole also when it holds the brain `cwd` is in."""
    if any(_in_brain(os.path.join(cwd, name)) for name in files if "\x00" not in name):
        return True
    if command is None:
        return False
    if brain_above(os.path.realpath(run_in)) is not None:
        return True
    from brain_tui.core.sessions.shell_targets import read_command

    reading = read_command(command, run_in)
    near = brain_above(os.path.realpath(cwd))  # the session's own brain: a folder holding it is written into it
    return any(_in_brain(target.path) or (target.tree and _holds_a_brain(target.path, near))
               for target in (*reading.targets, *reading.named))


def _holds_a_brain(folder: str, near: str | None) -> bool:
    """True when a write to the whole `folder` (`rm -r`, a copy over it) lands in a brain: one at or above it, or
    `near` (the brain the event's folder is in) below it, links resolved."""
    top = os.path.realpath(folder)
    if brain_above(top) is not None:
        return True
    return near is not None and os.path.commonpath([top, near]) == top
