"""vim by any of its names (``vi``, ``ex``, ``view``, ``vimdiff``, ``rvim``, ``gvim``, ``evim``, ``vim.basic``…, and
``nvim``), for the shell's reader (`shell_targets`): the files it writes where its command line shows them.

The files it opens (none with ``-R`` or as ``view``, unless a command forces a write of them, ``w!``; none when its
commands quit without writing them, ``-c 'q'``, ``-c '%p' -c 'q!'``), the files its commands write (`shell_ex`:
``-c``, ``--cmd``, ``+CMD``), and those its options name: ``-w``/``-W`` the keys typed, ``-i`` its viminfo,
``-V[N]FILE``, ``--log``, ``--startuptime``. Its commands read from a file the line does not show (``-S FILE`` a
session, ``-s FILE`` keys typed, ``-u FILE`` a vimrc; ``/dev/null`` shows none) make the line unreadable.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import re

from brain_tui.core.sessions.shell_ex import read_ex
from brain_tui.core.sessions.shell_options import options as _options

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["EX_NAMES", "VIMS", "read_vim"]

#: The names vim runs as ex (where `-s` is silent mode, not a file of keys).
EX_NAMES = frozenset({"ex", "exim"})
#: The names vim opens its files read-only as (`-R`).
_VIEWS = frozenset({"view", "rview", "gview", "rgview", "eview"})
VIMS = EX_NAMES | _VIEWS | frozenset({
    "vi", "vim", "nvim", "vimdiff", "gvim", "gvimdiff", "rvim", "rgvim", "evim", "vimx", "vim.basic", "vim.tiny",
    "vim.nox", "vim.gtk", "vim.gtk3", "vim.athena", "vim.motif"})
#: vim's options naming a file it writes (`-w`/`-W` the keys typed, `-i` its viminfo, its logs).
_FILES = frozenset({"-w", "-W", "-i", "--startuptime", "--log"})
#: Its options naming a file of commands it reads, and the values naming none.
_SCRIPTS = frozenset({"-S", "-s", "-u", "-U"})
_NO_SCRIPT = frozenset({"/dev/null", "NONE", "NORC", "DEFAULTS"})
_VALUES = _FILES | _SCRIPTS | frozenset({"-c", "--cmd", "-T", "-t", "-q", "-r", "--listen", "--servername"})


def _scriptin(name: str, args: list[str]) -> bool:
    """Whether `-s` takes a file of keys here: not after `-e`/`-E` (nor as ex), where it is silent mode."""
    ex = name in EX_NAMES
    for arg in args:
        if arg == "--":
            break
        if re.fullmatch(r"-[A-Za-z]+", arg):
            for index, ch in enumerate(arg[1:], 2):
                ex = ex or ch in "eE"
                if ch == "s" and not ex and index == len(arg):
                    return True
    return False


def read_vim(name: str, args: list[str], cwd: str | None, reading: ShellReading, home: str | None,
             depth: int) -> str | None:
    """Add the files `name ARGS…` writes; read the shell commands its commands run. Return the working folder."""
    from brain_tui.core.sessions.shell_targets import read_text  # (it reads with this module)

    scripts = _SCRIPTS if _scriptin(name, args) else _SCRIPTS - {"-s"}
    ended = args.index("--") if "--" in args else len(args)
    words = [arg for index, arg in enumerate(args) if not arg.startswith("-V") or index >= ended or
             (index and args[index - 1] in ("-c", "--cmd"))]  # (`-V1FILE` is no cluster of flags)
    operands, values, flags = _options(words, set(_VALUES - (_SCRIPTS - scripts)))
    pairs = list(zip(args[:ended], [*args[1:ended], None][:ended], strict=True))  # (none before `--`: none)
    commands = [after or "" for before, after in pairs if before in ("-c", "--cmd")]
    commands += [arg[1:] for arg in args[:ended] if arg.startswith("+")]
    operands = [operand for operand in operands if not operand.startswith("+")]
    ex = read_ex(commands)
    if ex.unreadable:
        reading.partial = reading.partial or f"`{name} -c`: {ex.unreadable}"
    sourced = [after or "Session.vim" for before, after in pairs  # (`-Rs FILE`: the last of a cluster takes it)
               if re.fullmatch(r"-[A-Za-z]*", before) and "-" + before[-1:] in scripts
               and (after or "Session.vim") not in _NO_SCRIPT]
    if sourced:
        reading.partial = reading.partial or \
            f"`{name}`: the commands it runs come from a file the line does not show ({sourced[0]})"
    for shell in ex.shells:
        read_text(shell, cwd, reading, home, depth + 1)
    logs = [log for arg in args if arg.startswith("-V") and (log := arg[2:].lstrip("0123456789"))]
    for output in [value for option, value in values.items() if option in _FILES] + logs + ex.writes:
        if output != "NONE":  # (`-i NONE`: no viminfo)
            reading.add(output, cwd, name)
    if flags & {"-h", "--help", "--version"}:
        return cwd
    read_only = name in _VIEWS or "-R" in flags
    if ex.current == "forced" or (not read_only and (ex.current == "write" or not ex.ends)):
        for operand in [*operands, *ex.opened]:
            if operand != "-":
                reading.add(operand, cwd, name)
    return cwd
