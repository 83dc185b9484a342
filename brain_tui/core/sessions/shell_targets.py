"""The files a shell command line names as write targets (SPEC 21.3), read without running anything.

An agent's shell tool (Claude Code `Bash`, Gemini CLI `run_shell_command`, Codex
`exec_command` / `shell`) hands the hook a command line. `read_command` reads
from it what can be read: the redirections (``>`` ``>>`` ``>|`` ``&>`` ``N>``,
``>&FILE``), and the targets of ``tee``, ``cp`` / ``mv`` / ``install`` /
``rsync`` / ``ln`` (destinations; ``mv`` and ``git mv`` also their sources),
``rm``, ``rmdir``, ``touch``, ``mkdir``, ``truncate``, ``dd of=``, ``sed -i``,
``perl -i`` (`shell_writers`), ``git checkout|restore|rm|mv|apply`` (``git -C DIR``; ``apply``
reads the patch file's paths), following ``cd`` / ``pushd`` / ``popd`` and subshells (`shell_folders`), through
``sudo``, ``env``, ``command``, ``nice``, ``nohup``, ``time``, ``timeout``,
``exec`` and ``sh|bash -c 'TEXT'`` (read as the shells read ``-c``: `shell_substitutions`), and into what the line
hands a shell to run (``$(…)``, backticks, ``eval``: `shell_substitutions`; ``bash <<< TEXT``, ``echo TEXT | cat |
sh``: `shell_stdin`, the text followed down the pipeline by `shell_pipes`), the command lines options and variables
name (``split --filter``, ``LESSOPEN``: `shell_runs`) and an interpreter's inline code or code on its standard input
(`shell_code`). A long option cut short is read as the whole one, as the GNU programs take it (``cp --target=DIR``,
``sed --in-pl``, ``nice --adj 5``: `shell_options`).

What a command line cannot show is listed in `ShellReading.unread` and left to the OS sandbox: a path made by
``$(...)``, backticks or a variable, what ``xargs`` fed text the line does not show, ``find -exec``, ``eval "$CMD"``, a
script, or an interpreter's code beyond a protocol file it names in a string writes, a glob that matches nothing. A
``cd`` into such a path makes every later relative target unknown too.

Standard library only (shlex, glob): the hook's fast path imports this module.
"""

from __future__ import annotations

import os
import re
import shlex

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.sessions.shell_braces import MAX_TEXT, MAX_WORDS, expand_braces
from brain_tui.core.sessions.shell_code import interpreter
from brain_tui.core.sessions.shell_comments import without_comments
from brain_tui.core.sessions.shell_folders import change_folder, in_new_shell, one_place
from brain_tui.core.sessions.shell_handover import handed_over
from brain_tui.core.sessions.shell_heredocs import split_here_documents
from brain_tui.core.sessions.shell_line_state import LineState, placed
from brain_tui.core.sessions.shell_options import spelled_out
from brain_tui.core.sessions.shell_patches import PATCH_PROGRAMS, names_patch_program, read_leftover_patches, read_patch
from brain_tui.core.sessions.shell_pipes import PipeFlow, passed_on, printed_tokens, shown_word
from brain_tui.core.sessions.shell_quotes import OPERATOR_CHARS, continued, is_operator, shield, words
from brain_tui.core.sessions.shell_runs import option_commands
from brain_tui.core.sessions.shell_stdin import feed, read_fed_files
from brain_tui.core.sessions.shell_substitutions import (
    OTHER_SHELLS,
    SHELLS,
    outside_substitutions,
    past_closer,
    reads_script_from_stdin,
    shell_command,
    shell_options,
    substitutions,
)
from brain_tui.core.sessions.shell_wrappers import split_wrappers
from brain_tui.core.sessions.shell_writers import WRITERS, read_writer

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Sequence

#: At most this many characters of a command line are read (longer: the rest is unread).
MAX_COMMAND = 64 * 1024
_UNREADABLE = {"source", ".", "make", "npm", "npx", "yarn", "pnpm", "uv", "cargo", "go", "patch",
               "parallel", "watch"}
