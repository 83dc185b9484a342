"""Commands a shell command line hands to a shell inside itself, for the shell's reader (`shell_targets`): the
bodies of command substitutions (``$(…)``, backquotes, also inside double quotes) and process substitutions
(``<(…)``, ``>(…)``), and the text a shell reads as its script from standard input when the line itself shows it
(``bash <<< 'CMD'``, ``echo 'CMD' | sh``, ``bash /dev/stdin``, ``source /dev/stdin``; what ``echo`` and ``printf`` write
there: `piped_text`), and the command line a shell is given by ``-c`` as the shells read their
arguments (`SHELLS`, `shell_options`: ``bash -xc CMD``, ``sh -c -- CMD``). They run as commands, so they are read as
commands.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os
import re
import shlex

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.sessions.shell_quotes import nested_end

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["OTHER_SHELLS", "SHELLS", "STDIN_PATHS", "echo_decoded", "echo_escapes", "filled", "outside_substitutions",
           "past_closer", "piped_text", "positional", "reads_script_from_stdin", "shell_command", "shell_options",
           "substitutions"]

#: The shells the reader reads: the command line `-c` gives them, or the script they read on standard input.
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})
#: Shells that speak no POSIX shell (fish, csh, PowerShell, nushell…): what they run cannot be read, and whatever
#: they are given (`-c`, `-Command`, a script on standard input) makes the line unreadable.
OTHER_SHELLS = frozenset({"fish", "csh", "tcsh", "pwsh", "powershell", "nu", "xonsh", "elvish", "rc", "es", "ion"})
#: The paths naming a command's own standard input.
STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
#: bash's long options taking the next word as their value (the others are flags: `--norc`, `--login`).
_SHELL_LONG_VALUES = frozenset({"--rcfile", "--init-file"})


def substitutions(text: str, here_document: bool = False) -> list[str]:
    """The bodies of the outermost command and process substitutions of `text` (outside single quotes), in
    order; an unclosed one runs to the end (the reader then reads what there is). `here_document`: `text` is the
    body of an unquoted here-document, read as inside double quotes whose quote characters are plain text."""
    return [text[start:end].replace("\\`", "`").replace("\\\\", "\\") if text[start - 1] == "`" else text[start:end]
            for start, end in _spans(text, here_document)]


def outside_substitutions(text: str) -> str:
    """`text` without the bodies of its outermost substitutions (``echo $(cd src)`` is ``echo $()``): what the
    shell reading it runs itself."""
    kept, last = [], 0
    for start, end in _spans(text):
        kept.append(text[last:start])
        last = end
    return "".join(kept) + text[last:]


def filled(text: str, output: Callable[[str], str | None]) -> str | None:
    """`text` with each of its outermost substitutions made the text `output` gives for its body, its trailing
    new lines cut as the shell cuts them; None when `output` knows one's text not (None)."""
    kept, last = [], 0
    for start, end in _spans(text):
        body = text[start:end]
        printed = output(body.replace("\\`", "`").replace("\\\\", "\\") if text[start - 1] == "`" else body)
        if printed is None:
            return None
        kept += [text[last:start - (1 if text[start - 1] == "`" else 2)], printed.rstrip("\n")]
        last = end + 1
    return "".join(kept) + text[last:]


def _spans(text: str, here_document: bool = False) -> list[tuple[int, int]]:
    """Where the bodies `substitutions` gives stand in `text` (start, end)."""
    found: list[tuple[int, int]] = []
    index = 0
    quote = '"' if here_document else ""
    while index < len(text):
        ch = text[index]
        if ch == "\\":
            index += 2
            continue
        if quote == "'":
            quote = "" if ch == "'" else quote
            index += 1
            continue
        if ch == "'" and not quote:
            quote = "'"
        elif quote and text.startswith("${", index):  # `"${x:-"…"}"`: its quotes start anew, its `$(…)` are read
            end = nested_end(text, index)
            found.extend((index + 2 + start, index + 2 + stop) for start, stop in _spans(text[index + 2:end - 1]))
            index = end
            continue
        elif ch == '"' and not here_document:
            quote = "" if quote == '"' else '"'
        elif ch == "`":
            end = index + 1
            while end < len(text) and text[end] != "`":
                end += 2 if text[end] == "\\" else 1
            found.append((index + 1, end))
            index = end + 1
            continue
        elif text.startswith(("$(", "<(", ">("), index) and not text.startswith("$((", index):
            end = _closing(text, index + 2)
            found.append((index + 2, end))
            index = end + 1
            continue
        index += 1
    return found


def _closing(text: str, index: int) -> int:
    """The index of the `)` that closes the substitution whose body starts at `index` (`nested_end`: quotes and
    nested parts skipped as bash skips them); the end of `text` when it is unclosed."""
    end = nested_end(text, index - 2)
    return end - 1 if text[end - 1:end] == ")" and end > index else len(text)


