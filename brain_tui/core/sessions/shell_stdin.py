"""What a command does with the text a command line hands it on standard input, when the line shows that text
(``<<< TEXT``, a here-document, ``echo``/``printf … |``), for the shell's reader (`shell_targets`): an editor's
commands (``ed``, ``red``, ``ex``, ``vim -e``/``-es``: the files ``w FILE``, ``wq FILE``, ``f FILE`` … ``w``,
``:saveas FILE`` write, and the shell commands ``!CMD``, ``w !CMD``, ``r !CMD`` run) and the arguments ``xargs``
adds to its command (``echo claims | xargs rm -rf`` runs ``rm -rf claims``; ``xargs -a FILE rm`` takes them from a
file the line does not show: `read_xargs_file`), and the code an interpreter reads there (``python3 <<< CODE``,
``echo CODE | tclsh``: `shell_code`, as its code given by option is read), and a shell's script (``bash <<< CMD``,
read as the command line it is). The text may come through other commands (``echo CMD | cat | sh``: `shell_pipes`);
text a filter changed on its way (``echo CMD | sed … | sh``) cannot be read when the command runs it.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os
import re

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.sessions.shell_code import read_stdin_code, reads_code_from_stdin
from brain_tui.core.sessions.shell_options import long_name
from brain_tui.core.sessions.shell_substitutions import reads_script_from_stdin
from brain_tui.core.sessions.shell_vim import EX_NAMES, VIMS

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["feed", "read_fed_files", "read_xargs_file"]

_EDS = frozenset({"ed", "red"}) | EX_NAMES
_VIMS = VIMS - EX_NAMES  # (by any of its names: `view -es`, `vim.basic -e`)
#: An ed address (or range), a `g/RE/` prefix (its command runs on each match), then the command and its argument.
#: Possessive (`*+`): an address read one way is never read again another way (a crafted one would take hours).
_ADDRESS = r"(?:\d|[.$%,;+^-]|'[a-z]|/(?:\\.|[^/\\])*+/?|\?(?:\\.|[^?\\])*+\??|\s)*+"
_ED_PREFIX = LazyPattern(rf"^[\s:]*+(?:[gGvV]/(?:\\.|[^/\\])*/)?{_ADDRESS}")
_ED_COMMAND = LazyPattern(r"(wq|w|W|x(?:it)?|sav(?:eas)?|up(?:date)?|e|E|f(?:ile)?|r)!?(?:\s*>>\s*|\s+)(.*)")
_TEXT_MODE = LazyPattern(rf"^\s*+{_ADDRESS}[aic]\s*$")
#: xargs options that take a value (the next word, or joined: `-n1`, `--max-args=1`); `-e`/`-i`/`-l` take one joined.
_XARGS_VALUES = frozenset({"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P",
                           "--max-procs", "-s", "--max-chars", "--process-slot-var"})


def feed(words: list[str], text: str | None, cwd: str | None, reading: ShellReading, home: str | None, depth: int,
         changed: str = "") -> None:
    """Read what the command `words` (wrappers passed over) does with `text` on its standard input (None: text the
    line does not show). `changed`: the command that changed text the line showed on its way (`shell_pipes`): a
    command running what it reads there (a shell, an interpreter, `xargs`, an editor) cannot be read."""
    if not words or text is None and not changed:
        return
    name = os.path.basename(words[0])
    editor = name in _EDS or (name in _VIMS and any(re.fullmatch(r"-[A-Za-z]*[eE][A-Za-z]*", w) for w in words[1:]))
    xargs = name == "xargs" and not {"-a", "--arg-file"} & set(_xargs_options(words[1:])[0])
    if changed and (editor or xargs or reads_script_from_stdin(words) or reads_code_from_stdin(name, words[1:])):
        reading.partial = reading.partial or f"`{name}` runs what it reads, text `{changed}` changed on its way"
    if text is None:
        return
    if reads_script_from_stdin(words):  # `bash <<< CMD`, `echo CMD | sh`
        from brain_tui.core.sessions.shell_targets import read_text

        read_text(text, cwd, reading, home, depth + 1)
    elif editor:
        _read_editor_script(text, cwd, reading, home, depth, name)
    elif name == "xargs":
        _read_xargs(words[1:], text, cwd, reading, home, depth)
    else:  # an interpreter reading its code there (`python3 - <<'EOF'`); a script file's input is data
        read_stdin_code(name, words[1:], text, cwd, reading, home, depth)


def _read_editor_script(text: str, cwd: str | None, reading: ShellReading, home: str | None, depth: int,
                        name: str) -> None:
    from brain_tui.core.sessions.shell_targets import read_text

    appending = False
    for line in text.split("\n"):
        if appending:  # text of `a`, `i`, `c`, to a line holding `.` alone
            appending = line.strip() != "."
            continue
        if _TEXT_MODE.match(line):
            appending = True
            continue
        rest = line[_ED_PREFIX.match(line).end():]  # type: ignore[union-attr]  # (it matches "" at least)
        match = _ED_COMMAND.fullmatch(rest)
        command, arg = (match.group(1), match.group(2).strip()) if match else ("", rest.strip())
        if arg.startswith("!") and (match or rest.startswith("!")):  # a shell command the editor runs
            read_text(arg[1:], cwd, reading, home, depth + 1)
        elif match and arg and command != "r":  # a file written now, or named to be written by a later `w`
            reading.add(arg, cwd, name)


def _xargs_options(args: list[str]) -> tuple[dict[str, str], list[str], str | None]:
    """xargs's options (each with its value, "" for a flag), the command it runs, and its replace string."""
    index, values = 0, {}
    while index < len(args) and args[index].startswith("-") and args[index] != "--":
        arg = long_name("xargs", args[index])  # `--arg=FILE` is `--arg-file=FILE`
        index += 1
        option, eq, value = arg.partition("=")
        if option in _XARGS_VALUES and not eq:
            value, index = (args[index] if index < len(args) else ""), index + 1
        elif not eq and arg[:2] in _XARGS_VALUES | {"-e", "-i", "-l"} and not arg.startswith("--"):
            option, value = arg[:2], arg[2:]
        values[option] = value
    if index < len(args) and args[index] == "--":
        index += 1
    replace = values.get("-I") or values.get("--replace") or ("{}" if "-i" in values or "--replace" in values
                                                              else None)
    return values, args[index:] or ["echo"], replace


