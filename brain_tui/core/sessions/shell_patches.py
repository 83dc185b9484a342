"""Codex's patches on a shell command line, for the shell's reader (`shell_targets`): `apply_patch PATCH` (its
`shell` argv, or a command line) and a here-document fed to a patch program apply the patch in the folder the
command runs in, so their paths are read from there; a patch the reader cannot tie to its command is read from the
line's folders.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

from brain_tui.core.sessions.patch_text import patch_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["PATCH_PROGRAMS", "names_patch_program", "read_leftover_patches", "read_patch"]

#: Codex's patch programs.
PATCH_PROGRAMS = ("apply_patch", "applypatch")


def names_patch_program(text: str) -> bool:
    """True when `text` names one of Codex's patch programs."""
    return any(program in text for program in PATCH_PROGRAMS)


def read_patch(texts: list[str], cwd: str | None, reading: ShellReading, command: str) -> None:
    """The paths of the patches in `texts`, applied in `cwd` (Codex reads them relative to its folder); a folder
    that cannot be read leaves them to `read_leftover_patches` too."""
    reading.patch_dirs.append(cwd)
    for path in patch_paths("\n".join(texts)):
        reading.add(path, cwd, command)
        if cwd is not None:
            reading.patched.add(path)


def read_leftover_patches(text: str, cwd: str | None, reading: ShellReading, depth: int, *, moved: bool) -> None:
    """A command line naming a patch program: the paths of a patch not read at its command (piped in, run
    through `xargs`…) from the line's own folder and from every folder a patch program ran in; without a `cd`
    in the line (`moved`), every path from the line's folder (a patch read twice is checked twice, never skipped)."""
    pending = reading.patches.pop(depth, [])
    if not pending and not names_patch_program(text):
        return
    folders = dict.fromkeys([cwd, *(folder for folder in reading.patch_dirs if moved and folder is not None)])
    for path in patch_paths(text):
        if not (moved and path in reading.patched):
            for folder in folders:
                reading.add(path, folder, "apply_patch")