def past_closer(token: str, depth: int) -> tuple[int, str]:
    """The nesting left after the operator `token` (a token of the split line) read inside a substitution `depth`
    parentheses deep, and what follows the `)` closing it in the same token: ``);`` closes ``$(ls`` and leaves the
    line's ``;`` (the split line gives a closing parenthesis and the operator after it as one token)."""
    for position, ch in enumerate(token):
        depth += 1 if ch == "(" else -1 if ch == ")" else 0
        if depth == 0 and ch == ")":
            return 0, token[position + 1:]
    return depth, ""


def shell_options(args: list[str]) -> tuple[str, list[str]]:
    """A shell's arguments `args` as the shells read them: the letters of the options it is given (``-xc`` gives
    ``x`` and ``c``; ``+x`` unsets and gives none; ``-o NAME`` and ``-O NAME`` take the next word, wherever the
    letter stands in its word: ``-co NAME``) and its operands, the words from the first that is no option (or
    after ``--`` or a lone ``-``). With ``c`` the first operand is the command line it runs, the rest its ``$0``
    and arguments: ``-c`` is a flag (``bash -c -x CMD``, ``sh -c -- CMD``)."""
    letters = ""
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg in ("--", "-"):
            return letters, args[index:]
        if arg.startswith("--"):
            index += arg in _SHELL_LONG_VALUES
            continue
        if len(arg) < 2 or arg[0] not in "-+":
            return letters, args[index - 1:]
        letters += arg[1:] if arg[0] == "-" else ""
        index += sum(letter in "oO" for letter in arg[1:])
    return letters, []


def shell_command(words: list[str]) -> str | None:
    """The command line the shell `words` (its wrappers passed over) is given by ``-c``, or None: no shell of
    `SHELLS`, or no ``-c`` (a script file, or its standard input)."""
    if not words or os.path.basename(words[0]) not in SHELLS:
        return None
    letters, operands = shell_options(words[1:])
    if "c" not in letters or not operands:
        return None
    return positional(operands[0], operands[1:]) if operands[1:] else operands[0]


#: A positional parameter: `$0`…`$9` (`$10` is `$1` then 0), `${N}`, `$@`, `$*`, `${@}`, `${*}`.
_POSITIONAL = LazyPattern(r"\$(?:([0-9@*])|\{([0-9]+|[@*])\})")


def positional(line: str, args: list[str]) -> str:
    """The command line `line` a shell runs by ``-c`` with its operands `args` after it (the first is ``$0``, the
    rest ``$1``…) filled in where they stand outside single quotes, as values the reader reads as words: quoted
    outside double quotes (``rm $1``), escaped inside (``rm "$1"``); ``"$@"`` is each argument a word, ``"$*"``
    all of them one word; a parameter past the last argument is empty."""
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(line):
        ch = line[index]
        found = _POSITIONAL.match(line, index) if ch == "$" and quote != "'" else None
        if ch == "\\" and quote != "'":
            out.append(line[index:index + 2])
            index += 2
            continue
        if found is None:
            if ch in "'\"" and quote in ("", ch):  # (a quote character inside the other quotes is plain)
                quote = "" if quote else ch
            out.append(ch)
            index += 1
            continue
        index = found.end()
        name = found.group(1) or found.group(2)
        if name in "@*":
            values = args[1:]
        else:
            number = int(name)
            values = args[number:number + 1]
        if quote and name == "@":  # `"$@"`: the quote closed, each argument a word, the quote opened again
            out.append('"' + " ".join(shlex.quote(value) for value in values) + '"')
        elif quote:
            out.append(re.sub(r'([\\"$`])', r"\\\1", " ".join(values)))
        else:
            out.append(" ".join(shlex.quote(value) for value in values))
    return "".join(out)


def reads_script_from_stdin(words: list[str]) -> bool:
    """True when the command `words` (its wrappers passed over) is a shell reading its commands from standard
    input: no ``-c``, and no script file (or ``-s``: the operands are then its arguments; or the script file is
    standard input itself, ``bash /dev/stdin``), or ``source``/``.`` of standard input."""
    if not words:
        return False
    name = os.path.basename(words[0])
    if name in ("source", "."):
        return words[1:2] != [] and words[1] in STDIN_PATHS - {"-"}  # (`. -` reads a file named -)
    if name not in SHELLS:
        return False
    letters, operands = shell_options(words[1:])
    return "c" not in letters and (not operands or "s" in letters or operands[0] in STDIN_PATHS)


