"""The command lines a program's options run, for the shell's reader (`shell_targets`): read as the commands they
are, as tar's ``--to-command`` is (`shell_programs`).

``split --filter=CMD`` (with ``$SHELL -c``), ``rsync -e CMD`` / ``--rsh`` (its remote shell, run here), ``script
-c CMD``, gpg's ``--photo-viewer CMD``, ``man -P CMD`` / ``--pager``, ``strace -o '|CMD'`` (or ``'!CMD'``: a pipe to
CMD; another value is a file), ssh's, scp's and sftp's ``-o ProxyCommand=CMD``, ``LocalCommand``,
``KnownHostsCommand`` (any case, ``=`` or a blank between key and value: run here with the user's shell), and git's
``-c KEY=CMD`` for the keys naming a command git runs (``core.sshCommand``, ``core.pager``, ``diff.external``, a
``credential.helper`` starting with ``!``…). A command line that cannot be read (an unclosed quote) makes the line
unreadable (`ShellReading.partial`): never read as nothing.

Programs an option names without arguments of the line's (``sort --compress-program=PROG``, ``scp -S PROG``) run
what that program's file holds: as ``./script`` on its own, left to the sandbox.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import re

__all__ = ["git_setting_command", "option_commands", "pipe_command"]

#: program -> its options whose value is a command line it runs (short ones also attached: `-eCMD`).
_RUNS: dict[str, frozenset[str]] = {
    "split": frozenset({"--filter"}),
    "rsync": frozenset({"-e", "--rsh"}),
    "script": frozenset({"-c", "--command"}),
    "gpg": frozenset({"--photo-viewer"}), "gpg2": frozenset({"--photo-viewer"}),
    "man": frozenset({"-P", "--pager"}),
}
#: The ssh programs and their settings (`-o KEY=VALUE`) whose value is a command line run on this machine.
_SSHS = frozenset({"ssh", "scp", "sftp"})
_SSH_COMMANDS = frozenset({"proxycommand", "localcommand", "knownhostscommand"})
#: An ssh setting: its key, then `=` or blanks, then its value.
_SSH_SETTING = re.compile(r"^\s*([^\s=]+)(?:\s*=\s*|\s+)(.*)$", re.DOTALL)
#: git's settings whose value is a command line git runs (with the shell), by key (lower case).
_GIT_COMMANDS = re.compile(r"^(?:core\.(?:sshcommand|pager|editor|askpass|fsmonitor)|sequence\.editor|diff\.external|"
                           r"gpg\.(?:[^.]+\.)?program|pager\.[^.]+|filter\.[^.]+\.(?:clean|smudge|process)|"
                           r"diff\.[^.]+\.(?:command|textconv)|merge\.[^.]+\.driver|credential\.(?:[^.]+\.)?helper)$")
#: Programs whose output option (`strace -o`) runs a command when its value starts with `|` or `!`.
_PIPES = frozenset({"strace"})


def option_commands(name: str, args: list[str]) -> list[str]:
    """The command lines `name ARGS…` runs through its options (up to `--`), in order."""
    found: list[str] = []
    options = _RUNS.get(name, frozenset()) | ({"-o"} if name in _SSHS else set())
    if not options:
        return found
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            break
        option, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if not eq:
            attached = next((o for o in options if not o.startswith("--") and arg.startswith(o) and arg != o), None)
            if attached is not None:
                option, value = attached, arg[len(attached):]
            elif arg in options:
                value = args[index] if index < len(args) else ""
                index += 1
            else:
                continue
        if option not in options:
            continue
        if name in _SSHS:
            setting = _SSH_SETTING.match(value)
            if setting and setting.group(1).casefold() in _SSH_COMMANDS:
                found.append(setting.group(2))
        else:
            found.append(value)
    return found


def pipe_command(name: str, value: str) -> str | None:
    """The command line a wrapper's output option runs (`strace -o '|CMD'`), or None: the value names a file."""
    return value[1:] if name in _PIPES and value[:1] in ("|", "!") else None


def git_setting_command(setting: str) -> str | None:
    """The command line a git `-c KEY=VALUE` makes git run (`core.sshCommand=CMD`; a `credential.helper` only
    when it starts with `!`), or None."""
    key, _eq, value = setting.partition("=")
    if not _GIT_COMMANDS.match(key.casefold()):
        return None
    if key.casefold().startswith("credential."):
        return value[1:] if value.startswith("!") else None
    return value