#: Programs whose own command line says some of what they write (`shell_programs`).
PROGRAMS = frozenset({"find", "awk", "gawk", "mawk", "nawk", "python", "python2", "python3", "pypy", "pypy3", "ruby",
                      "node", "nodejs", "bun", "php", "zip", "7z", "7za", "7zr", "7zz", "tar", "bsdtar", "gtar",
                      "unzip", "cpio", "pip", "pip3", "xargs"})
_FD_REDIRECT = LazyPattern(r"(^|[\s;&|(])\d+(?=>|<>)")
_CD_WORD = LazyPattern(r"(^|[\s;&|(])(cd|pushd|popd)([\s;&|)]|$)")


class ShellTarget:
    """One path a command writes: `path` absolute; `tree` when everything below it may be written too."""

    __slots__ = ("path", "tree", "command")

    def __init__(self, path: str, tree: bool, command: str) -> None:
        self.path = path
        self.tree = tree
        self.command = command

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShellTarget) and (self.path, self.tree) == (other.path, other.tree)

    def __hash__(self) -> int:
        return hash((self.path, self.tree))

    def __repr__(self) -> str:
        return f"ShellTarget({self.path!r}, tree={self.tree})"


class ShellReading:
    """What `read_command` found: the write targets, the paths whose record in git a command changes without
    writing them (`named`: `git add`, `git rm --cached`, `git commit PATHS`…; only a protocol file among them is
    refused), what it could not read (the sandbox's job), and `partial`: why the command line itself was not read
    to its end ("" when it was), so a target it names may be missing (the write decision refuses such a command);
    `terminal`: a shell the line starts to read its commands from the terminal (``bash``, ``sh -s``), where text
    typed later runs unread (Codex's `write_stdin` runs no hook), "" when none; `elsewhere`: a command it hands to a
    process outside the agent's own (`shell_handover`: ``tmux send-keys``, ``at``), "" when none; `in_code`: the
    other paths an interpreter's code that writes names in its strings (`shell_code`: which of them it writes is
    unknown; the decision refuses one the session holds by `##` sections only, which the OS sandbox opens whole)."""

    __slots__ = ("targets", "named", "in_code", "unread", "partial", "patches", "patched", "patch_dirs", "line",
                 "terminal", "elsewhere", "fed_files")

    def __init__(self) -> None:
        self.targets: list[ShellTarget] = []
        self.named: list[ShellTarget] = []
        self.in_code: list[ShellTarget] = []
        self.unread: list[str] = []
        self.partial = ""
        self.patches: dict[int, list[str]] = {}  # here-documents fed to a patch program, by shell depth
        self.patched: set[str] = set()  # patch paths read where their command runs
        self.patch_dirs: list[str | None] = []  # the folders patch programs run in
        self.line = LineState("")  # what the line sets for its later commands (HOME, CDPATH…)
        self.terminal = ""
        self.elsewhere = ""
        self.fed_files: dict[str, str | None] = {}  # the word standing for each `<(…)`: the text it prints (None:
        # text the line does not show), read where a shell, `source` or an interpreter runs it (`read_fed_files`)

    @property
    def refused_whole(self) -> bool:
        """True when the write decision refuses the line whatever it writes (`partial`, `terminal`, `elsewhere`):
        its targets do not say all it does."""
        return bool(self.partial or self.terminal or self.elsewhere)

    def add(self, path: str, cwd: str | None, command: str, tree: bool = False, *, named: bool = False,
            in_code: bool = False) -> None:
        """Record a target written as `path` from `cwd` (None: unknown, so a relative path cannot be placed);
        `named`: a path whose record in git the command changes (its index entry, a commit of it); `in_code`: a
        path code that writes names, maybe not written (`in_code`; what cannot be placed is then not noted)."""
        if not (spelled := self.line.home_word(path)):  # `$HOME/x` is `~/x` (None: a line setting HOME, `unplaced`)
            return
        path = spelled
        if "$" in path or "`" in path:
            self.unread += [] if in_code else [f"{command}: a path made by expansion"]
            return
        if path.startswith("~"):
            path = os.path.expanduser(path)
        if not os.path.isabs(path):
            if cwd is None:
                self.unread += [] if in_code else [f"{command}: a relative path after a `cd` that cannot be read"]
                return
            path = os.path.join(cwd, path)
        linked = self.line.through_link(placed(path))
        if linked:
            self.partial = self.partial or linked
            return
        if any(ch in path for ch in "*?["):
            import glob  # only for a command with a glob

            matches = sorted(glob.glob(path))
            if not matches:
                self.unread += [] if in_code else [f"{command}: a glob that matches nothing yet"]
                return
            for match in matches:
                self._append(ShellTarget(placed(match), tree or os.path.isdir(match), command), named, in_code)
            return
        self._append(ShellTarget(placed(path), tree, command), named, in_code)

    def _append(self, target: ShellTarget, named: bool = False, in_code: bool = False) -> None:
        into = self.in_code if in_code else self.named if named else self.targets
        if target not in into:
            into.append(target)


