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
code (``python -c``, ``perl -e``, ``node -e``, ``ruby -e``, ``php -r``) that writes (an ``open`` for writing, a
``remove``, ``rmtree``, ``writeFileSync``…) and names a protocol file in a string: that file is a target. Code that
only reads names none (``cat claims/x.yml`` is a read too). What else such a program writes is unread: the OS
sandbox's job.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

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
#: Interpreters and their options holding inline code.
_INLINE = {"python": ("-c",), "python2": ("-c",), "python3": ("-c",), "pypy": ("-c",), "pypy3": ("-c",),
           "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"),
           "nodejs": ("-e", "--eval", "-p", "--print"), "bun": ("-e", "--eval", "-p", "--print"), "php": ("-r",)}

#: The letters of an interpreter's short options taking the rest of their word as their value (`perl -Ilib`,
#: `-i.bak`, `python3 -Werror`): in a bundle, the letters after one are that value. The others are flags (digits:
#: perl's `-l0`, `-0777`).
_INLINE_ATTACHED = {"python": "WXmQ", "pypy": "WXmQ", "perl": "IMmxidDCV", "ruby": "IrCFxiEKTW", "node": "r",
                    "nodejs": "r", "bun": "r", "php": "dcfzt"}

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

_STRING = re.compile(r"""(['"])((?:\\.|(?!\1)[^\\\n])*)\1""")
_PROTOCOL = re.compile(r"(?:^|/)(?:claims|signals|locks|breath|\.brain)(?:/|$)|(?:^|/)BRAIN-INDEX\.md$")
#: What writes in inline code: an `open` for writing, or a call that writes, removes, moves or runs something.
_CODE_WRITES = re.compile(r"""open\s*\([^)]*?,\s*['"][^'"]*[wax+]|\b(?:write\w*|remove|unlink\w*|rmtree|rename\w*|
    truncate|mkdirs?|makedirs|rmdir|rmSync|rm|symlink\w*|link|chmod|chown|copy\w*|move|touch|system|popen|run|call|
    check_call|check_output|spawn\w*|exec\w*|appendFile\w*)\b""", re.VERBOSE)
#: A call handing a shell the string that follows (`os.system("CMD")`, Perl's `system "CMD"`, `execSync('CMD')`),
#: whatever its prefix (`f"…"`, `rb"…"`) or quotes (`'''…'''`, Perl's `q{…}`, a template literal).
_SHELL_CALL = re.compile(r"""\b(?:system|popen|Popen|check_output|check_call|call|run|getoutput|getstatusoutput|
    exec|execSync|spawnSync|shell_exec|passthru)\s*\(?\s*(?:[rRbBfFuU]{1,2}(?=['"])|(?=['"`])|(?=qq?\W))""",
                         re.VERBOSE)
#: A string in one of the forms `_SHELL_CALL` and `_RUNS_STRING` find: triple-quoted, Perl's `q{…}`/`qx(…)`, Ruby's
#: `%x(…)`, backquoted, or plain (group 1 its text, or group 2 a plain string's quoted text with its quote in 3).
_CALLED = re.compile(r"""'''(.*?)'''|""\"(.*?)""\"|(?:qq?|qx|%x)\s*(?:\{(.*?)\}|\((.*?)\)|\[(.*?)\]|<(.*?)>)|
    `((?:\\.|[^`\\])*)`""", re.VERBOSE | re.DOTALL)
#: What runs a shell without a call: Perl's, Ruby's and PHP's backquotes, Perl's `qx{…}`, Ruby's `%x(…)`.
_RUNS_STRING = re.compile(r"(?=`|\bqx\s*[{(\[<]|%x\s*[{(\[<])")
#: The interpreters whose backquotes run a shell, and those whose `open("|CMD")` does.
_BACKQUOTES = frozenset({"perl", "ruby", "php"})
_PIPE_OPENS = frozenset({"perl", "ruby"})
#: A mode before a path in a string (Perl's `open(F, ">claims/x")`): writing when it holds `>`.
_MODE = re.compile(r"^(?:\+?[<>]{1,2}|\|)\s*")