#: What stands for an argument read from `xargs -a FILE`: no path holds it (not a glob, not an expansion).
_UNSHOWN = "/\u2063xargs-argument"


def read_xargs_file(args: list[str], cwd: str | None, reading: ShellReading, home: str | None, depth: int) -> None:
    """`xargs -a FILE CMD` (`--arg-file`): its arguments come from a file the line does not show. A command that
    writes them (`rm`, `mv`, `tee`…) makes the line unreadable (`ShellReading.partial`); a copy into a folder the
    line names (`cp -t DIR`) writes below DIR; a command writing none of them is read as it is."""
    from brain_tui.core.sessions.shell_targets import ShellReading, read_words

    values, command, replace = _xargs_options(args)
    if "-a" not in values and "--arg-file" not in values:
        return
    trial = ShellReading()
    trial.line = reading.line
    words = [word.replace(replace, _UNSHOWN) for word in command] if replace else [*command, _UNSHOWN]
    read_words(words, cwd, trial, home, depth + 1)
    reading.unread += trial.unread
    reading.partial = reading.partial or trial.partial
    for target in trial.targets:
        folder, base = os.path.split(target.path)
        if _UNSHOWN not in target.path:
            reading._append(target)
        elif replace is None and base == _UNSHOWN[1:] and _UNSHOWN[1:] not in folder and folder != "/":
            reading.add(folder, cwd, target.command, tree=True)  # `cp -t DIR`: one file per argument, in DIR
        else:
            reading.partial = reading.partial or \
                f"`xargs -a`: the arguments `{os.path.basename(command[0])}` writes come from a file the line " \
                "does not show"
    reading.named += [target for target in trial.named if _UNSHOWN not in target.path]


def _read_xargs(args: list[str], text: str, cwd: str | None, reading: ShellReading, home: str | None,
                depth: int) -> None:
    from brain_tui.core.sessions.shell_targets import read_words

    values, command, replace = _xargs_options(args)
    if "-a" in values or "--arg-file" in values:
        return  # its arguments come from a file (`read_xargs_file`)
    null = "-0" in values or "--null" in values
    text = text.replace("\\0", "\0") if null else text  # `printf 'a\0'`: the reader keeps its escape as written
    delimiter = "\0" if null else values.get("-d", values.get("--delimiter"))
    if replace is not None or delimiter is not None:
        items = [item for item in text.split("\n" if delimiter in (None, "\\n") else delimiter) if item.strip()]
    else:
        import contextlib
        import shlex

        lexer = shlex.shlex(text, posix=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        items = []
        with contextlib.suppress(ValueError):  # an unclosed quote: xargs runs on the items before it (unquoted)
            items.extend(lexer)
    if replace is None:
        read_words([*command, *items], cwd, reading, home, depth + 1)
        return
    for item in items:
        read_words([word.replace(replace, item.strip()) for word in command], cwd, reading, home, depth + 1)


def read_fed_files(words: list[str], cwd: str | None, reading: ShellReading, home: str | None, depth: int) -> None:
    """Read the text a process substitution among `words` prints (``<(…)``: `ShellReading.fed_files`) where the
    command runs it: ``source``/``.`` and a shell as their script (``bash <(…)``, ``bash --rcfile <(…)``; not the
    arguments of ``-c``, ``-s`` or of a script file), an interpreter as its code (``python3 <(…)``). Text the line does
    not show run there makes the line unreadable."""
    from brain_tui.core.sessions.shell_substitutions import SHELLS, shell_options

    name = os.path.basename(words[0]) if words else ""
    for index, word in enumerate(words[1:], start=1):
        if word not in reading.fed_files:
            continue
        letters, operands = shell_options(words[1:])
        code = reads_code_from_stdin(name, [*words[1:index], "/dev/stdin", *words[index + 1:]])
        script = index == 1 if name in ("source", ".") else name in SHELLS and "c" not in letters and (
            word not in operands or operands[0] == word and "s" not in letters)
        if not script and not code:
            continue
        text = reading.fed_files[word]
        if text is None:
            reading.partial = reading.partial or f"`{name}` runs what a substitution prints, not shown on the line"
        elif script:
            from brain_tui.core.sessions.shell_targets import read_text

            read_text(text, cwd, reading, home, depth + 1, same_shell=name in ("source", "."))
        else:
            read_stdin_code(name, [*words[1:index], "/dev/stdin", *words[index + 1:]], text, cwd, reading, home, depth)