def read_command(command: str | Sequence[str], cwd: str, home: str | None = None) -> ShellReading:
    """The write targets (absolute, in order, without duplicates) and the parts not read of a shell command
    line, or of an argv list (Codex `shell`: run without a shell), run in `cwd`; a bare `cd` goes to `home`
    (default ``$HOME``).
    """
    reading = ShellReading()
    reading.line = LineState(command if isinstance(command, str) else " ".join(map(str, command)))
    if isinstance(command, str):
        read_text(command, cwd, reading, home, depth=0)
    else:
        words = [str(word) for word in command]
        if reads_script_from_stdin(split_wrappers(words)[0]):
            reading.terminal = os.path.basename(split_wrappers(words)[0][0])
        read_words(words, cwd, reading, home, depth=0)
    return reading


def read_text(text: str, cwd: str | None, reading: ShellReading, home: str | None, depth: int,
              same_shell: bool = False) -> str | None:
    """Read the command line `text` run in `cwd` by a shell the line starts (`same_shell`: by the line's own shell,
    or a subshell of it: `eval`, an alias, a substitution); return the working folder after it."""
    if depth > 4:
        reading.unread.append("a shell nested more than 4 deep")
        reading.partial = reading.partial or "a shell nested more than 4 deep"
        return None
    cwd = cwd if same_shell else in_new_shell(cwd)
    whole = text
    text = _drop_heredoc_bodies(text, cwd, reading, home, depth)
    try:
        return _read_lines(text, cwd, reading, home, depth)
    finally:
        read_leftover_patches(whole, cwd, reading, depth, moved=bool(_CD_WORD.search(whole)))


def _read_lines(text: str, cwd: str | None, reading: ShellReading, home: str | None, depth: int) -> str | None:
    if len(text) > MAX_COMMAND:
        reading.unread.append("the command line beyond its first 64 KiB")
        reading.partial = reading.partial or "over 64 KiB of commands, here-documents aside"
        text = text[:MAX_COMMAND]
    if "$(" in text or "`" in text or "<(" in text or ">(" in text:
        reading.unread.append("a command substitution ($(...), backticks or <(...))")  # what it expands to
        # its commands are read as commands (in the folder the line starts in, unless the line changes it: a `cd`
        # inside one moves only its own commands, read with it)
        bodies = substitutions(text)
        inner_cwd = None if _CD_WORD.search(outside_substitutions(text)) else cwd
        for body in bodies:
            read_text(body, inner_cwd, reading, home, depth + 1, same_shell=True)
    # comments out, line joins done, `$'…'` made plain, braces expanded; then `2>x` is a redirection, not `2` `>x`
    text, whole = expand_braces(without_comments(text))
    if not whole:
        reading.unread.append("a brace expansion into too many words")
        reading.partial = reading.partial or \
            f"a brace expansion into more than {MAX_WORDS} words or {MAX_TEXT:,} characters"
        return None
    text = _FD_REDIRECT.sub(r"\1", text)
    reading.partial = reading.partial or reading.line.unplaced(text)
    shielded = shield(text)  # a quoted `|` is a word, never a pipe (`shell_quotes`)
    if shielded is None:
        reading.partial = reading.partial or "a character the reader stands in for quoted operators"
        return None
    lexer = shlex.shlex(shielded, posix=True, punctuation_chars=OPERATOR_CHARS)
    lexer.whitespace = " \t"  # (a carriage return is no blank to bash: `cd\r..` is no `cd`)
    lexer.commenters = ""
    lexer.whitespace_split = True
    try:
        tokens = continued(words(list(lexer)))
    except ValueError:  # an unclosed quote: bash runs the lines before it all the same (`touch F` NEWLINE `echo "a`)
        reading.partial = reading.partial or "an unclosed quote"
        return None
    return _read_tokens(tokens, cwd, reading, home, depth)


