"""Programs whose own command line says what they write, for the shell's reader (`shell_targets`).

``find`` (``-fprint FILE``; ``-delete`` or an ``-exec`` of anything but a reader: everything below its starting
points); the archivers: the archive ``zip``, ``7z a|u|d``, ``tar -c|-r|-u`` (``-f``, ``--file``, old-style ``tar
cf OUT``, ``cpio -o -F OUT``) write, the other files tar and zip name (``tar -g FILE``, ``--index-file``,
``--volno-file``; ``zip -lf FILE``, ``-b DIR``), the command lines they run (``tar -I CMD``, ``--to-command``,
``--checkpoint-action=exec=CMD``, ``-F``; ``zip -TT CMD``), what ``tar --remove-files`` and ``zip -m`` delete once
archived, and the
folder ``tar -x -C DIR``, ``unzip -d DIR``, ``7z x -oDIR``,
``cpio -i -D DIR`` extract into (without one: the folder the command runs in, all of it); ``awk`` (and
``gawk``, ``mawk``, ``nawk``): the files its ``print > "FILE"`` / ``>> "FILE"`` name, the commands its ``print |
"CMD"``, ``system("CMD")`` and ``"CMD" | getline`` run, and ``gawk -i inplace``'s files; and an interpreter's inline
code (``python -c``, ``perl -e``, ``node -e``, ``ruby -e``, ``php -r``: `shell_code`). What else such a program
writes is unread: the OS sandbox's job.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from brain_tui.core.sessions.shell_code import INLINE, STRING, read_inline, unquote
from brain_tui.core.sessions.shell_options import STREAMS
from brain_tui.core.sessions.shell_options import options as _options
from brain_tui.core.sessions.shell_targets import ShellReading
from brain_tui.core.sessions.shell_wrappers import join_path

__all__ = ["read_program"]

#: Programs a `find -exec` runs that only read (`find . -name '*.py' -exec grep -l x {} +` writes nothing).
_FIND_READERS = frozenset({"grep", "egrep", "fgrep", "rg", "cat", "head", "tail", "wc", "ls", "stat", "file",
                           "echo", "printf", "md5sum", "sha1sum", "sha256sum", "test", "[", "basename", "dirname",
                           "readlink", "realpath", "du", "diff", "cmp", "true", "false"})
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})

#: The options that take a value (`shell_options.options`) of the archivers and of awk.
_ZIP_VALUES = frozenset({"-b", "--temp-path", "-n", "-t", "-tt", "-O", "--output-file", "-P", "--password", "-Z", "-s",
                         "-x", "-i"})
_UNZIP_VALUES = frozenset({"-d", "-x", "-P"})
#: tar's options naming a file it writes besides its archive: its incremental snapshot, its verbose listing, its
#: volume number.
_TAR_FILES = frozenset({"-g", "--listed-incremental", "--index-file", "--volno-file"})
#: tar's options whose value is a command line it runs with the shell, in the folder it runs in (`-C`
#: notwithstanding): its compressor, the command fed each file extracted, the script run at a volume's end; and
#: `--checkpoint-action=exec=CMD`.
_TAR_RUNS = frozenset({"-I", "--use-compress-program", "--to-command", "-F", "--info-script", "--new-volume-script"})
_TAR_VALUES = _TAR_FILES | _TAR_RUNS | frozenset({
    "--checkpoint-action", "-f", "--file", "-C", "--directory", "-b", "--blocking-factor", "-T", "--files-from", "-X",
    "--exclude-from", "-K", "-N", "-L", "-V", "--label", "-H", "--format", "--exclude", "--transform", "--owner",
    "--group", "--mode", "--mtime"})
_CPIO_VALUES = frozenset({"-D", "--directory", "-F", "--file", "-O", "-I", "-E", "--pattern-file", "-H", "--format",
                          "-R", "--owner", "-C", "--io-size", "-M", "--message", "--rsh-command"})
_AWK_VALUES = frozenset({"-F", "-v", "-f", "--file", "-E", "--exec", "-e", "--source", "-i", "--include", "-l",
                         "--load", "-W"})


def read_program(name: str, args: list[str], cwd: str | None, reading: ShellReading, home: str | None,
                 depth: int) -> str | None:
    """Add what `name ARGS…` writes where its command line shows it; return the working folder after it."""
    if name == "find":
        _find(args, cwd, reading)
    elif name in _AWKS:
        _awk(name, args, cwd, reading, home, depth)
    elif name in INLINE:
        from brain_tui.core.sessions.shell_targets import read_text

        read_inline(name, args, cwd, reading, lambda text: read_text(text, cwd, reading, home, depth + 1))
        from brain_tui.core.sessions.shell_modules import python_module, read_module

        module = python_module(args) if name.startswith(("python", "pypy")) else None
        if module is not None:
            read_module(*module, cwd, reading)
    elif name == "xargs":
        from brain_tui.core.sessions.shell_stdin import read_xargs_file

        read_xargs_file(args, cwd, reading, home, depth)
    elif name in ("pip", "pip3"):
        from brain_tui.core.sessions.shell_modules import read_pip

        read_pip(args, cwd, reading)
    else:
        from brain_tui.core.sessions.shell_targets import read_text

        _archive(name, args, cwd, reading, lambda text: read_text(text, cwd, reading, home, depth + 1))
    reading.unread.append(f"{name}: what it writes")
    return cwd


def _find(args: list[str], cwd: str | None, reading: ShellReading) -> None:
    for option, output in zip(args, args[1:], strict=False):  # `-fprint FILE` and its kin write FILE
        if option in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            reading.add(output, cwd, "find")
    writes = "-delete" in args or any(
        arg in ("-exec", "-execdir", "-ok", "-okdir") and
        (args[i + 1].rsplit("/", 1)[-1] if i + 1 < len(args) else "") not in _FIND_READERS
        for i, arg in enumerate(args))
    if writes:
        # `find PATH… -delete` (or `-exec rm …`): everything below each starting point may go
        first = next((i for i, a in enumerate(args) if a.startswith(("-", "(", "!"))), len(args))
        for path in args[:first] or ["."]:
            reading.add(path, cwd, "find", tree=True)


def _archive(name: str, args: list[str], cwd: str | None, reading: ShellReading,
             run: Callable[[str], object]) -> None:
    """Add what an archiver writes; `run` reads a command line one of its options runs."""
    if name == "zip":
        args, logs, commands = _zip_own(args)
        for command in commands:
            run(command)
        operands, values, flags = _options(args, set(_ZIP_VALUES))
        output = values.get("-O") or values.get("--output-file")
        if flags & {"-sf", "--show-files"} or "-s" in values and values["-s"] == "f":
            return
        archive = output or (operands[0] if operands else "")
        if archive and archive != "-":
            reading.add(archive if os.path.splitext(archive)[1] else archive + ".zip", cwd, name)
        for log in logs:  # (named as the archive is: `.log` added to a name without an extension)
            reading.add(log if os.path.splitext(log)[1] else log + ".log", cwd, name)
        temp = values.get("-b") or values.get("--temp-path")
        if temp:  # the archive is written there first, then moved
            reading.add(temp, cwd, name, tree=True)
        if flags & {"-m", "--move"}:  # the files archived are deleted
            _removed(operands[1:], cwd, reading, name)
    elif name == "unzip":
        operands, values, flags = _options(args, set(_UNZIP_VALUES))
        if not flags & {"-l", "-t", "-p", "-v", "-Z", "-z"}:  # no `-d`: into the folder it runs in
            reading.add(values.get("-d", "."), cwd, name, tree=True)
    elif name.startswith("7z"):
        switches = [a for a in args if a.startswith("-")]
        words = [a for a in args if not a.startswith("-")]
        if words[:1] in (["a"], ["u"], ["d"], ["rn"]) and len(words) > 1:
            reading.add(words[1], cwd, name)
        elif words[:1] in (["x"], ["e"]) and "-so" not in switches:  # no `-o`: into the folder it runs in
            folders = [switch[2:] for switch in switches if switch.startswith("-o") and len(switch) > 2]
            for folder in folders or ["."]:
                reading.add(folder, cwd, name, tree=True)
    elif name == "cpio":
        _cpio(args, cwd, reading)
    else:
        _tar(name, args, cwd, reading, run)


def _tar(name: str, args: list[str], cwd: str | None, reading: ShellReading, run: Callable[[str], object]) -> None:
    """`tar -c|-r|-u -f OUT` writes OUT; `tar -x -C DIR` writes below DIR (old-style `tar cf OUT …` too); the
    command lines its options run (`_TAR_RUNS`, `--checkpoint-action=exec=CMD`) are read with `run`."""
    if args and not args[0].startswith("-"):  # `tar czf OUT DIR`: the letters' values follow in order
        letters, rest = args[0], args[1:]
        args = [f"-{letter}" for letter in letters]
        for at, letter in enumerate(list(args)):
            if letter[1] in "fCbTKNgLVIFHX" and rest:
                args.insert(args.index(letter, at) + 1, rest.pop(0))
        args += rest
    operands, values, flags = _options(args, set(_TAR_VALUES))
    actions = [after for before, after in zip(args, args[1:], strict=False) if before == "--checkpoint-action"]
    actions += [arg.partition("=")[2] for arg in args if arg.startswith("--checkpoint-action=")]
    for command in [value for option, value in values.items() if option in _TAR_RUNS] + \
            [action[5:] for action in actions if action.startswith("exec=")]:
        run(command)
    for option, value in values.items():
        if option in _TAR_FILES and value not in STREAMS:
            reading.add(value, cwd, name)
    if flags & {"-c", "--create", "-r", "--append", "-u", "--update"} and "--remove-files" in flags:
        # the files archived are deleted: found from the folder it runs in, or the one a `-C DIR` before them names
        folders = [args[at + 1] for at, arg in enumerate(args[:-1]) if arg in ("-C", "--directory")]
        folders += [arg.split("=", 1)[1] for arg in args if arg.startswith("--directory=")]
        folders += [arg[2:] for arg in args if arg.startswith("-C") and len(arg) > 2]
        for base in [".", *folders]:
            _removed(operands, join_path(cwd, base), reading, name)
    archive = values.get("-f") or values.get("--file")
    if flags & {"-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate",
                "--delete"} and archive and archive != "-":
        reading.add(archive, cwd, name)
    folder = values.get("-C") or values.get("--directory")
    if flags & {"-x", "--extract", "--get"} and not flags & {"-O", "--to-stdout"}:  # no `-C`: where it runs
        reading.add(folder or ".", cwd, name, tree=True)


#: zip's own two-letter options taking a value (`-lf` is no cluster of `-l` and `-f`) read apart: its log file, and
#: the command its `-T` test runs (with the shell, the archive's name added).
_ZIP_OWN = {"-lf": "--logfile-path", "-TT": "--unzip-command"}


def _zip_own(args: list[str]) -> tuple[list[str], list[str], list[str]]:
    """zip's arguments without its `_ZIP_OWN` options (`-lf FILE`, `-lfFILE`, `--logfile-path[=]FILE`, `-TT CMD`,
    `--unzip-command[=]CMD`), the log files they name and the commands."""
    rest: list[str] = []
    found: dict[str, list[str]] = {"-lf": [], "-TT": []}
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            return rest + args[index - 1:], found["-lf"], found["-TT"]
        short = next((key for key, long in _ZIP_OWN.items() if arg in (key, long) or arg.startswith((key, long + "="))),
                     None)
        if short is None:
            rest.append(arg)
        elif arg in (short, _ZIP_OWN[short]):
            found[short] += args[index:index + 1]
            index += 1
        else:
            found[short].append(arg.partition("=")[2] if arg.startswith("--") else arg[3:])
    return rest, found["-lf"], found["-TT"]


def _removed(paths: list[str], cwd: str | None, reading: ShellReading, name: str) -> None:
    """Add files an archiver deletes once archived (`tar --remove-files`, `zip -m`): a folder, all below it."""
    from brain_tui.core.sessions.shell_copies import is_dir

    for path in paths:
        if path != "-":
            reading.add(path, cwd, name, tree=is_dir(cwd, path))


def _cpio(args: list[str], cwd: str | None, reading: ShellReading) -> None:
    """`cpio -i` writes below `-D DIR` (else the folder it runs in), `cpio -p DIR` below DIR, `cpio -o` its
    `-F`/`-O` archive; `cpio -t` only lists."""
    operands, values, flags = _options(args, set(_CPIO_VALUES))
    if flags & {"-t", "--list"}:
        return
    if flags & {"-i", "--extract"}:
        reading.add(values.get("-D") or values.get("--directory") or ".", cwd, "cpio", tree=True)
    elif flags & {"-o", "--create"}:
        archive = values.get("-O") or values.get("-F") or values.get("--file")
        if archive and archive != "-":
            reading.add(archive, cwd, "cpio")
    elif flags & {"-p", "--pass-through"}:
        for operand in operands[-1:]:
            reading.add(operand, cwd, "cpio", tree=True)


def _awk(name: str, args: list[str], cwd: str | None, reading: ShellReading, home: str | None, depth: int) -> None:
    from brain_tui.core.sessions.shell_targets import read_text

    operands, values, _flags = _options(args, set(_AWK_VALUES))
    program_file = bool(values.keys() & {"-f", "--file", "-E", "--exec"})
    if program_file:  # its program is a file: what that writes is unknown, as a script's
        reading.unread.append(f"{name}: a program file")
    programs = [v for k, v in zip(args, args[1:], strict=False) if k in ("-e", "--source")]
    programs += [a.split("=", 1)[1] for a in args if a.startswith("--source=")]
    if not programs and not program_file and operands:
        programs, operands = operands[:1], operands[1:]
    for program in programs:
        for kind, target in _awk_outputs(program):
            if kind == "|" and target is not None:
                read_text(target, cwd, reading, home, depth + 1)
            elif target is None:
                reading.unread.append(f"{name}: a file named by an expression")
            else:
                reading.add(target, cwd, name)
    includes = [v for k, v in zip(args, args[1:], strict=False) if k in ("-i", "--include")]
    includes += [a.split("=", 1)[1] for a in args if a.startswith("--include=")] + [a[2:] for a in args
                                                                                    if a.startswith("-i") and a[2:]]
    if "inplace" in includes:
        for operand in operands:
            if "=" not in operand:
                reading.add(operand, cwd, f"{name} -i inplace")


def _awk_outputs(program: str) -> list[tuple[str, str | None]]:
    """The outputs of an awk program: (">", FILE) for `print > "FILE"` (FILE None: made by an expression), and
    ("|", CMD) for a command it runs (`print | "CMD"`, `system("CMD")`, `"CMD" | getline`)."""
    found: list[tuple[str, str | None]] = []
    for match in re.finditer(r"\bprintf?\b", program):
        depth, index = 0, match.end()
        while index < len(program) and (depth or program[index] not in ";}{\n"):
            ch = program[index]
            if ch == '"':
                string = STRING.match(program, index)
                index = string.end() if string else len(program)
                continue
            depth += (ch in "([") - (ch in ")]")
            if depth == 0 and ch in ">|":
                kind = ">" if ch == ">" else "|"
                index += 2 if program.startswith(">>", index) else 1
                string = STRING.match(program, len(program[:index]) + len(program[index:]) -
                                       len(program[index:].lstrip()))
                found.append((kind, unquote(string.group(2)) if string and string.group(1) == '"' else None))
                break
            index += 1
    for pattern in (r'\bsystem\s*\(\s*"((?:\\.|[^"\\])*)"', r'"((?:\\.|[^"\\])*)"\s*\|\s*getline'):
        found += [("|", unquote(m.group(1))) for m in re.finditer(pattern, program)]
    return [(kind, target) for kind, target in found if kind == ">" or target is not None]