def read_program(name: str, args: list[str], cwd: str | None, reading: ShellReading, home: str | None,
                 depth: int) -> str | None:
    """Add what `name ARGS…` writes where its command line shows it; return the working folder after it."""
    if name == "find":
        _find(args, cwd, reading)
    elif name in _AWKS:
        _awk(name, args, cwd, reading, home, depth)
    elif name in _INLINE:
        from brain_tui.core.sessions.shell_targets import _read_text

        _inline(name, args, cwd, reading, lambda text: _read_text(text, cwd, reading, home, depth + 1))
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
        from brain_tui.core.sessions.shell_targets import _read_text

        _archive(name, args, cwd, reading, lambda text: _read_text(text, cwd, reading, home, depth + 1))
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
    from brain_tui.core.sessions.shell_targets import _read_text

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
                _read_text(target, cwd, reading, home, depth + 1)
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


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _awk_outputs(program: str) -> list[tuple[str, str | None]]:
    """The outputs of an awk program: (">", FILE) for `print > "FILE"` (FILE None: made by an expression), and
    ("|", CMD) for a command it runs (`print | "CMD"`, `system("CMD")`, `"CMD" | getline`)."""
    found: list[tuple[str, str | None]] = []
    for match in re.finditer(r"\bprintf?\b", program):
        depth, index = 0, match.end()
        while index < len(program) and (depth or program[index] not in ";}{\n"):
            ch = program[index]
            if ch == '"':
                string = _STRING.match(program, index)
                index = string.end() if string else len(program)
                continue
            depth += (ch in "([") - (ch in ")]")
            if depth == 0 and ch in ">|":
                kind = ">" if ch == ">" else "|"
                index += 2 if program.startswith(">>", index) else 1
                string = _STRING.match(program, len(program[:index]) + len(program[index:]) -
                                       len(program[index:].lstrip()))
                found.append((kind, _unquote(string.group(2)) if string and string.group(1) == '"' else None))
                break
            index += 1
    for pattern in (r'\bsystem\s*\(\s*"((?:\\.|[^"\\])*)"', r'"((?:\\.|[^"\\])*)"\s*\|\s*getline'):
        found += [("|", _unquote(m.group(1))) for m in re.finditer(pattern, program)]
    return [(kind, target) for kind, target in found if kind == ">" or target is not None]


def inline_codes(name: str, args: list[str]) -> list[str]:
    """The inline code `name ARGS…` runs: its code option's value, given apart (`-e CODE`), attached (`-eCODE`),
    after flags in one word (`perl -le CODE`, `python3 -Ic CODE`) or after `=` (`node --eval=CODE`). A letter whose
    option takes the rest of its word (`perl -ie`: the backup extension `e`) ends the bundle."""
    options = _INLINE[name]
    attached = _INLINE_ATTACHED.get(name.rstrip("0123456789"), "")
    codes: list[str] = []
    for index, arg in enumerate(args):
        following = args[index + 1:index + 2]
        if arg in options:
            codes += following
        elif arg.startswith("--"):
            option, eq, value = arg.partition("=")
            codes += [value] if eq and option in options else []
        elif arg.startswith("-") and len(arg) > 2:
            for at in range(1, len(arg)):
                if f"-{arg[at]}" in options:  # (`node -pe CODE`: `-p` and `-e` both, the code the next word)
                    rest = arg[at + 1:]
                    codes += following if all(f"-{letter}" in options for letter in rest) else [rest]
                    break
                if arg[at] in attached:
                    break
    return codes


def _inline(name: str, args: list[str], cwd: str | None, reading: ShellReading, run: Callable[[str], object]) -> None:
    """Inline code that writes and names a protocol file in a string: that file is a target (the decision refuses
    it); code that only reads, or names no protocol file, names none. A string a call hands a shell
    (`os.system("CMD")`, `system "CMD"`) is read with `run` as the command line it is."""
    for code in inline_codes(name, args):
        starts = [call.end() for call in _SHELL_CALL.finditer(code)]
        starts += [found.end() for found in _RUNS_STRING.finditer(code)] if name in _BACKQUOTES else []
        for start in starts:
            called = _CALLED.match(code, start)
            string = _STRING.match(code, start)
            if called:
                run(next(group for group in called.groups() if group is not None))
            elif string:
                run(_unquote(string.group(2)) if string.group(1) == '"' else string.group(2))
        if name in _PIPE_OPENS and re.search(r"\bopen\b", code):  # `open(F, "|CMD")`, `open(F, "CMD|")`
            for string in _STRING.finditer(code):
                if string.group(2).strip().startswith("|") or string.group(2).strip().endswith("|"):
                    run(string.group(2).strip().strip("|"))
        writes = bool(_CODE_WRITES.search(code))
        for string in _STRING.finditer(code):
            mode = _MODE.match(string.group(2))
            text = string.group(2)[mode.end():] if mode else string.group(2)
            if (writes or mode and ">" in mode.group()) and _PROTOCOL.search(text) and "\n" not in text:
                reading.add(text, cwd, name, tree=not os.path.splitext(text)[1])