def piped_text(words: list[str]) -> str | None:
    """What `echo ARGS` or `printf FORMAT ARGS` (its wrappers passed over) writes to the next command of a
    pipeline, or None for another command: printf's format filled in (`_printf`), echo's words after its options
    (each leading word of the letters `n`, `e` and `E`: ``-ne``; after ``-e``, the last of ``-e`` and ``-E``, its
    escapes decoded as `echo_escapes` reads them: ``\\t``, ``\\x2f``, ``\\0NNN``, ``\\c`` ending it)."""
    if not words or os.path.basename(words[0]) not in ("echo", "printf"):
        return None
    if words[0].endswith("printf"):
        args = words[2:] if words[1:2] == ["--"] else words[1:]
        return _printf(args[0], args[1:]) if args else ""
    escapes, text = _echo(words[1:])
    return echo_escapes(text, "echo")[0] if escapes else text


def echo_decoded(words: list[str]) -> str | None:
    """What `echo ARGS` (its wrappers passed over) writes where its escapes are decoded without ``-e`` (bash with
    ``shopt -s xpg_echo``, dash's and zsh's echo: ``echo 'a\\0057b'`` writes ``a/b``), when that differs from what
    bash's echo writes; else None."""
    if not words or os.path.basename(words[0]) != "echo":
        return None
    escapes, text = _echo(words[1:])
    decoded = echo_escapes(text, "echo")[0]
    return None if escapes or decoded == text else decoded


def _echo(args: list[str]) -> tuple[bool, str]:
    """Whether bash's echo decodes the escapes of its arguments `args` (``-e``), and the text it writes."""
    escapes = False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        escapes = next((letter == "e" for letter in reversed(args[0]) if letter in "eE"), escapes)
        args = args[1:]
    return escapes, " ".join(args)


#: An escape of printf's format, of echo -e and of `%b` (bash 5.2): a number (hexadecimal, Unicode, octal) or a
#: letter. The octal ones differ: the format's `\NNN`, echo's `\0NNN` (zero to three digits after the 0), `%b`'s both.
_SHELL_ESCAPE = LazyPattern(r"\\(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|0([0-7]{0,3})"
                           r"|([1-7][0-7]{0,2})|(.))", re.DOTALL)
_SHELL_CONTROLS = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
                   "v": "\v", "\\": "\\"}


def echo_escapes(text: str, dialect: str) -> tuple[str, bool]:
    """`text` with the escapes bash decodes in `dialect` (``format``: printf's format; ``echo``: echo -e; ``b``:
    printf's ``%b``) made their characters, and whether a ``\\c`` there ended all output (echo and ``%b``)."""
    out: list[str] = []
    last = 0
    for found in _SHELL_ESCAPE.finditer(text):
        out.append(text[last:found.start()])
        last = found.end()
        hexa, zero, octal, letter = found.group(1) or found.group(2) or found.group(3), found.group(4), \
            found.group(5), found.group(6)
        if hexa:
            try:
                out.append(chr(int(hexa, 16)))
            except (ValueError, OverflowError):
                out.append(found.group())
        elif zero is not None and dialect != "format":
            out.append(chr(int(zero or "0", 8)))
        elif zero is not None or octal and dialect != "echo":  # the format's `\0NN`: three digits with its 0
            digits = ("0" + zero)[:3] if zero is not None else octal
            out.append(chr(int(digits, 8)) + (("0" + zero)[3:] if zero is not None else ""))
        elif letter == "c" and dialect != "format":
            return "".join(out), True
        else:
            out.append(_SHELL_CONTROLS.get(letter or "", found.group()) if letter else found.group())
    out.append(text[last:])
    return "".join(out), False


#: A conversion of printf's format: `%%`, or flags, width and precision (`%-5.2s`, `%*.*s`) and its letter.
_CONVERSION = LazyPattern(r"%(?:%|[-+ #0']*(\d+|\*)?(?:\.(\d+|\*)?)?([a-zA-Z]))")


def _printf(form: str, args: list[str]) -> str:
    """What `printf FORM ARGS…` writes, near enough to read as a script: the format's escapes decoded, each
    conversion its argument (`%b`'s escapes decoded, a `\\c` there ending the output; widths left out, a `*` width
    or precision taking its argument), the format used again while arguments are left, as printf does."""
    out: list[str] = []
    left = list(args)
    while True:
        used = False
        last = 0
        for found in _CONVERSION.finditer(form):
            out.append(echo_escapes(form[last:found.start()], "format")[0])
            last = found.end()
            if found.group(3) is None:
                out.append("%")
                continue
            used = True
            del left[:[found.group(1), found.group(2)].count("*")]
            value = left.pop(0) if left else ""
            if found.group(3) != "b":
                out.append(value)
                continue
            decoded, stopped = echo_escapes(value, "b")
            out.append(decoded)
            if stopped:
                return "".join(out)
        out.append(echo_escapes(form[last:], "format")[0])
        if not left or not used:
            return "".join(out)
