"""Inline code an interpreter runs, for the shell's reader (`shell_programs`, `shell_stdin`): given by option
(``python -c``, ``perl -e``, ``node -e``, ``ruby -e``, ``php -r``: `read_inline`) or fed on standard input when the
line shows it (``python3 <<< CODE``, ``echo CODE | perl``, ``python3 - <<'EOF'``, ``cat <<EOF | node``, ``ruby``,
``php``, ``tclsh``; ``python3 /dev/stdin``: `read_stdin_code`; a versioned name, ``python3.12``, is the interpreter
it names), both read by one rule, `read_code`: code that writes (an ``open`` for writing, a ``remove``, ``rmtree``,
``writeFileSync``, Tcl's ``file delete``…) and names a protocol file in a string
(in Tcl, in any word; its escapes decoded as the language decodes them: `"claims\\x2fx"`) makes that file a
target, and every other path it names is kept as named by such code (`ShellReading.in_code`: the decision refuses
one the session holds by `##` sections only); code that only reads names none; a string a call hands a shell
(``os.system("CMD")``, Perl's ``system "CMD"``, backquotes, Tcl's ``exec CMD``, Ruby's ``Open3.capture2("CMD")``,
PHP's ``proc_open("CMD", …)``; the string after ``"-c"`` in an argument list naming a shell: ``["sh", "-c", "CMD"]``,
``os.execl("/bin/sh", "sh", "-c", "CMD")``; Perl's ``open(F, "-|", CMD)``) is read as the command line it is.
What else such code writes is unread: the OS sandbox's job. An interpreter given a script file (``python3 x.py``)
reads its standard input as data: not read here.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.sessions.shell_options import in_bundle
from brain_tui.core.sessions.shell_substitutions import SHELLS, STDIN_PATHS, shell_command

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["INLINE", "STRING", "inline_codes", "interpreter", "read_code", "read_inline", "read_stdin_code",
           "reads_code_from_stdin", "unquote"]

#: Interpreters and their options holding inline code.
INLINE = {"python": ("-c",), "python2": ("-c",), "python3": ("-c",), "pypy": ("-c",), "pypy3": ("-c",),
          "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"),
          "nodejs": ("-e", "--eval", "-p", "--print"), "bun": ("-e", "--eval", "-p", "--print"), "php": ("-r",)}
#: The interpreters that read their code from standard input when no option gives it and no script file is named
#: (or the script is `-`), each with the options of its own that give code or a module (standard input is then
#: data), those taking the next word as their value when given alone (`-W ignore`, `-I lib`), and those whose value
#: is the rest of their word only (`-Mstrict`, `-i.bak`).
_STDIN_OPTIONS: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {
    "python": (frozenset({"-c", "-m"}), frozenset({"-W", "-X", "-Q", "--check-hash-based-pycs"}), frozenset()),
    "perl": (frozenset({"-e", "-E"}), frozenset({"-I"}), frozenset({"-0", "-C", "-d", "-D", "-i", "-l", "-m", "-M",
                                                                   "-x"})),
    "ruby": (frozenset({"-e"}), frozenset({"-I", "-C", "-E", "-r", "--encoding", "--external-encoding",
                                           "--internal-encoding", "--enable", "--disable"}),
             frozenset({"-0", "-F", "-i", "-K", "-T", "-W", "-x"})),
    "node": (frozenset({"-e", "--eval", "-p", "--print", "-c", "--check"}),
             frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader", "--input-type", "-C",
                        "--conditions", "--env-file", "--title", "--inspect-port", "--redirect-warnings"}),
             frozenset()),
    "php": (frozenset({"-r", "--run", "-f", "--file", "-B", "--process-begin", "-R", "--process-code", "-F",
                       "--process-file", "-E", "--process-end"}),
            frozenset({"-c", "--php-ini", "-d", "--define", "-z", "--zend-extension", "-t"}), frozenset()),
}
#: The letters of an interpreter's short options taking the rest of their word as their value (`perl -Ilib`,
#: `-i.bak`, `python3 -Werror`): in a bundle, the letters after one are that value. The others are flags (digits:
#: perl's `-l0`, `-0777`).
_INLINE_ATTACHED = {"python": "WXmQ", "pypy": "WXmQ", "perl": "IMmxidDCV", "ruby": "IrCFxiEKTW", "node": "r",
                    "nodejs": "r", "bun": "r", "php": "dcfzt"}
_STDIN_KIND = {"python": "python", "python2": "python", "python3": "python", "pypy": "python", "pypy3": "python",
               "perl": "perl", "ruby": "ruby", "node": "node", "nodejs": "node", "php": "php", "tclsh": "tcl",
               "tclsh8.6": "tcl"}

#: An interpreter by a versioned name (`python3.12`, `perl5.36`, `ruby3.1`, `php8.2`): the name it has here.
_VERSIONED = LazyPattern(r"(python[23]?|pypy3?|perl|ruby|php|node)[\d.]+")
STRING = LazyPattern(r"""(['"])((?:\\.|(?!\1)[^\\\n])*)\1""")
_PROTOCOL = LazyPattern(r"(?:^|/)(?:claims|signals|locks|breath|\.brain)(?:/|$)|(?:^|/)BRAIN-INDEX\.md$")
#: What writes in inline code: an `open` for writing (`open("F", "w")`, `open(F, mode="w")`, `Path(F).open("w")`,
#: `open(Path(F), "w")`, node's `openSync(F, "w")`, `ZipFile(F, "w")`; Perl's `open(F, ">", P)`; Ruby's and Tcl's
#: `open F w`; an `O_WRONLY` flag, or numeric flags other than 0: `sysopen(F, P, 65)`), a library call that writes
#: (`extractall`, `urlretrieve`, a logging `FileHandler`, `mkstemp`, `fileinput`'s `inplace`), or a call that
#: writes, removes, moves, links or runs something (`os.replace`, `utime`, node's `createWriteStream`, `rmdirSync`,
#: Ruby's `File.delete`, `FileUtils.rm_rf`; Tcl's `file delete`).
_CODE_WRITES = LazyPattern(r"""(?:open(?:Sync)?|ZipFile)\s*\((?:(?:[^()]|\([^()]*\))*?,)?\s*(?:mode\s*=\s*)?
    ['"][rbtUs]*[wax+][rbtUwaxs+]*(?::[\w-]+)?['"]|
    \bopen\b[^;]*?,\s*['"](?:\+?>{1,2}|\+<)(?::[\w()-]+)*\s*['"]|
    \b(?:os\.open|openSync|sysopen)\s*\((?:(?:[^()]|\([^()]*\))*?,){1,2}\s*(?:0[xXoO]?)?[1-9]\w*\s*[,)]|
    \b(?:extract\w*|urlretrieve|\w*FileHandler|basicConfig|mk[sd]temp|shelve\.open|inplace)\b|
    \bopen\s+\S+\s+["{]?(?:(?:[wa]|r\+)(?!\w)|[A-Z_|\s{]*(?:WRONLY|RDWR))|\bO_(?:WRONLY|RDWR|CREAT|TRUNC|APPEND)\b|
    \bos\.replace\b|\bPath\([^)]*\)\.replace\b|\bcreateWriteStream\b|
    \b(?:write\w*|remove\w*|unlink\w*|rmtree|rename\w*|truncate\w*|mkdir\w*|makedirs|rmdir\w*|rm(?:Sync)?|rm_\w+|delete|
    (?:hard|sym)?link\w*|chmod\w*|chown\w*|copy\w*|cp(?:Sync)?|move|touch|utime\w*|mkfifo|mknod|system|popen\w*|run|call|
    check_call|check_output|spawn\w*|exec\w*|appendFile\w*|capture\w+|pipeline\w*|proc_open|readpipe)\b""", re.VERBOSE)
#: A call handing a shell the string that follows (`os.system("CMD")`, Perl's `system "CMD"`, `execSync('CMD')`,
#: Ruby's `spawn("CMD")`, `Open3.capture2("CMD")`, PHP's `proc_open("CMD", …)`, Perl's `readpipe("CMD")`,
#: `subprocess.run(["CMD"], shell=True)`), whatever its prefix (`f"…"`, `rb"…"`) or quotes (`'''…'''`, Perl's
#: `q{…}`, a template literal).
_SHELL_CALL = LazyPattern(r"""\b(?:system|popen|Popen|check_output|check_call|call|run|getoutput|getstatusoutput|
    exec|execSync|spawnSync|shell_exec|passthru|spawn|capture2e?|capture3|popen[23]e?|pipeline\w*|proc_open|readpipe|
    create_subprocess_shell)\s*\(?\s*\[?\s*(?:[rRbBfFuU]{1,2}(?=['"])|(?=['"`])|(?=qq?\W))""", re.VERBOSE)
#: A string in one of the forms `_SHELL_CALL` and `_RUNS_STRING` find: triple-quoted, Perl's `q{…}`/`qx(…)`, Ruby's
#: `%x(…)`, backquoted, or plain (group 1 its text, or group 2 a plain string's quoted text with its quote in 3).
_CALLED = LazyPattern(r"""'''(.*?)'''|""\"(.*?)""\"|(?:qq?|qx|%x)\s*(?:\{(.*?)\}|\((.*?)\)|\[(.*?)\]|<(.*?)>)|
    `((?:\\.|[^`\\])*)`""", re.VERBOSE | re.DOTALL)
#: What runs a shell without a call: Perl's, Ruby's and PHP's backquotes, Perl's `qx{…}`, Ruby's `%x(…)`.
_RUNS_STRING = LazyPattern(r"(?=`|\bqx\s*[{(\[<]|%x\s*[{(\[<])")
#: The interpreters whose backquotes run a shell, and those whose `open("|CMD")` does.
_BACKQUOTES = frozenset({"perl", "ruby", "php"})
_PIPE_OPENS = frozenset({"perl", "ruby"})
#: The interpreters decoding escapes in single quotes too (Python, JavaScript); the others take them as written.
_DECODES_SINGLE = frozenset({"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "bun"})
#: A mode before a path in a string (Perl's `open(F, ">claims/x")`): writing when it holds `>` or `+`.
_MODE = LazyPattern(r"^(?:\+?[<>]{1,2}|\|)\s*")
#: Any string of code, in order (group `w`: Perl's `qw(…)`, a list of words): triple-quoted, Perl's `q{…}`,
#: `qq{…}`, `qx{…}`, Ruby's `%x(…)`, backquoted, or quoted (its quote in `quote`).
_TOKEN = LazyPattern("|".join((
    "'''(?P<t1>.*?)'''", '"""(?P<t2>.*?)"""',
    r"\bqw\s*(?:\{(?P<w1>.*?)\}|\((?P<w2>.*?)\)|\[(?P<w3>.*?)\]|<(?P<w4>.*?)>)",
    r"(?:\b(?:qq?|qx)|%x)\s*(?:\{(?P<q1>.*?)\}|\((?P<q2>.*?)\)|\[(?P<q3>.*?)\]|<(?P<q4>.*?)>)",
    r"`(?P<b>(?:\\.|[^`\\])*)`", r"""(?P<quote>['"])(?P<s>(?:\\.|(?!(?P=quote))[^\\\n])*)(?P=quote)""")), re.DOTALL)
#: The shells a string may name (`"sh"`, `"/bin/bash"`; busybox runs one by its name): in an argument list
#: (`["sh", "-c", CMD]`, `"sh", "-lc", CMD`), the strings after one are its arguments (`shell_command`).
_SHELLS = SHELLS | {"busybox"}
#: Tcl: the command line an `exec` runs (its own options passed over), to the end of its command; and a word, braced,
#: quoted or bare (Tcl writes a path as any of them: `file delete claims/x`, `open {claims/x} w`).
_TCL_EXEC = LazyPattern(r"\bexec\s+(?:-(?:ignorestderr|keepnewline)\s+)*(?:--\s+)?([^\]\n;}]*)")
_TCL_WORD = LazyPattern(r"""\{([^{}\s]*)\}|"((?:\\.|[^"\\\s])*)"|([^\s\[\]{};"$\\]+)""")
#: Tcl's redirections to a channel (`>@ stdout`, `2>@1`, `<@ $f`): no file, taken out of an `exec` command line.
_TCL_CHANNEL = LazyPattern(r"(?:\d?>>?&?|<)@\s*\S+")
#: A backslash escape in a string (see `unquote`): the number in group 1 to 5 (hex) or 6 (octal), a name in 7, or the
#: character escaped in 8.
_ESCAPE = LazyPattern(r"""\\(?:x\{([0-9a-fA-F]+)\}|x([0-9a-fA-F]{1,2})|u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|
    (?:U|N\{U\+)([0-9a-fA-F]{1,8})\}?|([0-7]{1,3})|N\{([^}]*)\}|(.))""", re.VERBOSE | re.DOTALL)
_CONTROLS = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b"}
#: A string longer than this is no path (`in_code`).
_MAX_NAMED = 4096
#: Perl's `<claims/*>`: a glob, its pattern holding a `/` or a wildcard (a read of a handle, `<F>`, `<$f>`, is none).
_PERL_GLOB = LazyPattern(r"""<([^<>\s$'"`]*[/*?][^<>\s$'"`]*)>""")


def unquote(text: str) -> str:
    """`text` with each backslash escape made the character it stands for, as the languages here decode it: a
    control character (`\\n`, `\\t`), a code by number (`\\x2f`, Perl's `\\x{2f}`, `\\u002f`, `\\u{2f}`,
    `\\U0000002f`, octal `\\057`) or name (`\\N{SOLIDUS}`, Perl's `\\N{U+2F}`), any other character itself."""
    return _ESCAPE.sub(_unescape, text)


def _unescape(found: re.Match[str]) -> str:
    number = next((found.group(n) for n in range(1, 6) if found.group(n)), None)
    try:
        if number is not None:
            return chr(int(number, 16))
        if found.group(6):
            return chr(int(found.group(6), 8))
        if found.group(7) is not None:
            import unicodedata

            return unicodedata.lookup(found.group(7))
    except (ValueError, KeyError, OverflowError):
        return found.group()
    return _CONTROLS.get(found.group(8), found.group(8))


def interpreter(name: str) -> str:
    """`name` without the version an interpreter's name may carry (`python3.12` is `python3`)."""
    versioned = _VERSIONED.fullmatch(name)
    return versioned.group(1) if versioned else name


def read_inline(name: str, args: list[str], cwd: str | None, reading: ShellReading,
                run: Callable[[str], object]) -> None:
    """Read the inline code `name ARGS…` is given by option (`INLINE`) with `read_code`."""
    for code in inline_codes(name, args):
        read_code(name, code, cwd, reading, run)


def inline_codes(name: str, args: list[str]) -> list[str]:
    """The inline code `name ARGS…` runs: its code option's value, given apart (`-e CODE`), attached (`-eCODE`),
    after flags in one word (`perl -le CODE`, `python3 -Ic CODE`) or after `=` (`node --eval=CODE`). A letter whose
    option takes the rest of its word (`perl -ie`: the backup extension `e`) ends the bundle."""
    name = interpreter(name)
    options = INLINE[name]
    attached = _INLINE_ATTACHED.get(name.rstrip("0123456789"), "")
    codes: list[str] = []
    for index, arg in enumerate(args):
        following = args[index + 1:index + 2]
        if arg in options:
            codes += following
        elif arg.startswith("--"):
            option, eq, value = arg.partition("=")
            codes += [value] if eq and option in options else []
        elif (found := in_bundle(arg, options, attached)) is not None and found[0]:
            rest = found[1]  # (`node -pe CODE`: `-p` and `-e` both, the code the next word)
            codes += following if all(f"-{letter}" in options for letter in rest) else [rest]
    return codes


def reads_code_from_stdin(name: str, args: list[str]) -> bool:
    """True when the interpreter `name ARGS…` reads the code it runs from its standard input: no option gives it
    code or a module, and it names no script file (or names `-`, `/dev/stdin`, `/dev/fd/0`; php takes the words
    after `--` as the arguments of the code it reads there; tclsh takes a first word starting with `-` as one)."""
    kind = _STDIN_KIND.get(interpreter(name))
    if kind == "tcl":
        rest = args[2:] if args[:1] == ["-encoding"] else args
        return not rest or rest[0].startswith("-")
    if kind is None:
        return False
    codes, nexts, attached = _STDIN_OPTIONS[kind]
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            return kind == "php" or index == len(args) or args[index] in STDIN_PATHS
        if arg == "-" or not arg.startswith("-"):
            return arg in STDIN_PATHS
        if arg.startswith("--"):
            option = arg.partition("=")[0]
            if option in codes:
                return False
            index += option in nexts and "=" not in arg
            continue
        for pos, ch in enumerate(arg[1:], start=1):
            if f"-{ch}" in codes:
                return False
            if f"-{ch}" in nexts or f"-{ch}" in attached:
                index += f"-{ch}" in nexts and pos == len(arg) - 1
                break
    return True


def read_stdin_code(name: str, args: list[str], text: str, cwd: str | None, reading: ShellReading,
                    home: str | None, depth: int) -> None:
    """Read `text`, fed to `name ARGS…` on its standard input, with `read_code` when the interpreter runs it as its
    code (`reads_code_from_stdin`); a command line it hands a shell is read from `cwd`."""
    if not reads_code_from_stdin(name, args):
        return
    from brain_tui.core.sessions.shell_targets import read_text

    read_code(name, text, cwd, reading, lambda line: read_text(line, cwd, reading, home, depth + 1))


def read_code(name: str, code: str, cwd: str | None, reading: ShellReading, run: Callable[[str], object]) -> None:
    """Code that writes and names a protocol file in a string: that file is a target (the decision refuses it);
    another path it names is kept in `reading.in_code`; code that only reads names none. A string a call hands a
    shell (`os.system("CMD")`, `system "CMD"`, Tcl's `exec CMD`) is read with `run` as the command line it is."""
    name = interpreter(name)
    if _STDIN_KIND.get(name) == "tcl":
        _read_tcl(name, code, cwd, reading, run)
        return
    strings = _strings(name, code)
    starts = [call.end() for call in _SHELL_CALL.finditer(code)]
    starts += [found.end() for found in _RUNS_STRING.finditer(code)] if name in _BACKQUOTES else []
    for start in starts:
        called = _CALLED.match(code, start)
        string = STRING.match(code, start)
        text = (_raw_or_decoded(name, code, called.start(), next(g for g in called.groups() if g is not None))
                if called else _raw_or_decoded(name, code, string.start(), string.group(2)) if string else None)
        end = called.end() if called else string.end() if string else start
        if text is not None and not (_is_shell(text) and re.match(r"\s*,", code[end:])):  # (`spawn("sh", [...])`)
            run(text)
    for index, (_start, _end, text) in enumerate(strings):  # `["sh", "-c", CMD]`, `"bash", "--norc", "-lc", CMD`
        if _is_shell(text) and (line := shell_command(["sh", *(word for _s, _e, word in strings[index + 1:])])):
            run(line)
    if name in _PIPE_OPENS and re.search(r"\bopen\b", code):
        _read_pipe_opens(strings, code, run)
    _code_targets(name, code, strings, cwd, reading)


def _raw_or_decoded(name: str, code: str, start: int, text: str) -> str:
    """The text of the string of `code` at `start`, its escapes decoded (`unquote`) unless the language takes it as
    written: single quotes, and Perl's `q{…}`, in Perl, Ruby, PHP and Tcl (Python and JavaScript decode both
    quotes)."""
    if name in _DECODES_SINGLE or code.startswith(('"', '`', 'qq', 'qx', '%x'), start):
        return unquote(text)
    return text


def _strings(name: str, code: str) -> list[tuple[int, int, str]]:
    """The strings of `code` (in the language of `name`) in order, each with where it starts and ends, escapes
    decoded as the language decodes them (`_raw_or_decoded`); each word of a `qw(…)` a string, and each pattern of
    a Perl glob, `<claims/*>`."""
    found: list[tuple[int, int, str]] = []
    for token in _TOKEN.finditer(code):
        words = next((token.group(f"w{n}") for n in range(1, 5) if token.group(f"w{n}") is not None), None)
        if words is not None:
            found += [(token.start(), token.end(), word) for word in words.split()]
            continue
        text = token.group("s") if token.group("quote") else next(g for g in token.groups() if g is not None)
        found.append((token.start(), token.end(), _raw_or_decoded(name, code, token.start(), text)))
    if name == "perl":
        found += sorted((glob.start(), glob.end(), glob.group(1)) for glob in _PERL_GLOB.finditer(code))
    return found


def _is_shell(text: str) -> bool:
    return os.path.basename(text.strip()) in _SHELLS


def _read_pipe_opens(strings: list[tuple[int, int, str]], code: str, run: Callable[[str], object]) -> None:
    """Perl's and Ruby's pipe opens: `open(F, "|CMD")`, `open(F, "CMD|")`, and Perl's three-argument
    `open(F, "-|", CMD)` (`"|-"`; the command one string a shell reads, or a list of words run as they are)."""
    for index, (_start, end, text) in enumerate(strings):
        mode = text.strip()
        if mode in ("|-", "-|"):
            words: list[str] = []
            for start, after, word in strings[index + 1:]:
                if start != end and not re.fullmatch(r"[\s,]*", code[end:start]):
                    break
                words.append(word)
                end = after
            if words:
                run(words[0] if len(words) == 1 else " ".join(shlex.quote(word) for word in words))
        elif mode.startswith("|") or mode.endswith("|"):
            run(mode.strip("|"))


def _code_targets(name: str, code: str, strings: list[tuple[int, int, str]], cwd: str | None,
                  reading: ShellReading) -> None:
    """The protocol files code that writes names in its strings, and in the code a string of it holds
    (`exec('os.remove("claims/x")')`); a path after a writing mode (Perl's `">claims/x"`) whatever the code."""
    writes = bool(_CODE_WRITES.search(code))
    for _start, _end, string in strings:
        mode = _MODE.match(string)
        text = string[mode.end():] if mode else string
        if (writes or mode and any(ch in mode.group() for ch in ">+")) and "\n" not in text:
            _protocol_target(name, text, cwd, reading)
        if writes and re.search(r"""['"`]""", string):
            _code_targets(name, string, _strings(name, string), cwd, reading)


def _read_tcl(name: str, code: str, cwd: str | None, reading: ShellReading, run: Callable[[str], object]) -> None:
    """Tcl: each `exec` runs its words as a command line (read with `run`: Tcl's `exec` takes a shell's
    redirections and pipes); the rest of the code writes a protocol path it names in any word when it writes."""
    for found in _TCL_EXEC.finditer(code):
        run(_TCL_CHANNEL.sub(" ", found.group(1)))
    rest = _TCL_EXEC.sub(" ", code)
    if _CODE_WRITES.search(rest):
        for word in _TCL_WORD.finditer(rest):
            braced, quoted, bare = word.groups()
            text = unquote(quoted) if quoted is not None else braced if braced is not None else bare
            _protocol_target(name, text, cwd, reading)


def _protocol_target(name: str, text: str, cwd: str | None, reading: ShellReading) -> None:
    """A path code that writes names: a protocol file is a target; any other one is kept as named in such code
    (`ShellReading.in_code`), for the decision to refuse if the session holds it by `##` sections only."""
    if "\n" in text or not text.strip() or len(text) > _MAX_NAMED:
        return
    if _PROTOCOL.search(text):
        reading.add(text, cwd, name, tree=not os.path.splitext(text)[1])
    else:
        reading.add(text, cwd, name, in_code=True)
