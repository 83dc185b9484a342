"""What a shell command line changes for its own later commands, for the shell's reader (`shell_targets`).

A line can move what its later words mean: a link it makes (``ln -s ../claims notes/c``, ``cp -s``, or a link moved
or copied into place) sends a later write at or below the link (``notes/c/a.yml``) where the link leads;
an alias it defines (``alias r='rm -rf'``) runs its commands where its name is the command word (``r claims``);
``HOME=/elsewhere`` (or ``export``, ``declare``, ``read HOME``…) sends
``~`` and a bare ``cd`` elsewhere than the hook's own ``HOME`` says, ``CDPATH=…`` sends ``cd NAME`` into another
folder, and ``GIT_DIR=…`` (git's ``GIT_*`` variables, but those naming only who and when, and one naming a command git
runs assigned a value the line shows: ``GIT_EDITOR=true``, read as that command by `shell_runs`) sends a git command to
another repository, or gives it settings (an alias) the hook's own git does not see. Such a line is not read as if they
were unchanged: the reading is partial (the write decision refuses it; for git, a command that does more than read), as
a target it names may be placed wrong.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os
import re

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.sessions.shell_quotes import ASSIGNMENT
from brain_tui.core.sessions.shell_runs import COMMAND_VARIABLES

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["LineState", "makes_links", "placed"]

#: A word naming HOME where the shell may set it (`HOME=`, `export HOME`, `read HOME`, `unset HOME`, `${HOME:=…}`),
#: not where it only expands it (`$HOME`, `${HOME}`).
_SETS_HOME = LazyPattern(r"(?<![\w$/.{-])HOME(?![\w.])|\$\{HOME:?=")
_SETS_CDPATH = LazyPattern(r"(?<![\w$/.{-])CDPATH(?![\w.])|\$\{CDPATH:?=")
_SETS_OLDPWD = LazyPattern(r"(?<![\w$/.{-])OLDPWD(?![\w.])|\$\{OLDPWD:?=")
#: A word naming one of git's own variables where the shell may set it (`GIT_DIR=…`, `export GIT_WORK_TREE`,
#: `GIT_CONFIG_KEY_0=alias.x`, `${GIT_DIR:=…}`): the repository git acts on, or its settings, are named apart.
#: Not those naming only who and when (author, committer, their dates), or that git asks no question: they change
#: neither the repository nor the program git runs.
_GIT_NAME = r"GIT_(?!(?:(?:AUTHOR|COMMITTER)_(?:NAME|EMAIL|DATE)|TERMINAL_PROMPT|MERGE_AUTOEDIT)(?![\w.]))[A-Z0-9_]+"
#: Nor one naming a command git runs (`GIT_EDITOR`, `GIT_PAGER`…) where the line assigns it a value with no expansion,
#: which the reader reads as that command (`shell_runs.variable_command`): `GIT_EDITOR=true git rebase --continue`.
#: Named bare (`read GIT_EDITOR`, `export GIT_EDITOR`), given by `${…:=…}` or a value made by expansion, the command
#: is not shown: still one of git's own.
_GIT_COMMANDS = "|".join(sorted((name for name in COMMAND_VARIABLES if name.startswith("GIT_")), key=len, reverse=True))
_SHOWN_VALUE = r"""(?:[^\s$`'"\\;&|()<>]|'[^']*'|"[^"$`\\]*")*(?=[\s;&|)]|$)"""
_SETS_GIT = LazyPattern(rf"(?<![\w$/.{{-])(?!(?:{_GIT_COMMANDS})\+?={_SHOWN_VALUE}){_GIT_NAME}(?![\w.])"
                       rf"|\$\{{{_GIT_NAME}:?=")
#: One of git's variables giving it settings (`GIT_CONFIG_KEY_0`, `GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_GLOBAL`) or
#: the folder of its own programs, set on the line: any git command may run a command they name, one that reads too.
_GIT_SETTINGS = r"GIT_(?:CONFIG(?!_NOSYSTEM(?![\w.]))[A-Z0-9_]*|EXEC_PATH)"
_SETS_GIT_SETTINGS = LazyPattern(rf"(?<![\w$/.{{-]){_GIT_SETTINGS}(?![\w.])|\$\{{{_GIT_SETTINGS}:?=")
#: A `~` the shell expands: at a word's start, or after `=` or `:` in an assignment.
_TILDE = LazyPattern(r"(?:^|[\s=:;&|(<>{])~")
#: A word starting with the home folder's variable, which `home_word` places as `~` is.
#: Not the value of HOME's own assignment (`env -i HOME="$HOME" …` keeps it as it is).
_HOME_WORD = LazyPattern(r"""(?:^|[\s=:;&|(<>{'"])(?<!HOME=)(?<!HOME=["'])\$(?:HOME|\{HOME\})(?:/|[\s;&|)'"]|$)""")


#: The words before a command that leave it run by this shell itself (a `cd` among them moves it): the shell's own
#: words and the builtins that run a builtin. Any other (`env`, `sudo`, `nohup`, `timeout`…) runs a program, and a
#: `cd` run as one moves nothing (`coproc` runs it in a subshell).
_IN_THIS_SHELL = frozenset({"!", "time", "builtin", "command", "{", "then", "do", "else", "elif", "if", "while",
                            "until", "function"})
#: The words opening a compound command whose body may not run (or a loop's, any number of times), and closing it.
_OPENS = frozenset({"if", "while", "until", "for", "case", "select"})
_CLOSES = frozenset({"fi", "done", "esac"})
#: The options `cd` takes (`-P`, `-eL`…); any other, or a second operand, makes it fail where it stands.
_CD_OPTIONS = LazyPattern(r"-[LPe@]+")

#: How many `cd`s that may fail the line may hold before it cannot be read whole (`LineState.take_unmoved`).
_MAX_FORKS = 8


class LineState:
    """What the whole line sets that changes how its paths are placed (read once from its text)."""

    __slots__ = ("home_set", "cdpath_set", "oldpwd_set", "git_set", "git_settings", "lastpipe", "links", "aliases",
                 "functions", "calls", "defining", "unmoved", "forks", "nests", "sure")

    def __init__(self, text: str) -> None:
        self.home_set = bool(_SETS_HOME.search(text))
        self.cdpath_set = bool(_SETS_CDPATH.search(text))
        self.oldpwd_set = bool(_SETS_OLDPWD.search(text))  # `cd -` goes where it says (`shell_folders`)
        self.git_set = bool(_SETS_GIT.search(text))
        self.git_settings = bool(_SETS_GIT_SETTINGS.search(text))
        self.lastpipe = "lastpipe" in text  # a pipeline's last command may run in this shell (`shopt -s lastpipe`)
        self.links: list[str | None] = []  # the links the line has made so far (None: one made where it cannot show)
        self.aliases: dict[str, str] = {}  # the aliases the line has defined so far
        self.functions: dict[str, str | None] = {}  # the functions it has defined so far, with the folder there
        self.calls: dict[str, set[str]] = {}  # the commands each function's body runs (`call`)
        self.defining = ""  # the function whose body the next command opens (`f()` read, `{` not yet)
        self.unmoved: str | None = None  # where the line was before a `cd` that may fail (`cd_to`)
        self.forks = 0  # how many times the rest of the line was read from there too (`take_unmoved`)
        self.nests: tuple[bool | str, ...] = ()  # the compound commands open (True: a body that may not run; a
        # function's name: its body, defined, not run)
        self.sure = True  # the command being read runs, and in this shell (`command`)

    def alias(self, words: list[str], cwd: str | None, read_words: Callable[[list[str]], str | None],
              read_text: Callable[[str], str | None]) -> str | None:
        """`alias NAME=VALUE…` defines; `NAME ARGS…` (a name defined) reads ``VALUE ARGS…`` as the command it is
        (words: `read_words`; a command line: `read_text`), the alias not expanded again inside. Returns the
        working folder after it."""
        if words[0] == "alias":
            for arg in words[1:]:
                name, eq, value = arg.partition("=")
                if eq:
                    self.aliases[name] = value
            return cwd
        import shlex

        value = self.aliases.pop(words[0])
        try:
            if not re.search(r"[;&|<>()$`\n\\'\"]", value):
                return read_words(value.split() + words[1:])
            return read_text(value + " " + shlex.join(words[1:]))
        finally:
            self.aliases[words[0]] = value

    def define(self, words: list[str], operator: str, cwd: str | None) -> bool:
        """Note a function the command `words` before `operator` defines (``f()``, ``function f``) in `cwd`: its
        body was read there. True when `words` are only its name (``cd()``, ``function f`` before ``()``: no command
        runs)."""
        self.defining = ""
        if words[:1] == ["function"] and len(words) > 1:
            self.functions[words[1]] = cwd
            self.defining = words[1] if operator.startswith("()") else ""
        elif len(words) == 1 and operator.startswith("()"):
            self.functions[words[0]] = cwd
            self.defining = words[0]
        return bool(self.defining) and len(words) <= 2

    def call(self, name: str, cwd: str | None) -> str:
        """Why the command `name` run in `cwd` cannot be read ("" when it can): a function the line defined in
        another folder (its body, read where it was defined, runs where it is called), or one whose body changes
        the folder (`cd`, `pushd`, `popd`, `dirs`, itself or through another function: read where it was defined,
        its change moves the shell where it is called). Notes `name` as a command of the function bodies open."""
        for body in self.nests:
            if isinstance(body, str):
                self.calls.setdefault(body, set()).add(os.path.basename(name))
        if name in self.functions and self.functions[name] != cwd:
            return "a function called in another folder than the one the line defines it in"
        if name in self.functions and self._moves(name, set()):
            return "a function that changes the folder, called"
        return ""

    def _moves(self, name: str, seen: set[str]) -> bool:
        """True when the body of the function `name` runs a folder change, itself or through a function."""
        seen.add(name)
        for called in self.calls.get(name, set()):
            if called in ("cd", "pushd", "popd", "dirs") or (called in self.calls and called not in seen
                                                              and self._moves(called, seen)):
                return True
        return False

    def made_links(self, paths: list[str], unplaced: bool) -> None:
        """Links made at `paths` (absolute); `unplaced`: one more made where the line does not show."""
        self.links.extend(paths)
        if unplaced:
            self.links.append(None)

    def through_link(self, path: str) -> str:
        """Why the absolute `path` cannot be placed as written ("" when it can): at or below a link the line made."""
        for link in self.links:
            if link is None:
                return "a write after a link made where the line does not show"
            if path == link or path.startswith(link.rstrip("/") + "/"):
                return "a write through a link the line makes"
        return ""

    def unplaced(self, text: str) -> str:
        """Why the paths of the line `text` cannot be placed ("" when they can): a `~` after the line sets HOME."""
        if self.home_set and _TILDE.search(text):
            return "a `~` on a line that sets HOME"
        if self.home_set and _HOME_WORD.search(text):
            return "a `$HOME` path on a line that sets HOME"
        return ""

    def home_word(self, word: str) -> str | None:
        """`word` with a leading ``$HOME`` or ``${HOME}`` spelled as the home folder, as a leading ``~`` is; None on
        a line that sets HOME (it cannot be placed); any other word as it is."""
        head, slash, tail = word.partition("/")
        if head not in ("$HOME", "${HOME}"):
            return word
        return None if self.home_set else os.path.expanduser("~") + slash + tail

    def command(self, words: list[str], separator: str) -> None:
        """Note the command `words` the line runs after the operator `separator` ("" at its start): the compound
        commands it opens or closes, and whether it surely runs in this shell (`sure`): not after `&&` or `||`, not
        in the body of an `if`, a loop, a `case` or a function (defined, not run), not through a program (`env cd`)."""
        nests = list(self.nests)
        sure = separator.strip("()") not in ("&&", "||")
        body = self.defining if separator.startswith("()") else ""  # `f() {`, `f() if …`: f's body
        for index, word in enumerate(words):
            if index and words[index - 1] == "function":  # the name `function NAME {` defines
                body = word
                continue
            if word in _OPENS:
                nests.append(body or True)
            elif word in _CLOSES or word == "}":
                nests = nests[:-1]
            elif word == "{":  # a function's body (`f() {`, `function f {`), else a group that runs
                nests.append(body or separator.endswith(")"))
            elif word not in _IN_THIS_SHELL and not ASSIGNMENT.match(word):
                sure = sure and word in ("cd", "pushd", "popd")
                break
            body = ""
        self.nests = tuple(nests)
        self.sure = sure and not any(nests)

    def cd_to(self, before: str | None, after: str, name: str, args: list[str]) -> None:
        """Note a `cd` (or `pushd`) `args` from `before` to `after`: one that may not run (`command`), to a folder
        that does not exist (yet), or that fails where it stands (`cd A B`, `cd -x A`), may leave the line in
        `before`, and the commands a `;`, `||`, `&` or new line puts after it then run there (`take_unmoved`)."""
        if before is not None and (not self.sure or _cd_fails(name, args) or not os.path.isdir(after)):
            self.unmoved = before

    def take_unmoved(self, separator: str) -> str | None:
        """The folder the commands after `separator` may run in besides the `cd`'s (once; None when none): a `cd`
        that may have failed came before, and they run whatever it did (`cd nope; touch F` touches `F` here)."""
        kept = separator.strip("()")
        if self.unmoved is None or self.forks >= _MAX_FORKS or not (";" in kept or "\n" in kept or kept in ("||", "&")):
            return None
        before, self.unmoved = self.unmoved, None
        self.forks += 1
        return before

    def cd_unplaced(self, operands: list[str]) -> str:
        """Why a `cd` with these operands goes nowhere the line shows ("" when it does)."""
        if self.forks >= _MAX_FORKS:  # each `cd` that may fail reads the rest of the line twice
            return f"more than {_MAX_FORKS} `cd`s to folders that do not exist, each followed by `;`"
        if self.lastpipe:
            return "a `cd` on a line that sets lastpipe (a pipeline's last command runs in this shell)"
        if not operands and self.home_set:
            return "a bare `cd` on a line that sets HOME"
        if operands and self.cdpath_set and not operands[0].startswith(("/", ".", "~")):
            return "a `cd` on a line that sets CDPATH"
        return ""


def _cd_fails(name: str, args: list[str]) -> bool:
    """True when `cd` with these words fails wherever it goes: an option it lacks, or a second operand (bash
    reads its options up to the first operand or `--`)."""
    if name != "cd":
        return False
    for index, arg in enumerate(args):
        if arg == "--" or arg == "-" or not arg.startswith("-"):
            return len(args) - index - (arg == "--") > 1
        if not _CD_OPTIONS.fullmatch(arg):
            return True
    return False


def placed(path: str) -> str:
    """The absolute `path` normalised as the kernel walks it: a `..` after a link goes up from where the link
    leads (``notes/L/../x`` with ``L -> ../claims/sub`` is ``claims/x``), not up from the link's own folder."""
    lexical = os.path.normpath(path)
    parts = path.split("/")
    if ".." not in parts:
        return lexical
    last = len(parts) - 1 - parts[::-1].index("..")
    head = "/".join(parts[:last + 1]) or "/"
    real = os.path.realpath(head)
    if real == os.path.realpath(os.path.normpath(head)):
        return lexical  # no link before a `..`: the path as written
    return os.path.normpath(os.path.join(real, *parts[last + 1:]))


def makes_links(name: str, operands: list[str], flags: set[str], cwd: str | None) -> bool:
    """True when `ln` / `cp` / `mv` with these operands leaves links at its destinations: ``ln -s``, ``cp -s``, or
    a link on disk moved or copied into place (an unknown source folder counts as one)."""
    if (name == "ln" and flags & {"-s", "--symbolic"}) or (name == "cp" and flags & {"-s", "--symbolic-link"}):
        return True
    if name not in ("cp", "mv"):
        return False
    for source in operands[:-1] if not flags & {"-t", "--target-directory"} else operands:
        if "$" in source or "`" in source:
            return True
        full = source if os.path.isabs(source) else os.path.join(cwd, source) if cwd is not None else None
        if full is None or os.path.islink(full.rstrip("/")):
            return True
    return False
