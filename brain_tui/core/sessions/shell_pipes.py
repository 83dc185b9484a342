"""The text a command line shows flowing down a pipeline, for the shell's reader (`shell_targets`): what each
command hands the next one on its standard input, so that a shell or an interpreter reading it there is read
(`shell_stdin.feed`) however the text got to it.

``echo``/``printf`` write their words (`piped_text`); ``cat`` (no file, or ``-``), ``tee FILE…`` (it writes FILE
too), ``dd`` copying whole and ``head``/``tail`` keeping every line pass the text they get on unchanged; a group or
subshell (``{ echo A; echo B; }``, ``(echo A)``, a loop's body) writes what its commands write, joined, and the text
fed to it reaches each of its commands (``echo CMD | { echo A; cat; }``); a group given text after its closer
(``{ …; } <<< TEXT``) writes what the line does not say. An echo whose escapes another echo decodes (dash's, zsh's,
bash's with ``xpg_echo``) writes both texts. Any other
command fed shown text changes it as the line does not say (``tr``, ``sed``, ``head -1`` of longer text): the text
after it is unknown, and a command running what it reads (`shell_stdin.feed`) cannot be read. A command fed no
shown text (``ls``, ``cat FILE``) writes text the line does not show: as a script file's, left to the OS sandbox.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.sessions.shell_quotes import OPERATOR_CHARS, continued, is_operator, shield, words
from brain_tui.core.sessions.shell_substitutions import echo_decoded, filled, piped_text
from brain_tui.core.sessions.shell_wrappers import split_wrappers

__all__ = ["PipeFlow", "passed_on", "printed", "printed_tokens", "shown_word"]

#: The operators a substitution's body may join its commands with for its output to be known: a pipe hands the
#: text on (`passed_on`), the others run the next command after it, its output following.
_JOINS = frozenset({"|", ";", "&&", "||", "\n"})

#: The options of `cat` and `tee` that leave the text as it is (`cat -u` is ignored; tee's only choose how it writes
#: its files).
_SAME = {"cat": frozenset({"-u", "--"}),
         "tee": frozenset({"-a", "--append", "-i", "--ignore-interrupts", "-p", "--output-error", "--"})}
#: dd's operands that copy its input whole to its output.
_DD_WHOLE = LazyPattern(r"(?:status|bs|ibs|obs)=\S*")
#: `head`/`tail` options giving how many lines they keep (`-n 5`, `-n5`, `-5`, `--lines=5`).
_LINES = LazyPattern(r"-n(\d+)|-(\d+)|--lines=(\d+)")
#: The words opening a group or compound command whose commands' output is its own, and those closing one.
_OPENS = frozenset({"{", "if", "while", "until", "for", "case", "select"})
_CLOSES = frozenset({"}", "fi", "done", "esac"})


def passed_on(command: list[str], text: str | None, changed: str) -> tuple[str | None, str]:
    """What the command `command` (its wrappers passed over) writes to the next one when it gets `text` on its
    standard input (None: none the line shows; `changed`: text the line showed, changed on its way by that
    command): the text it writes (None: none the line shows) and the command that changed it ("" when none)."""
    if not command:
        return None, ""
    own = piped_text(command)
    if own is not None:  # `echo 'a\\0057b'`: dash's, zsh's, an xpg_echo bash's echo write a/b: both are read
        decoded = echo_decoded(command)
        return (own if decoded is None else f"{own}\n{decoded}"), ""
    if text is None and not changed:
        return None, ""
    name = os.path.basename(command[0])
    if changed or not _unchanged(name, command[1:], text or ""):
        return None, changed or name
    return text, ""


def _unchanged(name: str, args: list[str], text: str) -> bool:
    """True when `name ARGS…` writes `text`, fed on its standard input, unchanged to its output."""
    if name in _SAME:
        options = [arg.partition("=")[0] for arg in args if arg.startswith("-") and arg != "-"]
        reads = [arg for arg in args if arg == "-" or not arg.startswith("-")]
        return all(option in _SAME[name] for option in options) and (name == "tee" or set(reads) <= {"-"})
    if name == "dd":
        return all(_DD_WHOLE.fullmatch(arg) for arg in args)
    if name in ("head", "tail"):  # every line kept: `head -n N` of text of N lines or fewer
        index, keep = 0, 10
        while index < len(args):
            found = _LINES.fullmatch(args[index])
            if args[index] == "-n" and index + 1 < len(args) and args[index + 1].isdigit():
                keep, index = int(args[index + 1]), index + 2
            elif found:
                keep, index = int(next(group for group in found.groups() if group)), index + 1
            else:
                return False
        return len(text.rstrip("\n").split("\n")) <= keep
    return False


def printed(body: str) -> str | None:
    """The text the substitution whose body is `body` prints (`printed_tokens`), or None."""
    import shlex

    shielded = shield(body)
    if shielded is None:
        return None
    lexer = shlex.shlex(shielded, posix=True, punctuation_chars=OPERATOR_CHARS)
    lexer.whitespace, lexer.commenters, lexer.whitespace_split = " \t", "", True
    try:
        return printed_tokens(continued(words(list(lexer))))
    except ValueError:  # an unclosed quote
        return None


def printed_tokens(tokens: list[str]) -> str | None:
    """What the commands `tokens` (a substitution's body, split as the reader splits a line) print, when the line
    shows it: only echo/printf of words with no expansion, and commands passing that text on unchanged
    (`passed_on`), joined by pipes, `;`, `&&`, `||` or new lines; None for any other (its text is not shown)."""
    outputs: list[str] = []
    text: str | None = None
    command: list[str] = []
    for token in [*tokens, ";"]:
        if not is_operator(token):
            if "$" in token or "`" in token:
                return None
            command.append(token)
            continue
        if token not in _JOINS or not command:
            return None
        text, changed = passed_on(split_wrappers(command)[0], text, "")
        if text is None or changed:
            return None
        command = []
        if token != "|":
            outputs.append(text)
            text = None
    return "\n".join(outputs)


def shown_word(word: str) -> str | None:
    """The word `word` with its substitutions made the text they print (`printed`), or None: one prints text the
    line does not show."""
    return filled(word, printed) if "$(" in word or "`" in word else word


class PipeFlow:
    """The text reaching the command being read on its standard input, as the reader walks a line's commands."""

    __slots__ = ("text", "changed", "_groups", "_closed", "_given")

    def __init__(self) -> None:
        self.text: str | None = None  # the text the line shows reaching it (`<<< TEXT`, `echo TEXT |`)
        self.changed = ""  # the command that changed text the line showed on its way (the text is then unknown)
        # each open group: its opener, output, changer, and its input (which each of its commands may read)
        self._groups: list[tuple[str, list[str], str, tuple[str | None, str]]] = []
        self._closed: tuple[str | None, str] | None = None  # the output of a subshell closed by a lone `)`
        self._given = False  # the command being read was given its text by `<<< TEXT`

    def given(self, text: str | None, unknown: str = "") -> None:
        """The command being read gets `text` by ``<<< TEXT`` or ``< <(…)``; `unknown`: a substitution there prints
        text the line does not show (`text` then None, or the word as written), and a command running it cannot be
        read. A group closed there (``{ …; } <<< TEXT``) hands it to whichever of its commands reads it: what the
        group writes is then unknown."""
        self.text, self.changed, self._given = text, unknown, True

    def after(self, words: list[str], command: list[str], operator: str) -> None:
        """Follow the command `words` (`command`: its wrappers passed over) ending at `operator`: what it writes
        goes to the next command (`|`), or to the output of the group it stands in, which a group closed here
        (`}`, `)`, `done`) hands on in its turn."""
        if words and words[0] in _OPENS:
            self._groups.append((words[0], [], "", (self.text, self.changed)))
        if words and words[0] in _CLOSES and len(command) == 1:
            text, changed = self._close(None, "")
            text, changed = (None, words[0]) if self._given else (text, changed)  # `{ echo a; cat; } <<< CMD`
        elif not words:  # `(echo A) | sh`: the `)` and the `|` two operators; `echo A | (sh)`: `|` then `(`
            text, changed = self._closed or (self.text, self.changed)
            text, changed = (None, ")") if self._given and self._closed else (text, changed)  # `(cat) <<< CMD`
        else:
            text, changed = passed_on(command, self.text, self.changed)
        self._closed, self._given = None, False
        rest = operator.replace("()", "")  # (`f()`: a function's name, no subshell)
        closed = False
        while rest.startswith(")"):  # `)`, `)|`, `);`: a subshell closed (not a `case` pattern's)
            if self._groups and self._groups[-1][0] == "(":
                text, changed = self._close(text, changed)
                closed = True
            rest = rest[1:]
        if closed and not rest:  # what the next operator does with its output is yet to come
            self._closed, self.text, self.changed = (text, changed), None, ""
            return
        if not (rest.startswith("|") and not rest.startswith("||")) and (words or rest.strip("(")):
            self._add(text, changed)
            text, changed = self._groups[-1][3] if self._groups else (None, "")  # the group's input, for its next
        self._groups += [("(", [], "", (text, changed))] * rest.count("(")
        self.text, self.changed = text, changed

    def _add(self, text: str | None, changed: str) -> None:
        if self._groups:
            opener, output, was, given = self._groups[-1]
            self._groups[-1] = (opener, [*output, *([text] if text is not None else [])], was or changed, given)

    def _close(self, text: str | None, changed: str) -> tuple[str | None, str]:
        """Close the innermost group, `text` (changed by `changed`) the output of its last command: its output."""
        self._add(text, changed)
        if not self._groups:
            return None, ""
        _opener, output, was, _given = self._groups.pop()
        return ("\n".join(output) if output else None), was