def _drop_heredoc_bodies(text: str, cwd: str | None, reading: ShellReading, home: str | None, depth: int) -> str:
    """The command line without the lines of its here-documents (`shell_heredocs`: data, not commands).

    A here-document fed to a shell (``bash <<EOF``) is read as the commands it is. One fed to a patch program
    (``apply_patch <<'EOF'``) waits for that command (`_read_command`), which reads its paths from the folder
    it runs in (``cd src && apply_patch <<'EOF'`` patches below src/).
    """
    kept, documents = split_here_documents(text)
    body_cwd = None if _CD_WORD.search(text) else cwd
    for document in documents:
        for body in [] if document.quoted else substitutions(document.body, here_document=True):
            reading.unread.append("a command substitution in a here-document")  # its `$(…)` run (`<<EOF`)
            read_text(body, body_cwd, reading, home, depth + 1)
        words = re.split(r"[\s;&|()]+", document.before)
        pipeline = re.split(r";|&|\|\|", document.after)[0].split("|")[1:]  # `cat <<EOF | cat | bash`
        shell = any(os.path.basename(word) in SHELLS for word in words)  # (`bash -s <<EOF`)
        if shell:
            read_text(document.body, body_cwd, reading, home, depth + 1)
        passed: str | None = document.body
        changed = ""
        for index, part in enumerate([re.split(r"[;&|()]", document.before)[-1], *pipeline]):  # `ed F <<EOF`
            command = split_wrappers(part.split())[0]
            if not (index == 0 and shell and reads_script_from_stdin(command)):  # (read above)
                feed(command, passed, body_cwd, reading, home, depth, changed)
            passed, changed = passed_on(command, passed, changed)
        if names_patch_program(document.before):
            reading.patches.setdefault(depth, []).append(document.body)
    return kept


