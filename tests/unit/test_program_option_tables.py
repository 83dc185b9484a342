"""The shell reader's option tables agree with the programs installed here (their `--help`).

An option the reader takes as taking the next word where the program takes none hides the word after it: a file
written goes unseen. One whose value the program takes only attached (``--tmpdir[=DIR]``) must be marked optional
(`shell_options.OPTIONAL`). Read from each program's own help, so that a table written by hand cannot drift from
the program it describes; a program not installed here, or whose help this parser cannot read, is skipped (with
its reason), never guessed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from brain_tui.core.sessions import shell_outputs, shell_programs, shell_stdin, shell_wrappers, shell_writers
from brain_tui.core.sessions.shell_options import OPTIONAL

#: An option line of a help text: a short indent, then the option column (`-S, --suffix=SUFFIX`, `-o FILE`,
#: `--tmpdir[=DIR]`, `-k, --key <KEYDEF>`).
_LINE = re.compile(r"^ {1,10}(-\S.*)$")
#: One option's name and what follows it in the column: an attached spec (`=VALUE`, `[=VALUE]`, `[VALUE]` or, for a
#: short one, `VALUE`), or a separate one (` VALUE`, ` <value>`, ` [VALUE]`).
_NAME = re.compile(r"(--[A-Za-z0-9][\w-]*|-[A-Za-z0-9@#])(\S*)")
#: A value word after a name, in its column: `<file>`, `<pid>...`, `FILE`, `script`, `[protocol://]host`.
_SEPARATE = re.compile(r" (<[^>]*>\S*|\[[^\]]*\]\S*|[^\s,<\[-]\S*?)(?=,|\s|$)")
#: The synopsis' bracketed options (`[-p project]`, `[-RVf]`: chattr's and strace's only documentation of some).
_SYNOPSIS_VALUE = re.compile(r"\[(-[A-Za-z])\s+[^\]\-\s][^\]]*\]")
_SYNOPSIS_FLAGS = re.compile(r"\[-([A-Za-z]+)\]")
#: The help's column separator: two spaces (a comma and spaces between names do not end it).
_COLUMN_END = re.compile(r"(?<!,) {2,}|\t")


def _kind(spec: str, short: bool) -> str:
    """The kind of an option's value from the text attached to its name: "" (none shown), "optional",
    "required"."""
    if not spec or spec == ",":
        return ""
    spec = spec.rstrip(",")
    if spec.startswith("[="):
        return "optional"
    if spec.startswith("=") or spec.startswith("<"):
        return "required"
    if short and spec.startswith("["):
        return "optional"  # `-i[SUFFIX]`: only attached
    if short:
        return "required"  # `-Idirectory`, `-F/pattern/` (attached or, for some, the next word: not told apart)
    return "unclear"


def _column(text: str) -> list[tuple[str, str]]:
    """The names of one option column with the kind each documents ("" when it shows none)."""
    found: list[tuple[str, str]] = []
    position = 0
    while True:
        match = _NAME.match(text, position)
        if match is None:
            break
        name, spec = match.group(1), match.group(2)
        kind = _kind(spec, short=not name.startswith("--"))
        position = match.end()
        separate = _SEPARATE.match(text, position)
        if not kind and separate:
            value = separate.group(1)
            kind = "unclear" if re.fullmatch(r"\[[^\]]*\]", value) else "required"  # (`-x [V]`: not told)
            position = separate.end()
        if kind == "unclear":
            return []
        found.append((name, kind))
        rest = re.match(r",?\s*(?=-)", text[position:])
        if rest is None or not rest.group():
            break
        position += rest.end()
    return found


def parse_help(text: str) -> dict[str, str]:
    """Each option a help text documents: "flag", "required" (a value, attached or the next word) or "optional"
    (a value only attached); one documented twice in two ways is left out (this parser does not guess)."""
    kinds: dict[str, str] = {}
    unclear: set[str] = set()

    def note(name: str, kind: str) -> None:
        if kinds.get(name, kind) != kind:
            unclear.add(name)
        kinds[name] = kind

    for line in text.splitlines():
        match = _LINE.match(line)
        if match is None:
            if line.lower().startswith("usage:"):
                for option in _SYNOPSIS_VALUE.findall(line):
                    note(option, "required")
                for letters in _SYNOPSIS_FLAGS.findall(line):
                    for letter in letters:
                        note(f"-{letter}", "flag")
            continue
        column = _COLUMN_END.split(re.sub(r",\s+(?=-)", ", ", match.group(1)), maxsplit=1)[0]
        names = _column(column)
        shown = [kind for _name, kind in names if kind]
        for index, (name, kind) in enumerate(names):
            # a name showing no value has the kind of the next name showing one (`-S, --suffix=SUFFIX`), else the
            # last's (`-p DIR, --tmpdir[=DIR]` keeps each its own)
            later = [k for _n, k in names[index + 1:] if k]
            note(name, kind or (later[0] if later else shown[-1] if shown else "flag"))
    return {name: kind for name, kind in kinds.items() if name not in unclear}


#: Programs whose help this parser cannot read: skipped, with the reason.
_UNREADABLE = {
    "zip": "its help lists two options a line, and options taking a list (`-x`, `-n`) as flags",
    "unzip": "its help lists two options a line, its modifiers after the archive",
    "find": "its options are the expression's primaries, not getopt's",
}
#: The help of a program not given by `--help`.
_HELP_ARGS = {"curl": ["--help", "all"], "perl": ["-h"]}


def _tables() -> list[tuple[str, frozenset[str]]]:
    """Each program the reader reads options of, with the options it gives a value."""
    pairs: list[tuple[str, frozenset[str]]] = []
    pairs += [(name, shell_writers._COPY_VALUES) for name in ("cp", "mv", "install", "ln")]
    pairs += [("rsync", shell_writers._RSYNC_VALUES), ("sed", shell_writers._SED_VALUES),
              ("perl", shell_writers._PERL_VALUES)]
    pairs += list(shell_writers._REMOVE_VALUES.items()) + list(shell_writers._MAKE_VALUES.items())
    pairs += [(name, frozenset(values)) for name, values in shell_writers._METADATA.items()]
    pairs += [(name, files | folders | others) for name, (files, folders, others)
              in shell_outputs._OUTPUT_OPTIONS.items()]
    pairs += list(shell_outputs._OPERANDS.items())
    pairs += list(shell_outputs._COMPRESSOR_VALUES.items())
    pairs += [("zip", shell_programs._ZIP_VALUES), ("unzip", shell_programs._UNZIP_VALUES),
              ("cpio", shell_programs._CPIO_VALUES), ("find", frozenset())]
    pairs += [(name, shell_programs._TAR_VALUES) for name in ("tar", "gtar")]
    pairs += [(name, shell_programs._AWK_VALUES) for name in sorted(shell_programs._AWKS)]
    pairs += [("xargs", shell_stdin._XARGS_VALUES)]
    pairs += [(name, frozenset(values)) for name, values in shell_wrappers._WRAPPER_VALUES.items()]
    return sorted(pairs)


def _help(program: str) -> dict[str, str]:
    path = shutil.which(program)
    if path is None:
        pytest.skip(f"{program} is not installed here")
    if program in _UNREADABLE:
        pytest.skip(f"{program}: {_UNREADABLE[program]}")
    env = {**os.environ, "LC_ALL": "C"}
    done = subprocess.run([path, *_HELP_ARGS.get(program, ["--help"])], capture_output=True, text=True, env=env,
                          check=False, timeout=30, stdin=subprocess.DEVNULL)
    kinds = parse_help(done.stdout + done.stderr)
    if not kinds:
        pytest.skip(f"`{program} --help` lists no option this parser reads")
    return kinds


def mismatches(table: frozenset[str], kinds: dict[str, str]) -> list[str]:
    """What `table` (options taking a value, `OPTIONAL`-marked ones only attached) gets wrong against `kinds`."""
    wrong = []
    for option in sorted(table):
        name = option.removesuffix(OPTIONAL)
        kind = kinds.get(name)
        if kind == "flag":
            wrong.append(f"{name}: a flag to the program, read as taking a value")
        elif kind == "optional" and not option.endswith(OPTIONAL):
            wrong.append(f"{name}: the program takes its value only attached, read as taking the next word")
        elif kind == "required" and option.endswith(OPTIONAL):
            wrong.append(f"{name}: the program takes the next word, read as taking it only attached")
    return wrong


@pytest.mark.parametrize(("program", "table"), _tables(), ids=lambda value: value if isinstance(value, str) else "")
def test_no_option_the_reader_gives_a_value_is_a_flag_to_the_program(program: str, table: frozenset[str]) -> None:
    assert not mismatches(table, _help(program)), (program, mismatches(table, _help(program)))


def test_the_parser_reads_each_help_format() -> None:
    """The formats seen here: coreutils', util-linux's, curl's, perl's, a synopsis; a flag, a value, an optional."""
    text = """Usage: chattr [-RVf] [-+=aAc] [-p project] [-v version] files...
  -S, --suffix=SUFFIX          override the usual backup suffix
  -p DIR, --tmpdir[=DIR]  interpret TEMPLATE relative to DIR
      --backup[=CONTROL]       make a backup
  -b                           like --backup but does not accept an argument
 -w, --timeout <secs>     wait for a limited amount of time
  -O,  --output-document=FILE    write documents to FILE
 -E, --cert <certificate[:password]> Client certificate
  -i[extension]         edit <> files in place
  -Idirectory           specify @INC directory
"""
    assert parse_help(text) == {
        "-R": "flag", "-V": "flag", "-f": "flag", "-p": "required", "-v": "required",
        "-S": "required", "--suffix": "required", "--tmpdir": "optional", "--backup": "optional", "-b": "flag",
        "-w": "required", "--timeout": "required", "-O": "required", "--output-document": "required",
        "-E": "required", "--cert": "required", "-i": "optional", "-I": "required"}
    assert mismatches(frozenset({"-b", "--tmpdir", "-I?", "-S"}), parse_help(text)) == [
        "--tmpdir: the program takes its value only attached, read as taking the next word",
        "-I: the program takes the next word, read as taking it only attached",
        "-b: a flag to the program, read as taking a value"]
