"""The wrappers a shell command line runs a command through (`sudo`, `env`, `timeout 5`, `flock FILE`…), for the
shell's reader (`shell_targets`): the words of the command itself, the folder it runs in (`env -C DIR`,
`sudo -D DIR`), and the files a wrapper writes itself (`time -o FILE`, `strace -o FILE`, `flock FILE`).

The shell's own words that open a compound command (`{`, `if`, `then`, `do`, `else`…) come before a command the
way a wrapper does: `if true; then rm -rf claims; fi` runs `rm`, so they are passed over the same way.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os

from brain_tui.core.sessions.shell_options import long_name
from brain_tui.core.sessions.shell_quotes import ASSIGNMENT

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Callable

    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["split_wrappers"]

#: Commands that run the rest of their words as a command.
_WRAPPERS = {"sudo", "env", "command", "builtin", "nice", "nohup", "time", "exec", "timeout", "stdbuf", "!",
             "doas", "ionice", "chronic", "flock", "strace", "ltrace", "setsid", "busybox", "toybox", "fakeroot",
             "unbuffer", "taskset", "chrt", "runuser", "su", "watch", "setpriv", "prlimit", "unshare", "nsenter",
             "chroot",
             # the shell's words before a command of a compound one (`coproc NAME` is only before `{`)
             "{", "if", "then", "do", "else", "elif", "while", "until", "coproc"}
#: Wrappers whose first operand is theirs, not the command's (`timeout 5 CMD`, `taskset MASK CMD`, `chrt PRIO CMD`).
_OWN_OPERAND = {"timeout", "taskset", "chrt", "chroot"}
#: Wrappers whose option names a command line for a shell (`su -c 'CMD'`, `env -S 'CMD ARGS'`).
_COMMAND_OPTIONS = {"su": ("-c", "--command", "--session-command"), "runuser": ("-c", "--command", "--session-command"),
                    "env": ("-S", "--split-string")}
#: Wrapper options that take a value as the next word.
_WRAPPER_VALUES = {"sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R", "--chdir", "--user",
                            "--group", "--close-from", "--host", "--prompt", "--role", "--type", "--other-user",
                            "--command-timeout", "--chroot"},
                   "env": {"-u", "-C", "-S", "--chdir", "--unset", "--split-string"},
                   "nice": {"-n", "--adjustment"}, "timeout": {"-s", "-k", "--signal", "--kill-after"},
                   "ionice": {"-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid", "--pgid", "--uid"},
                   "stdbuf": {"-i", "-o", "-e", "--input", "--output", "--error"}, "doas": {"-u", "-C"},
                   "chrt": {"-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"},
                   "time": {"-o", "-f", "--output", "--format"}, "flock": {"-w", "--timeout", "-E",
                                                                         "--conflict-exit-code"},
                   "strace": {"-o", "-e", "-p", "-s", "-u", "-E", "-P", "-I", "-b", "-a", "-X", "-O", "-S", "-U",
                              "--output", "--attach", "--columns", "--const-print-style", "--env", "--interruptible",
                              "--string-limit", "--summary-columns", "--summary-sort-by", "--summary-syscall-overhead",
                              "--trace", "--trace-path", "--user", "--abbrev", "--verbose", "--raw", "--read",
                              "--write", "--signal", "--status", "--fault", "--inject", "--kvm", "--detach-on"},
                   "ltrace": {"-o", "-e", "-p", "-s", "-u", "-n", "-a", "--output"}, "exec": {"-a"},
                   "fakeroot": {"-l", "--lib", "--faked", "-s", "-i", "-b", "--fd-base"}, "unbuffer": {"-p"},
                   "runuser": {"-u", "-g", "-G", "-s", "-w", "--user", "--group", "--supp-group", "--shell",
                               "-c", "--command", "--session-command", "--whitelist-environment"},
                   "su": {"-g", "-G", "-s", "-w", "--group", "--supp-group", "--shell", "-c", "--command",
                          "--session-command", "--whitelist-environment"},
                   "watch": {"-n", "--interval", "-q", "--equexit"},
                   "setpriv": {"--ambient-caps", "--inh-caps", "--bounding-set", "--ruid", "--euid", "--rgid",
                               "--egid", "--reuid", "--regid", "--groups", "--securebits", "--pdeathsig",
                               "--selinux-label", "--apparmor-profile"},
                   "prlimit": {"-p", "--pid", "-o", "--output"},
                   "unshare": {"--propagation", "--setgroups", "-R", "--root", "-w", "--wd", "-S", "--setuid", "-G",
                               "--setgid", "--monotonic", "--boottime"},
                   "nsenter": {"-t", "--target", "-S", "--setuid", "-G", "--setgid", "-W", "--wdns"},
                   "chroot": {"--userspec", "--groups"}}


#: Wrapper options naming the folder the command runs in (`env -C DIR`, `sudo -D DIR`) or a file the wrapper itself
#: writes (`time -o FILE`, `strace -o FILE`, `fakeroot -s FILE` its saved state); `flock FILE …` writes its lock
#: file.
_WRAPPER_CHDIR = {"env": ("-C", "--chdir"), "sudo": ("-D", "--chdir"), "unshare": ("-w", "--wd")}
#: Wrapper options that run the command in another root, or in a folder the line does not show (nsenter's `-w`
#: alone: the target process's): what its paths name cannot be placed.
_WRAPPER_ELSEWHERE = {"unshare": ("-R", "--root"), "nsenter": ("-r", "--root", "-w", "--wd", "-W", "--wdns")}
_WRAPPER_OUTPUT = {"time": ("-o", "--output"), "strace": ("-o", "--output"), "ltrace": ("-o", "--output"),
                   "fakeroot": ("-s",)}


def split_wrappers(words: list[str], cwd: str | None = None, reading: ShellReading | None = None,
                   run: Callable[[str], object] | None = None) -> tuple[list[str], str | None]:
    """The words of the command itself, past assignments (`X=1`) and wrappers (`sudo`, `env`, `timeout 5`, …), and
    the folder it runs in (`env -C DIR`); the files a wrapper writes itself are added to `reading`, the command lines
    its options run (`strace -o '|CMD'`) read with `run`."""
    from brain_tui.core.sessions.shell_runs import pipe_command, variable_command

    index = 0
    while index < len(words):
        word = words[index]
        if ASSIGNMENT.match(word):  # `X=1`, `X+=1`, `A[0]=1`
            if run is not None and (line := variable_command(word)) is not None:  # `LESSOPEN='|CMD %s' less F`
                run(line)
            index += 1
            continue
        name = os.path.basename(word)
        if name == "function" and index + 1 < len(words):  # `function NAME { …; }`: the body's commands follow
            index += 2
            continue
        if name not in _WRAPPERS:
            break
        index += 1
        values = _WRAPPER_VALUES.get(name, set())
        while index < len(words) and (words[index].startswith("-") or "=" in words[index] and name == "env"):
            if name == "env" and run is not None and (line := variable_command(words[index])) is not None:
                run(line)  # `env LESSOPEN='|CMD %s' less F`
            option, eq, value = long_name(name, words[index]).partition("=")  # `--adj 5` is `--adjustment 5`
            has_value = option in values and not eq
            if not eq and option not in values and option[:2] in values and not option.startswith("--"):
                option, value = option[:2], option[2:]  # `-Cdir`, `-ofile`
            elif has_value:
                value = words[index + 1] if index + 1 < len(words) else ""
            if option in _WRAPPER_CHDIR.get(name, ()):
                joined = join_path(cwd, value) if value and "$" not in value and "`" not in value else None
                cwd = os.path.normpath(joined) if joined is not None else None
            elif option in _WRAPPER_ELSEWHERE.get(name, ()) and reading is not None:
                reading.partial = reading.partial or f"`{name} {option}`: a command run in a root or folder unseen"
            elif option in _WRAPPER_OUTPUT.get(name, ()) and reading is not None:
                piped = pipe_command(name, value)
                if piped is None:
                    reading.add(value, cwd, name)
                elif run is not None:
                    run(piped)
            elif option in _COMMAND_OPTIONS.get(name, ()):
                return _command_option(name, value, words[index + (2 if has_value else 1):]), cwd
            index += 2 if has_value else 1
        if name == "chroot" and index < len(words):  # its command runs in `/` of the new root
            if os.path.normpath(words[index]) != "/" and reading is not None:
                reading.partial = reading.partial or "`chroot`: a command run in another root"
            cwd = cwd if "--skip-chdir" in words[:index] else "/"
        if name in _OWN_OPERAND and index < len(words):
            index += 1  # the duration, the CPU mask, the priority, the new root
        if name == "watch" and index < len(words) and not {"-x", "--exec"} & set(words[:index]):
            return ["sh", "-c", " ".join(words[index:])], cwd  # its words joined, run with `sh -c`
        if name == "su" and index < len(words) and "-c" in words[index + 1:]:  # `su USER -c CMD`
            at = words.index("-c", index + 1)
            return _command_option(name, words[at + 1] if at + 1 < len(words) else "", []), cwd
        if name == "flock" and index < len(words):
            if not words[index].isdigit() and reading is not None:
                reading.add(words[index], cwd, name)  # the lock file (flock FD locks an open descriptor)
            index += 1
            if words[index:index + 1] in (["-c"], ["--command"]) and index + 1 < len(words):
                return ["sh", "-c", words[index + 1]], cwd
    return words[index:], cwd


def _command_option(name: str, value: str, rest: list[str]) -> list[str]:
    """The words a wrapper's command option runs: `su -c 'CMD'` hands CMD to a shell; `env -S 'CMD A'` splits it
    into words, followed by the rest."""
    if name != "env":
        return ["sh", "-c", value]
    import shlex

    try:
        return [*shlex.split(value), *rest]
    except ValueError:  # an unclosed quote: env refuses it too
        return ["sh", "-c", value]


def join_path(cwd: str | None, path: str) -> str | None:
    """`path` as the shell finds it from `cwd` (`~` expanded), or None: a relative path from a folder unknown."""
    if path.startswith("~"):
        path = os.path.expanduser(path)
    if os.path.isabs(path):
        return path
    return os.path.join(cwd, path) if cwd is not None else None