def _read_tokens(tokens: list[str], cwd: str | None, reading: ShellReading, home: str | None,
                 depth: int) -> str | None:
    """Walk the tokens: segments between separators, subshells keep their own `cd`, redirections anywhere. Return
    the working folder at their end (None: unknown, or a `cd` that may have failed left two)."""
    stack: list[str | None] = []
    words: list[str] = []
    tokens = list(tokens)
    index = 0
    substitution = 0
    body: list[str] = []  # the tokens of the substitution being skipped
    kind = ""  # where its output goes: `<<<` or `<` (standard input), `<(` (a file named by a word), else nowhere
    stdin = PipeFlow()  # what the command being read gets on its standard input, when the line shows it
    fed = False  # the command being read gets its standard input from the line (a pipe, `<`, `<<`, `<<<`)
    piped = False  # it is a pipeline's second command or later (it runs in a subshell)
    joined = ""  # the operator before the command being read ("" at the start)
    ends: list[str | None] = []  # where the rest of the line read again from where a `cd` that may fail stood ends
    while index <= len(tokens):
        token = tokens[index] if index < len(tokens) else "\n"
        index += 1
        # a substitution is skipped (read apart); what follows its `)` in the same token (`);`) is read next
        if substitution:
            substitution, rest = past_closer(token, substitution) if is_operator(token) else (substitution, "")
            body.append(token if substitution else token[:len(token) - len(rest) - 1])
            if not substitution:
                _substituted(kind, [part for part in body if part], stdin, words, reading)
                body = []
        elif token == "$" and index < len(tokens) and is_operator(tokens[index]) and tokens[index].startswith("("):
            if kind != "<<<":
                words.append("$(…)")  # a word of the command, made when the line runs
            kind = "<<<" if kind == "<<<" else "$("
            substitution, rest = past_closer(tokens[index], 0)
            index += 1
        elif is_operator(token) and token[0] in "<>" and "(" in token:  # `<(…)`, `>(…)`: a process substitution
            substitution, rest = past_closer(token[token.index("("):], 0)
            kind = "<" if kind == "<" else token[:2]
        else:
            rest = None
        if rest is not None:
            kind = kind if substitution else ""
            tokens[index:index] = [rest] if rest else []
            continue
        kind = ""
        if not is_operator(token):
            words.append(token)
            continue
        if ">" in token or (token.startswith("<") and token != "<" and "<<" not in token):
            # a redirection: `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&` (FILE, or a descriptor)
            target = tokens[index] if index < len(tokens) and not is_operator(tokens[index]) else ""
            index += 1 if target else 0
            if token.endswith(">&") and (target.isdigit() or target == "-"):
                continue
            if target and target != "/dev/null" and not target.startswith("/dev/fd/"):
                reading.add(target, cwd, "a redirection")
            continue
        if token.startswith("<"):  # input: `<` FILE, `<<` / `<<<` WORD (no write)
            fed = True
            if index < len(tokens) and not is_operator(tokens[index]):
                if token == "<<<" and tokens[index] == "$":  # `<<< $(…)`: its text is what the body prints
                    kind = "<<<"
                    continue
                if token == "<<<":  # its substitutions' text read as well as the word as written (`'$(…)'`)
                    value = shown_word(tokens[index])
                    stdin.given(tokens[index] if value in (None, tokens[index]) else f"{tokens[index]}\n{value}",
                                "<<< $(…)" if value is None else "")
                index += 1
            elif token == "<":
                kind = "<"  # `< <(…)`: what the body prints is the command's standard input
            continue
        command, _here = split_wrappers(words)
        # `bash <<< CMD`, `echo CMD | cat | sh`, `ed F <<< 'w G'`, `echo F | xargs rm`
        feed(command, stdin.text, cwd, reading, home, depth, stdin.changed)
        if not fed and not reading.terminal and reads_script_from_stdin(command):
            reading.terminal = os.path.basename(command[0])  # `bash`: its commands come from the terminal
        stdin.after(words, command, token)
        fed = "|" in token.replace("||", "") or fed and not words and token.strip("(") == ""  # (`echo A | (sh)`)
        reading.line.command(words, joined)  # whether it surely runs, in this shell (a `cd` in it moves it)
        # `f() {…}`: its body is read here (`_read_command`: a call elsewhere); `cd() {…}` runs no `cd`
        defined = reading.line.define(words, token, cwd)
        after = cwd if defined else read_words(words, cwd, reading, home, depth)
        # a pipeline's commands and a job sent to the background run in subshells: their `cd` moves no later one
        cwd = cwd if piped or token.strip("()") in ("|", "|&", "&") else after
        piped, words, joined = fed, [], token
        before = reading.line.take_unmoved(token) if index < len(tokens) else None
        if before is not None:  # after a `cd` that may fail, what follows runs where the line was too
            nests = reading.line.nests
            ends.append(_read_tokens(tokens[index:], before, reading, home, depth))
            reading.line.nests = nests
        for ch in token:
            if ch == "(":
                stack.append(cwd)
            elif ch == ")" and stack:
                cwd = stack.pop()
    return one_place(cwd, ends)


def _substituted(kind: str, body: list[str], stdin: PipeFlow, words: list[str], reading: ShellReading) -> None:
    """A substitution whose body is the tokens `body` closed: what it prints (`printed_tokens`) is the standard input
    of the command being read (`kind` ``<<<``, ``<``), or the file its word names (``<(``: a word standing for it,
    read where a shell, `source` or an interpreter runs it)."""
    if kind in ("<<<", "<"):
        text = printed_tokens(body)
        stdin.given(text, "" if text is not None else f"{kind} $(…)")
    elif kind == "<(":
        marker = f"/dev/fd/\u2063{len(reading.fed_files)}"
        reading.fed_files[marker] = printed_tokens(body)
        words.append(marker)


