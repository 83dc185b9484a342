"""The command lines a program's options run, for the shell's reader (`shell_targets`): read as the commands they
are, as tar's ``--to-command`` is (`shell_programs`).

``split --filter=CMD`` (with ``$SHELL -c``), ``rsync -e CMD`` / ``--rsh`` (its remote shell, run here), ``script
-c CMD``, gpg's ``--photo-viewer CMD``, ``man -P CMD`` / ``--pager``, ``strace -o '|CMD'`` (or ``'!CMD'``: a pipe to
CMD; another value is a file), ssh's, scp's and sftp's ``-o ProxyCommand=CMD``, ``LocalCommand``,
``KnownHostsCommand`` (any case, ``=`` or a blank between key and value: run here with the user's shell), and git's
``-c KEY=CMD`` for the keys naming a command git runs (``core.sshCommand``, ``core.pager``, ``diff.external``, a
``credential.helper`` starting with ``!``…); and the command lines variables name for a program to run
(`COMMAND_VARIABLES`: ``LESSOPEN='|CMD %s'``, ``GIT_SSH_COMMAND=CMD``, ``export PAGER=CMD``). A command line that
cannot be read (an unclosed quote) makes the line unreadable (`ShellReading.partial`): never read as nothing.

Programs an option names without arguments of the line's (``sort --compress-program=PROG``, ``scp -S PROG``) run
what that program's file holds: as ``./script`` on its own, left to the sandbox.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import re

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.sessions.shell_options import in_bundle
from brain_tui.core.sessions.shell_quotes import ASSIGNMENT

__all__ = ["COMMAND_VARIABLES", "git_setting_command", "git_setting_unreadable", "git_subcommand_runs",
           "option_commands", "pipe_command", "variable_command"]

#: program -> its options whose value is a command line it runs (short ones also attached: `-eCMD`).
_RUNS: dict[str, frozenset[str]] = {
    "split": frozenset({"--filter"}),
    "rsync": frozenset({"-e", "--rsh"}),
    "script": frozenset({"-c", "--command"}),
    "gpg": frozenset({"--photo-viewer"}), "gpg2": frozenset({"--photo-viewer"}),
    "man": frozenset({"-P", "--pager"}),
}
#: program -> the letters of its other short options taking a value: in a bundle (`rsync -ave CMD`, `ssh -4o
#: KEY=CMD`) the letters before one of its own are flags, and one of these ends the bundle (the rest is its value).
_SHORT_VALUES: dict[str, str] = {"rsync": "fTBM@", "ssh": "BbcDEeFIiJLlmOpQRSWw", "scp": "cDFiJlPSX",
                                 "sftp": "BbcDFiJlPRSX", "script": "IOBTmEo", "split": "abClnt",
                                 "man": "CMSsmLpreERK"}
#: The ssh programs and their settings (`-o KEY=VALUE`) whose value is a command line run on this machine.
_SSHS = frozenset({"ssh", "scp", "sftp"})
_SSH_COMMANDS = frozenset({"proxycommand", "localcommand", "knownhostscommand"})
#: An ssh setting: its key, then `=` or blanks, then its value.
_SSH_SETTING = LazyPattern(r"^\s*([^\s=]+)(?:\s*=\s*|\s+)(.*)$", re.DOTALL)
#: git's settings whose value is a command line git runs (with the shell), by key (lower case).
_GIT_COMMANDS = LazyPattern(r"^(?:core\.(?:sshcommand|pager|editor|askpass|fsmonitor|gitproxy|alternaterefscommand)|"
                           r"sequence\.editor|diff\.external|gpg\.(?:[^.]+\.)?program|gpg\.ssh\.defaultkeycommand|"
                           r"pager\.[^.]+|filter\..+\.(?:clean|smudge|process)|diff\..+\.(?:command|textconv)|"
                           r"merge\..+\.driver|credential\.(?:.+\.)?helper|(?:merge|diff)tool\..+\.cmd|"
                           r"browser\..+\.cmd|interactive\.difffilter|"
                           r"sendemail\.(?:.+\.)?(?:sendmailcmd|tocmd|cccmd|headercmd)|"
                           r"remote\..+\.(?:uploadpack|receivepack)|uploadpack\.packobjectshook)$", re.DOTALL)
#: git's subcommands and their options whose value is a command line git runs here with the shell: an exec line
#: after each commit, a diff tool, a pager for the files found (its value attached only: `-O[CMD]`), mail
#: commands, and the program serving a remote's side (run here for a local remote: `fetch --upload-pack CMD .`);
#: `clone -c KEY=VALUE` is a setting its own fetch uses (read as `git -c`, `git_setting_command`).
_GIT_SUB_RUNS: dict[str, tuple[str, ...]] = {
    "rebase": ("-x", "--exec"), "difftool": ("-x", "--extcmd"), "grep": ("-O?", "--open-files-in-pager?"),
    "send-email": ("--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"), "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",), "ls-remote": ("--upload-pack",), "archive": ("--exec",),
    "clone": ("-u", "--upload-pack", "-c", "--config")}
#: git's settings naming a file of settings git reads (which may name any command it runs) or a folder of hooks it
#: runs: a line giving one cannot be read whole.
_GIT_UNREADABLE = LazyPattern(r"^(?:include|includeif\..*)\.path$|^core\.hookspath$")
#: Variables whose value is a command line a program runs with the shell: less's input preprocessor and its
#: closer, the pagers and editors, git's ssh and proxy.
COMMAND_VARIABLES = frozenset({"LESSOPEN", "LESSCLOSE", "PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR",
                        "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_SSH_COMMAND", "GIT_SSH",
                        "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "BROWSER"})
#: The builtins setting a variable from their arguments (`export LESSOPEN='|CMD %s'`).
_SETTERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
#: Programs whose output option (`strace -o`) runs a command when its value starts with `|` or `!`.
_PIPES = frozenset({"strace"})


def option_commands(name: str, args: list[str]) -> list[str]:
    """The command lines `name ARGS…` runs through its options (up to `--`), in order; for a builtin setting
    variables (`export`, `declare`…), the command lines the variables it sets name (`variable_command`)."""
    found: list[str] = []
    if name in _SETTERS:
        return [line for arg in args if (line := variable_command(arg)) is not None]
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
            attached = in_bundle(arg, options, _SHORT_VALUES.get(name, ""))
            if attached is not None:
                option, value = attached
                if not value and option:
                    value = args[index] if index < len(args) else ""
                    index += 1
                elif not option:  # another option ending the bundle: its value is the next word
                    index += 1 if not value else 0
                    continue
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


def variable_command(word: str) -> str | None:
    """The command line an assignment `NAME=VALUE` names for a program to run (`LESSOPEN='|CMD %s'`,
    `GIT_SSH_COMMAND=CMD`), or None; `NAME+=VALUE` appends VALUE to a value the line does not show: VALUE is read
    as a command line (`PAGER+=';CMD'`)."""
    assignment = ASSIGNMENT.match(word)
    if assignment is None or assignment.group(1) not in COMMAND_VARIABLES:
        return None
    value = word[assignment.end():]
    return re.sub(r"^\|{1,2}-?", "", value) if assignment.group(1) == "LESSOPEN" else value


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


def git_setting_unreadable(setting: str) -> str:
    """Why a git `-c KEY=VALUE` makes the line unreadable (`include.path`: a file of settings that may name any
    command git runs; `core.hooksPath`: a folder of hooks), or ""."""
    key = setting.partition("=")[0].casefold()
    return f"`git -c {key}`: settings or hooks from a file the line does not show" if _GIT_UNREADABLE.match(key) \
        else ""


def git_subcommand_runs(sub: str, args: list[str]) -> tuple[list[str], str]:
    """The command lines `git SUB ARGS…` runs through its options (`rebase -x CMD`, `fetch --upload-pack=CMD`, a
    long option cut short as git takes it), and why the line cannot be read whole ("" when it can:
    `submodule foreach CMD` runs CMD in each submodule's folder; a `clone -c` naming a file of settings)."""
    if sub == "submodule" and "foreach" in args:
        return [], "`git submodule foreach`: a command run in each submodule's folder"
    options = _GIT_SUB_RUNS.get(sub, ())
    found: list[tuple[str, str]] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            break
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg[:2], "", arg[2:])
        if arg.startswith("--") and len(name) > 2:  # a unique prefix is the option (`--upload-p`)
            longer = [option for option in options if option.rstrip("?").startswith(name)]
            name = longer[0].rstrip("?") if len(longer) == 1 else name
        if name in options and not eq and not value:  # its value the next word
            value = args[index] if index < len(args) else ""
            index += 1
        elif name not in options and f"{name}?" not in options or f"{name}?" in options and not (eq or value):
            continue
        found.append((name, value))
    lines: list[str] = []
    why = ""
    for name, value in found:
        if name in ("-c", "--config"):
            why = why or git_setting_unreadable(value)
            line = git_setting_command(value)
            lines += [line] if line is not None else []
        else:
            lines.append(value)
    return lines, why
