"""Commands an agent's shell hands to a process outside its own: a tmux or screen server, at, cron, systemd (a
transient unit, or a unit started: `systemctl`, `launchctl`), a terminal taking keys from outside.

What such a server runs or types has no agent among its ancestors and none of the agent's environment: it would act
as a human's terminal (SPEC 21.1), so `tmux new-window 'bsi gate approve ID'` would approve a gate and `tmux
send-keys -t COCKPIT a` would type an approval into the pilot's cockpit (SPEC 21.2: a human's verbs refuse inside an
agent's process, whatever the spelling). The write decision refuses a line that hands a command over; reading a
scheduler's queue passes. Every tmux command but ``tmux -V`` is refused: tmux runs ``#(…)`` in a format, and takes
more commands after a ``\\;`` word, which is a separator to the reader's tokens. Standard library only.
"""

from __future__ import annotations

import os

#: Programs that run what they are given in a server or a later job of their own, or type into a terminal from
#: outside (terminal multiplexers, remote control of terminal emulators, key injection), and their read-only uses.
_HANDOVER = {"screen": ("-ls", "-list"), "at": ("-l",), "batch": (), "crontab": ("-l",), "systemd-run": (),
             "dtach": (), "abduco": ("-l",), "atq": None, "atrm": None, "zellij": ("ls", "list-sessions"),
             "kitty": (), "kitten": (), "wezterm": (), "xdotool": (), "ydotool": (), "wtype": ()}
#: Service managers, whose units run as their children, and the subcommands of theirs that only read.
_SERVICES = {"systemctl": frozenset({"status", "show", "cat", "list-units", "list-unit-files", "list-timers",
                                     "list-sockets", "list-jobs", "list-dependencies", "is-active", "is-enabled",
                                     "is-failed", "is-system-running", "help"}),
             "launchctl": frozenset({"list", "print", "print-disabled", "blame", "help", "version"})}
#: Their options known to take no value: any other option spelled without ``=`` takes the next word as its value
#: (`systemctl -o cat start x` starts x), so a verb after an option of an unknown kind is never read as a read.
_SERVICE_FLAGS = frozenset({"--user", "--system", "--global", "--no-pager", "--no-legend", "--no-block", "--quiet",
                            "--all", "--full", "--plain", "--failed", "--value", "--recursive", "--reverse",
                            "--after", "--before", "--show-types", "--runtime", "--now", "--force", "--dry-run"})
#: The one-letter options of theirs that take no value, alone or run together (`-aq`).
_SERVICE_FLAG_LETTERS = frozenset("alqrfT")
#: tmux and the programs that are tmux under another name.
_TMUX = frozenset({"tmux", "byobu", "tmate"})
#: Programs that run the command named after their options (`xargs tmux …`, `watch tmux …`), and the options of
#: theirs that take the next word as a value.
_RUNNERS = {"xargs": frozenset({"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter",
                                "--max-args", "--max-procs", "--max-chars", "--max-lines", "--replace"}),
            "watch": frozenset({"-n", "--interval", "-q", "--equexit"}),
            "parallel": frozenset({"-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "--delay"})}
#: find's actions that run a command, up to `;` or `+`.
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def handed_over(name: str, args: list[str]) -> str:
    """The command `name ARGS` hands to a process outside the agent's own, as shown ("" when it hands none);
    the command a runner on the line runs (`xargs`, `watch`, `parallel`, `find -exec`) is looked at too."""
    if name in _TMUX:
        return _tmux(name, args)
    if name in _RUNNERS:
        index, values = 0, _RUNNERS[name]
        while index < len(args) and args[index].startswith("-"):
            index += 2 if args[index] in values else 1
        return handed_over(os.path.basename(args[index]), args[index + 1:]) if index < len(args) else ""
    if name == "find":
        for index, arg in enumerate(args[:-1]):
            if arg in _FIND_RUNS and (found := handed_over(os.path.basename(args[index + 1]), args[index + 2:])):
                return found
        return ""
    if name in _SERVICES:
        command = _service_verb(args)
        return "" if command in _SERVICES[name] or args in (["--version"], ["-h"], ["--help"]) else \
            f"{name} {command}".rstrip()
    if name not in _HANDOVER:
        return ""
    reads = _HANDOVER[name]
    if reads is None or (reads and args and all(arg in reads for arg in args)):
        return ""
    return name


def _service_verb(args: list[str]) -> str:
    """The verb of a service manager's command line: its first word that is neither an option nor an option's
    value (`_SERVICE_FLAGS`); "" when none."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        option = args[index]
        flag = "=" in option or option in _SERVICE_FLAGS or option == "--" or \
            (not option.startswith("--") and set(option[1:]) <= _SERVICE_FLAG_LETTERS)
        index += 1 if flag else 2
    return args[index] if index < len(args) else ""


def _tmux(name: str, args: list[str]) -> str:
    if args == ["-V"]:
        return ""
    command = next((arg for arg in args if not arg.startswith("-")), "new-session")  # `tmux` alone: a session
    return f"{name} {command}"