def read_words(words: list[str], cwd: str | None, reading: ShellReading, home: str | None,
               depth: int) -> str | None:
    """Read one simple command; return the working folder after it (a `cd` changes it, `env -C DIR` does not)."""
    words, here = split_wrappers(words, cwd, reading, lambda line: read_text(line, cwd, reading, home, depth + 1))
    after = _read_command(words, here, reading, home, depth)
    return after if here == cwd else cwd


def _read_command(words: list[str], cwd: str | None, reading: ShellReading, home: str | None,
                  depth: int) -> str | None:
    if not words:
        return cwd
    if words[0] == "alias" or words[0] in reading.line.aliases:  # `alias r='rm -rf'`: `r claims` runs rm -rf claims
        return reading.line.alias(words, cwd, lambda inner: read_words(inner, cwd, reading, home, depth + 1),
                                  lambda text: read_text(text, cwd, reading, home, depth + 1, same_shell=True))
    reading.partial = reading.partial or reading.line.call(words[0], cwd)
    name = interpreter(os.path.basename(words[0]))  # (`python3.12` is `python3`)
    args = spelled_out(name, words[1:])  # `--target=DIR` is `--target-directory=DIR` (a GNU program's prefixes)
    reading.elsewhere = reading.elsewhere or handed_over(name, args)
    for line in option_commands(name, args):  # `split --filter=CMD`, `ssh -o ProxyCommand=CMD`: read as commands
        read_text(line, cwd, reading, home, depth + 1)
    read_fed_files([name, *args], cwd, reading, home, depth)  # `. <(echo CMD)`, `bash <(…)`, `python3 <(…)`
    if name in ("cd", "pushd", "popd", "dirs"):
        return change_folder(name, args, cwd, reading, home)
    if name in PATCH_PROGRAMS:  # Codex's patch: in its argv, or the here-document fed to it
        pending = reading.patches.get(depth, [])
        read_patch([*args, *pending[:1]], cwd, reading, name)
        del pending[:1]
        return cwd
    if name == "eval":  # its words joined are a command line (what an expansion in them makes is not read)
        if any("$" in arg or "`" in arg for arg in args):
            reading.unread.append("eval: a command made by expansion")
        return read_text(" ".join(args), cwd, reading, home, depth + 1, same_shell=True)
    if name in SHELLS:
        given = shell_command([name, *args])  # `bash -c CMD`, `bash -xc CMD`, `sh -c -- CMD`
        if given is not None:
            read_text(given, cwd, reading, home, depth + 1)
        elif shell_options(args)[1]:
            reading.unread.append(f"{name}: a script file")
        return cwd
    if name in OTHER_SHELLS:  # fish, csh, PowerShell…: not read, so nothing they run can be let through
        reading.partial = reading.partial or f"`{name}` runs commands in a language the reader does not read"
        return cwd
    if name in PROGRAMS:  # find, the archivers, awk, an interpreter's inline code
        from brain_tui.core.sessions.shell_programs import read_program  # (it reads with this module's helpers)

        return read_program(name, args, cwd, reading, home, depth)
    if name in _UNREADABLE:
        reading.unread.append(f"{name}: what it writes")
        return cwd
    if name == "git" or name.startswith("git-"):
        from brain_tui.core.sessions.shell_git import KNOWN, read_git  # (it reads with this module's helpers)

        if name == "git" or name[4:] in KNOWN:  # (git's own program for a subcommand, `…/git-core/git-reset`)
            return read_git(args if name == "git" else [name[4:], *args], cwd, reading)
    if name in WRITERS:  # cp, rm, touch, chmod, sed -i…
        return read_writer(name, args, cwd, reading, home, depth)
    from brain_tui.core.sessions.shell_vim import VIMS, read_vim  # (they read with this module's helpers)

    if name in VIMS:
        return read_vim(name, args, cwd, reading, home, depth)
    from brain_tui.core.sessions.shell_outputs import read_outputs  # `sort -o`, `curl -o`, `gzip`… (it reads

    return read_outputs(name, args, cwd, reading)  # with this module's helpers)
