"""Where `cd`, `pushd` and `popd` leave the shell, for the shell's reader (`shell_targets`).

The shell keeps beside its folder the one it was in before its last change (``OLDPWD``: ``cd -`` goes back there)
and the stack ``pushd`` builds (``popd`` goes to its top). A `Place` is a folder carrying both, as far as the line
shows them: it flows wherever the reader's working folder flows (a subshell, a pipeline's command, a `cd` that may
fail), as the shell's own copy does. A ``cd -`` to a folder the line does not show (``OLDPWD`` came with the shell,
or the line sets it) and a ``popd`` of a stack the line did not build cannot be placed: the reading is partial (a
shell kept between an agent's commands keeps both), nor a bare ``pushd``, ``pushd +N`` or ``popd -N``. ``pushd -``
goes back as ``cd -`` does, ``popd +N`` stays, ``dirs -c`` empties the stack, ``cd ''`` stays where it is.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os

from brain_tui.core.sessions.shell_line_state import placed
from brain_tui.core.sessions.shell_wrappers import join_path

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["Place", "change_folder", "in_new_shell", "one_place"]


class Place(str):
    """A folder (absolute) with the shell's `oldpwd` (None: one the line does not show) and the `stack` of folders
    `pushd` left below it, top first (None: a folder the line does not show)."""

    oldpwd: str | None
    stack: tuple[str | None, ...]

    @classmethod
    def make(cls, path: str, oldpwd: str | None, stack: tuple[str | None, ...]) -> Place:
        """The folder `path` with this `oldpwd` and `stack` (kept as plain paths)."""
        place = cls(path)
        place.oldpwd = None if oldpwd is None else str(oldpwd)
        place.stack = tuple(None if entry is None else str(entry) for entry in stack)
        return place


def in_new_shell(cwd: str | None) -> str | None:
    """`cwd` as a shell the line starts (``bash -c``) finds it: the folder alone (its OLDPWD and stack unknown)."""
    return None if cwd is None else str(cwd)


def one_place(cwd: str | None, ends: list[str | None]) -> str | None:
    """Where the line is after a `cd` that may have failed, read on both ways: `cwd` when every one of `ends` (where
    the rest of the line read from before that `cd` ends) is `cwd` with its `oldpwd` and `stack`; the folder alone
    (both unknown: a later `cd -` or `popd` cannot be placed) when they end in that folder with another `oldpwd` or
    `stack`; None when they end in different folders. (A `Place` equals its path as a string: compared here with
    what it carries.)"""
    if cwd is None or any(end is None or str(end) != str(cwd) for end in ends):
        return None if ends else cwd
    mine = (_oldpwd(cwd), _stack(cwd))
    return cwd if all((_oldpwd(end), _stack(end)) == mine for end in ends if end is not None) else str(cwd)


def _oldpwd(cwd: str) -> str | None:
    return cwd.oldpwd if isinstance(cwd, Place) else None


def _stack(cwd: str) -> tuple[str | None, ...]:
    return cwd.stack if isinstance(cwd, Place) else ()


def change_folder(name: str, args: list[str], cwd: str | None, reading: ShellReading,
                  home: str | None) -> str | None:
    """The folder after `cd`, `pushd` or `popd` (`name`) with `args` run in `cwd` (None: one the line does not
    show); a `cd` that may fail is noted (`LineState.cd_to`), a folder the line cannot show makes it partial."""
    if name == "dirs":  # `dirs -c` empties the stack (a `popd` after it fails); other options only print it
        clears = any(a[:1] == "-" and "c" in a[1:] for a in args)
        return Place.make(cwd, _oldpwd(cwd), ()) if clears and cwd is not None else cwd
    if name == "popd":
        return _popd(args, cwd, reading)
    if name == "pushd" and not [a for a in args if a[:1] not in "-+" or a == "-"]:
        # none, `+N`, `-N`: a folder of the stack, or the stack turned (`-n`) as the line may not show it
        if "-n" in args:
            return None if cwd is None else Place.make(cwd, _oldpwd(cwd), ())
        reading.partial = reading.partial or "a `pushd` to a folder of the stack (none, `+N`, `-N`)"
        return None
    operands = [a for a in args if not a.startswith("-") or a == "-"]
    reading.partial = reading.partial or reading.line.cd_unplaced(operands)
    target = operands[0] if operands else (home if home is not None else os.environ.get("HOME", ""))
    target = "." if operands and not target else reading.line.home_word(target) or ""  # `cd ''` stays
    if target == "-" and cwd is not None:  # `cd -`, `pushd -`: back to OLDPWD
        target = _back(cwd, reading) or ""
    if not target or target == "-" or "$" in target or "`" in target:
        return None
    joined = join_path(cwd, target)
    if joined is None:
        return None
    after = placed(joined)
    reading.partial = reading.partial or reading.line.through_link(after)
    stack = _stack(cwd) if cwd is not None else ()
    if name == "pushd" and "-n" in args:  # the stack only: the folder goes below its top
        return cwd if cwd is None else Place.make(cwd, _oldpwd(cwd), (after, *stack))
    reading.line.cd_to(cwd, after, name, args)
    return Place.make(after, cwd, (cwd, *stack) if name == "pushd" else stack)


def _back(cwd: str, reading: ShellReading) -> str | None:
    """Where `cd -` goes from `cwd`, or None (the reading partial): a folder the line does not show."""
    if reading.line.oldpwd_set:
        reading.partial = reading.partial or "a `cd -` on a line that sets OLDPWD"
        return None
    if (back := _oldpwd(cwd)) is None:
        reading.partial = reading.partial or "a `cd -` to the folder the shell was in before the line"
    return back


def _popd(args: list[str], cwd: str | None, reading: ShellReading) -> str | None:
    """The folder after `popd ARGS` in `cwd`: the top of the stack the line built (`-n`: `cwd`, the top dropped;
    `+N`, N > 0: `cwd`, the N-th folder below it dropped). One that may not run or fails is noted (`cd_to`)."""
    if cwd is None:
        return None
    stack = _stack(cwd)
    dropped = [a for a in args if a != "-n"]
    if len(dropped) == 1 and dropped[0][:1] == "+" and dropped[0][1:].isdigit() and int(dropped[0][1:]) > 0:
        index = int(dropped[0][1:]) - 1  # no change of folder, whether the stack holds that many or not
        return Place.make(cwd, _oldpwd(cwd), stack[:index] + stack[index + 1:])
    if dropped not in ([], ["+0"]):  # `-N`: counted from the bottom, which the line does not show
        reading.partial = reading.partial or "a `popd -N` (a folder counted from the bottom of the stack)"
        return None
    if not stack:
        reading.partial = reading.partial or "a `popd` of a stack the line did not build"
        return None
    if "-n" in args:
        return Place.make(cwd, _oldpwd(cwd), stack[1:])
    if stack[0] is None:
        return None
    reading.line.cd_to(cwd, stack[0], "popd", [])  # after `&&`, in an `if`: it may not run
    return Place.make(stack[0], cwd, stack[1:])
